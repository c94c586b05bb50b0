import { readFile } from "node:fs/promises";
import path from "node:path";
import { compileSchema, pointerToField, toViolations, usePrecompiled } from "../json-schema.js";
import { flatManifest as precompiledFlat, specManifest as precompiledSpec } from "../validators.generated.js";
import { jsonLocator, parseJsonText, pointerSegments } from "../json-text.js";

/**
 * The plugin manifest (`plugin.json`) in either of its two forms, checked against one schema and
 * normalised into one shape:
 *  - flat: `{ name, prefix, adapter, ... }`, as the original JavaScript runtime read it;
 *  - Agent Plugins Spec 1.0.0: `{ name, version, description, extensions: { "dev.agent-tools-runtime": { prefix, adapter, ... } } }`.
 */

export const EXTENSION_KEY = "dev.agent-tools-runtime";

/** A built-in adapter kind described in data (no code). Fields beyond `kind` belong to that kind. */
export interface DeclarativeAdapterSpec {
  kind: string;
  [field: string]: unknown;
}

export interface PluginManifest {
  /** Absolute path of the plugin.json this came from. */
  file: string;
  /** Absolute path of the plugin's folder. */
  dir: string;
  /** "config": made from an `mcpServers` entry of the config file, with no plugin folder; "memory": made in code (a text module's). */
  form: "flat" | "agent-plugins-spec" | "config" | "memory";
  name: string;
  version?: string;
  description: string;
  prefix: string;
  /** A module path relative to `dir`, or a declarative block for a built-in kind. */
  adapter: string | DeclarativeAdapterSpec;
  adapterExport?: string;
  readonlyTools: string[];
  /**
   * Tools that need confirm whatever the downstream server's annotations say (kite's eval_js runs
   * any script in the page: the server calls it read-only, it can submit a form).
   */
  confirmTools?: string[];
  /** Skill files or folders relative to `dir`; undefined means "the skills/ folder if present". */
  skills?: string[];
  discoverHint?: string;
  /** A skill run once (first discover) whose result every discover answer carries as `context`. */
  discoverContext?: DiscoverContextSpec;
  requireConfirm: boolean;
  /**
   * Whether a tool's own `annotations.readOnlyHint` lets it skip the confirm gate (default true).
   * In-memory plugins of text modules that wrap an arbitrary server set it false: that server's
   * hints are not trusted to decide what may change data.
   */
  trustReadOnlyHints?: boolean;
  /** How a write is confirmed: "elicit" asks the user when the client can, "flag" takes the model's confirm: true. Unset: the runtime's default. */
  confirm?: "elicit" | "flag";
  requires: { env: string[]; bins: string[] };
  /** The runtime section as written, passed on to module adapters. */
  raw: Record<string, unknown>;
}

export interface DiscoverContextSpec {
  skill: string;
  arguments: Record<string, unknown>;
}

export class ManifestError extends Error {
  readonly file: string;
  readonly field: string | undefined;
  /** One problem (named by `field`), or several, each already saying where (":line:column: field 'x' …"). */
  constructor(file: string, field: string | undefined, problem: string | string[]) {
    super(Array.isArray(problem) ? problem.map((p) => `${file}${p.startsWith(":") ? "" : ": "}${p}`).join("\n") : `${file}: ${field ? `field '${field}' ` : ""}${problem}`);
    this.name = "ManifestError";
    this.file = file;
    this.field = field;
  }
}

const stringList = { type: "array", items: { type: "string", minLength: 1 } } as const;

/** The runtime section, shared by both forms (top level in flat, the extension in the spec form). */
const runtimeSection = {
  type: "object",
  required: ["prefix", "adapter"],
  properties: {
    prefix: {
      type: "string",
      pattern: "^[a-z][a-z0-9_-]{0,31}$",
      description: "lower case letters, digits, '_' or '-', starting with a letter, at most 32 characters",
    },
    adapter: {
      oneOf: [
        { type: "string", minLength: 1 },
        { type: "object", required: ["kind"], properties: { kind: { type: "string", minLength: 1 } } },
      ],
    },
    adapterExport: { type: "string", minLength: 1 },
    readonlyTools: stringList,
    confirmTools: stringList,
    skills: { oneOf: [{ type: "string", minLength: 1 }, stringList] },
    discoverHint: { type: "string" },
    discoverContext: {
      type: "object",
      required: ["skill"],
      properties: { skill: { type: "string", minLength: 1 }, arguments: { type: "object" } },
      additionalProperties: false,
    },
    requireConfirm: { type: "boolean" },
    confirm: { enum: ["elicit", "flag"] },
    requires: {
      type: "object",
      properties: { env: stringList, bins: stringList },
      additionalProperties: false,
    },
  },
} as const;

export const FLAT_MANIFEST_SCHEMA = {
  ...runtimeSection,
  required: ["name", "prefix", "adapter"],
  properties: {
    ...runtimeSection.properties,
    name: { type: "string", minLength: 1 },
    version: { type: "string" },
    description: { type: "string" },
  },
};

export const SPEC_MANIFEST_SCHEMA = {
  type: "object",
  required: ["name", "version", "description", "extensions"],
  properties: {
    $schema: { type: "string" },
    name: { type: "string", minLength: 1 },
    version: { type: "string", minLength: 1 },
    description: { type: "string" },
    extensions: {
      type: "object",
      required: [EXTENSION_KEY],
      properties: { [EXTENSION_KEY]: runtimeSection },
    },
  },
};

// Validated by code made ahead of time from these very schemas (no Ajv compile at start).
usePrecompiled(FLAT_MANIFEST_SCHEMA, precompiledFlat);
usePrecompiled(SPEC_MANIFEST_SCHEMA, precompiledSpec);

function isSpecForm(doc: Record<string, unknown>): boolean {
  return "extensions" in doc || (typeof doc.$schema === "string" && doc.$schema.includes("agent-plugins"));
}

/** Every problem of the document, each placed at its line and column when the text is known. */
function check(file: string, schema: Record<string, unknown>, doc: unknown, text: string | undefined): void {
  const validate = compileSchema(schema);
  if (validate instanceof Error) throw validate; // our own schemas: a bug, not user input
  if (validate(doc)) return;
  const violations = toViolations(validate.errors);
  // A oneOf failure repeats each branch's complaint at the same place; the specific ones say it better.
  const specific = violations.filter((v) => v.keyword !== "oneOf");
  const shown = specific.length ? specific : violations;
  if (shown.length === 0) throw new ManifestError(file, undefined, "is not a valid manifest");
  const at = jsonLocator(text);
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const v of shown) {
    const field = pointerToField(v.path);
    const problem = v.keyword === "required" ? "is required" : v.keyword === "pattern" ? `must match ${String(v.params.pattern)}` : v.message.replace(/^'[^']*' /, "");
    const line = `${at(pointerSegments(v.path), v.keyword === "additionalProperties")}: ${field ? `field '${field}' ` : ""}${problem}`.replace(/^: /, "");
    if (!seen.has(line)) problems.push(line);
    seen.add(line);
  }
  const first = shown[0] as (typeof shown)[number];
  throw new ManifestError(file, pointerToField(first.path) || undefined, problems);
}

/** Validate and normalise a parsed manifest. Throws ManifestError naming the file and field. */
export function parseManifest(file: string, doc: unknown, text?: string): PluginManifest {
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) {
    throw new ManifestError(file, undefined, "must be a JSON object");
  }
  const top = doc as Record<string, unknown>;
  const spec = isSpecForm(top);
  check(file, spec ? SPEC_MANIFEST_SCHEMA : FLAT_MANIFEST_SCHEMA, top, text);
  const section = spec
    ? ((top.extensions as Record<string, unknown>)[EXTENSION_KEY] as Record<string, unknown>)
    : top;
  const requires = (section.requires ?? {}) as { env?: string[]; bins?: string[] };
  const skills = section.skills;
  const manifest: PluginManifest = {
    file,
    dir: path.dirname(file),
    form: spec ? "agent-plugins-spec" : "flat",
    name: top.name as string,
    description: typeof top.description === "string" ? top.description : "",
    prefix: section.prefix as string,
    adapter: section.adapter as string | DeclarativeAdapterSpec,
    readonlyTools: (section.readonlyTools as string[] | undefined) ?? [],
    ...(Array.isArray(section.confirmTools) ? { confirmTools: section.confirmTools as string[] } : {}),
    requireConfirm: (section.requireConfirm as boolean | undefined) ?? true,
    requires: { env: requires.env ?? [], bins: requires.bins ?? [] },
    raw: section,
  };
  if (typeof top.version === "string") manifest.version = top.version;
  if (section.confirm === "elicit" || section.confirm === "flag") manifest.confirm = section.confirm;
  if (typeof section.adapterExport === "string") manifest.adapterExport = section.adapterExport;
  if (typeof section.discoverHint === "string" && section.discoverHint.trim()) manifest.discoverHint = section.discoverHint.trim();
  if (section.discoverContext !== undefined) {
    const declared = section.discoverContext as { skill: string; arguments?: Record<string, unknown> };
    manifest.discoverContext = { skill: declared.skill, arguments: declared.arguments ?? {} };
  }
  if (skills !== undefined) manifest.skills = typeof skills === "string" ? [skills] : (skills as string[]);
  return manifest;
}

/** Read, parse and validate `plugin.json` at `file`. */
export async function readManifest(file: string): Promise<PluginManifest> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new ManifestError(file, undefined, `cannot be read: ${(error as Error).message}`);
  }
  // The config file's parser: comments and trailing commas allowed, every syntax error with its line and column.
  const { doc, problems } = parseJsonText(text);
  if (problems.length) throw new ManifestError(file, undefined, problems);
  return parseManifest(file, doc, text);
}
