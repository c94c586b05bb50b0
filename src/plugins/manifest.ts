import { readProblem, readSettingsFile, readSettingsFileSync } from "../bounded-file.js";
import path from "node:path";
import { BLOCK_SCHEMAS } from "../adapters/block-schemas.js";
import { fieldName, specProblems, usePrecompiledSpec, type SpecProblem } from "../adapters/shared/spec-check.js";
import { referenceTextProblem } from "../adapters/shared/env-vars.js";
import { inTextOrder, jsonLocator, parseJsonText } from "../json-text.js";
import { blockStrings } from "./block-strings.js";
import { checkedAtBuild } from "./checked-manifests.js";
import { confirmGateSettings } from "./confirm-gate-settings.js";
import { settingAt, type SettingsLocation } from "../adapters/types.js";
// The schemas as plain data (generated from manifest-schema.ts): reading a manifest loads no TypeBox.
import { FLAT_MANIFEST_SCHEMA, PRECOMPILED, SPEC_MANIFEST_SCHEMA } from "./manifest-schema-data.js";

/**
 * The plugin manifest (`plugin.json`) in either of its two forms, described by TypeBox schemas
 * (its types derived from them), its adapter block checked against the block's kind, every
 * problem reported at once at its line and column, and normalised into one shape:
 *  - flat: `{ name, prefix, adapter, ... }`, as the original JavaScript runtime read it;
 *  - Agent Plugins Spec 1.0.0: `{ name, version, description, extensions: { "dev.agent-tools-runtime": { prefix, adapter, ... } } }`.
 */

export const EXTENSION_KEY = "dev.agent-tools-runtime";
export type { FlatManifestDocument, RuntimeSection, SpecManifestDocument } from "./manifest-schema.js";

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
   * False when a plugin.json or config entry says `trustReadOnlyHints: false`, and in in-memory
   * plugins of text modules that wrap an arbitrary server: that server's hints are not trusted to
   * decide what may change data.
   */
  trustReadOnlyHints?: boolean;
  /** How a write is confirmed: "elicit" asks the user when the client can, "flag" takes the model's confirm: true. Unset: the runtime's default. */
  confirm?: "elicit" | "flag";
  /**
   * `otherwise`: a way to configure it other than the environment ("start the client in the
   * project folder"), said after the variables; set by the runtime's embedded plugins only.
   */
  requires: { env: string[]; bins: string[]; otherwise?: string };
  /** The runtime section as written, passed on to module adapters. */
  raw: Record<string, unknown>;
  /**
   * A config entry's place in its file (`["mcpServers", "fs"]`): its fields are its adapter
   * block's, so a problem of the block is named and placed as the entry's field.
   */
  entryPath?: readonly string[];
  /**
   * An embedded default plugin (config/defaults.ts) is set up by a host variable, not a file:
   * messages name `variable` where they would name the entry's fields (no file holds them), and
   * `problem` says what is wrong with its value (the plugin is then not configured).
   */
  setBy?: { variable: string; problem?: string };
  /**
   * A config entry that runs a server known to lose writes made at once got a cap and a lock it did
   * not set (config/unsafe-servers.ts): which server, why, and what it got, said once at start.
   */
  protectiveDefaults?: string;
  /** A config entry's tool filter (tool-filter.ts): only these of its server's tools are served. */
  includeTools?: string[];
  /** A config entry's tool filter (tool-filter.ts): these of its server's tools are never served; wins over includeTools. */
  excludeTools?: string[];
  /** Those of excludeTools that only Roo Code's `disabledTools` listed in the config entry: a refusal names that field. */
  disabledTools?: string[];
}

export interface DiscoverContextSpec {
  skill: string;
  arguments: Record<string, unknown>;
}

export class ManifestError extends Error {
  readonly file: string;
  readonly field: string | undefined;
  /**
   * What a call answers when this surfaces there (an adapter block checked at its first use,
   * read by fromThrown): the manifest's fix, never the arguments' nor the service's.
   */
  readonly code = "NOT_CONFIGURED";
  readonly hint = "Fix the plugin's manifest as `message` says (`agent-tools validate` lists every such problem), then restart the server; tell the user. Tool arguments cannot fix this.";
  /** Each problem's line of `message` (file:line:column: …), when several were given: listed one by one in `problems`. */
  readonly lines: readonly string[] | undefined;
  /** One problem (named by `field`), or several, each already saying where (":line:column: field 'x' …"). */
  constructor(file: string, field: string | undefined, problem: string | string[], options?: ErrorOptions) {
    const lines = Array.isArray(problem) ? problem.map((p) => `${file}${p.startsWith(":") ? "" : ": "}${p}`) : undefined;
    super(lines ? lines.join("\n") : `${file}: ${field ? `field '${field}' ` : ""}${problem}`, options);
    this.name = "ManifestError";
    this.file = file;
    this.field = field;
    this.lines = lines && lines.length > 1 ? lines : undefined;
  }
}

// Validated by code made ahead of time from these very schemas (no Ajv compile at start).
for (const [schema, name] of PRECOMPILED) usePrecompiledSpec(schema, name);

function isSpecForm(doc: Record<string, unknown>): boolean {
  return "extensions" in doc || (typeof doc.$schema === "string" && doc.$schema.includes("agent-plugins"));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

/**
 * Every problem of the document, each placed at its line and column when the text is known: the
 * manifest's own fields, and the adapter block against its kind's schema (BLOCK_SCHEMAS).
 */
function check(file: string, spec: boolean, doc: Record<string, unknown>, text: string | undefined): void {
  const problems = specProblems(spec ? SPEC_MANIFEST_SCHEMA : FLAT_MANIFEST_SCHEMA, doc);
  const base = spec ? ["extensions", EXTENSION_KEY] : [];
  const section = spec ? (isRecord(doc.extensions) ? doc.extensions[EXTENSION_KEY] : undefined) : doc;
  const adapter = isRecord(section) ? section.adapter : undefined;
  if (isRecord(adapter) && typeof adapter.kind === "string") {
    const schema = BLOCK_SCHEMAS[adapter.kind];
    if (schema) problems.push(...specProblems(schema, adapter, fieldName("", [...base, "adapter"])).map((p) => ({ ...p, segments: [...base, "adapter", ...p.segments] })));
  }
  if (isRecord(section)) problems.push(...referenceProblems(section.adapter, [...base, "adapter"]), ...referenceProblems(section.requires, [...base, "requires"]));
  if (problems.length === 0) return;
  const at = jsonLocator(text);
  const lines = inTextOrder(problems.map((p) => `${at(p.segments, p.key)}: field '${p.field}' ${p.message}`));
  throw new ManifestError(file, problems[0]?.field, lines.map((line) => line.replace(/^: /, "")));
}

/**
 * The `${...}` text of the adapter block's and requires' strings that would not resolve (an
 * unclosed `${`, a reference inside a default): the config file's rule (referenceTextProblem), so
 * a value means the same in either file. A tool's description is prose, never resolved: skipped.
 */
function referenceProblems(value: unknown, segments: (string | number)[]): SpecProblem[] {
  return blockStrings(value, segments).flatMap((found) => {
    const message = referenceTextProblem(found.value, undefined, { shellScript: found.shellScript === true });
    return message ? [{ segments: found.segments, field: fieldName("", found.segments), message }] : [];
  });
}

/** "tools[0].name" → ["tools", 0, "name"]. */
function fieldSegments(field: string): (string | number)[] {
  return [...field.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : (m[1] as string)));
}

/** Where a manifest's adapter block is written: a config entry's key, or the plugin.json's adapter field. */
export function settingsOf(manifest: PluginManifest): SettingsLocation {
  const field = manifest.form === "config" ? `mcpServers.${manifest.name}` : manifest.form === "agent-plugins-spec" ? `extensions.${EXTENSION_KEY}.adapter` : "adapter";
  return { field, file: manifest.file, ...(manifest.setBy ? { variable: manifest.setBy.variable } : {}) };
}

/**
 * The setting that names a config entry's program, as errors name it (`mcpServers.x.command` in
 * its file): a missing program there may be a misspelt `command`. Undefined for a plugin.json,
 * whose `requires.bins` are programs to install, not a setting the user wrote.
 */
export function commandSettingOf(manifest: PluginManifest): string | undefined {
  return manifest.form === "config" ? settingAt(settingsOf(manifest), "command") : undefined;
}

/**
 * A problem written in an adapter block, found when the adapter was built (adapterBlockError). Its
 * own class because a build also fails for reasons that are not the manifest's (a spec URL that
 * could not be fetched): only this one answers a use NOT_CONFIGURED with the manifest's fix.
 */
export class AdapterBlockError extends ManifestError {
  constructor(file: string, problems: string[]) {
    super(file, "adapter", problems);
    this.name = "AdapterBlockError";
  }
}

/**
 * Problems of an adapter block found when the adapter was built (what its schema cannot say: a
 * path template, a tool name used twice), placed in plugin.json (or, for a config entry, the config
 * file) at their line and column like the manifest's own. `field` names are the block's
 * ("adapter.tools[1].name" or "tools[1].name").
 */
export function adapterBlockError(manifest: PluginManifest, problems: readonly { field: string; message: string }[]): AdapterBlockError {
  const base = manifest.entryPath ? [...manifest.entryPath] : manifest.form === "agent-plugins-spec" ? ["extensions", EXTENSION_KEY, "adapter"] : ["adapter"];
  let text: string | undefined;
  if (manifest.form !== "memory") {
    try {
      text = readSettingsFileSync(manifest.file);
    } catch {
      // gone since it was read: the problems are still worth saying, without a position
    }
  }
  const at = jsonLocator(text);
  const lines = inTextOrder(
    problems.map((p) => {
      const segments = [...base, ...fieldSegments(p.field.replace(/^adapter\b\.?/, ""))];
      return `${at(segments)}: field '${fieldName("", segments)}' ${p.message}`;
    }),
  );
  return new AdapterBlockError(manifest.file, lines.map((line) => line.replace(/^: /, "")));
}

/** Validate and normalise a parsed manifest. Throws ManifestError naming the file and field. */
export function parseManifest(file: string, doc: unknown, text?: string): PluginManifest {
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) {
    throw new ManifestError(file, undefined, "must be a JSON object");
  }
  const top = doc as Record<string, unknown>;
  const spec = isSpecForm(top);
  // A bundled plugin.json as shipped was checked when the runtime was built (checked-manifests.ts).
  if (text === undefined || !checkedAtBuild(file, text)) check(file, spec, top, text);
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
    ...confirmGateSettings(section),
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

/** What an empty plugin.json is told to hold: the smallest manifest that loads (README "plugin.json"). */
const EMPTY_MANIFEST_FIX = 'a plugin.json holds one JSON object, at least { "name": "notes", "prefix": "notes", "adapter": "./adapter.mjs" } (README, "plugin.json", shows both forms)';

/** Read, parse and validate `plugin.json` at `file`. */
export async function readManifest(file: string): Promise<PluginManifest> {
  let text: string;
  try {
    text = await readSettingsFile(file);
  } catch (error) {
    throw new ManifestError(file, undefined, readProblem(error));
  }
  // The config file's parser: comments and trailing commas allowed, every syntax error with its line and column.
  const { doc, problems } = parseJsonText(text, EMPTY_MANIFEST_FIX);
  if (problems.length) throw new ManifestError(file, undefined, problems);
  return parseManifest(file, doc, text);
}
