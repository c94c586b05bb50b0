import { createRequire } from "node:module";
import path from "node:path";
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import { RUNTIME_ROOT } from "../../paths.js";
import { VALIDATORS_FOLDER } from "../../validators-folder.js";
import { closestNames, foldedMatch } from "../../runtime/similarity.js";
import { SECRET_NAME } from "./secret-name.js";
import type { PRECOMPILED as MANIFEST_VALIDATORS } from "../../plugins/manifest-schema-data.js";
import type { PRECOMPILED as BLOCK_VALIDATORS } from "../block-schema-data.js";

/**
 * Declarative adapter blocks (and the manifest) are described by TypeBox schemas; this checks a
 * block against its schema and turns every violation into one problem that names the field and
 * says what it must be, in the block author's words rather than ajv's:
 *
 *  - a schema node may carry `problem` ("must be a non-empty string"): the sentence used for any
 *    violation at that node, so a field reads the same whatever keyword failed;
 *  - an object node may carry `keyProblem` for a key its pattern refuses (an env variable name),
 *    else an unknown key is "not a setting of <title>" with a did-you-mean among its properties;
 *  - a missing required property "is required; it <problem>";
 *  - `anyOf` of different JSON types reports the branch of the value's type (a wrong `style` in a
 *    `paginate` object, not "must be an object or false"), else the node's `problem`;
 *  - a `oneOf` with a `discriminator` (rest `auth` by `type`) says which tags exist.
 */

export interface SpecProblem {
  /** Path inside the checked value: ["tools", 0, "name"]. */
  segments: (string | number)[];
  /** How a person names it, with the caller's prefix: "adapter.tools[0].name". */
  field: string;
  /** What is wrong, starting with a verb: "must be a non-empty string". */
  message: string;
  /** The key itself is the problem (unknown or misspelt): point at the key, not its value. */
  key?: boolean;
}

interface AnnotatedSchema {
  problem?: string;
  keyProblem?: string;
  title?: string;
  type?: string | string[];
  properties?: Record<string, AnnotatedSchema>;
  oneOf?: AnnotatedSchema[];
  anyOf?: AnnotatedSchema[];
  const?: unknown;
  discriminator?: { propertyName: string };
}

// Synchronous and on first use: a start checks its own documents with precompiled code, and
// Ajv (a quarter of a second to load and compile) is needed only to explain a document that fails.
const require = createRequire(import.meta.url);
let ajv: Ajv | undefined;
const compiled = new WeakMap<object, ValidateFunction>();

/** The validators in src/validators.generated/ (scripts/config-schema.ts writes them; the names of plugin.json's and the blocks' come from scripts/spec-table.ts). */
export type PrecompiledName = "config" | "serverEntry" | (typeof BLOCK_VALIDATORS)[number][1] | (typeof MANIFEST_VALIDATORS)[number][1];
const precompiled = new WeakMap<object, PrecompiledName>();
const loaded = new Map<PrecompiledName, (value: unknown) => boolean>();

/**
 * A precompiled validator, loaded on its first check: a start that checks nothing (a warm start,
 * whose bundled manifests were checked at build time) parses none, and one that builds an MCP and
 * a REST adapter (a cold cache's listing) parses those blocks' files only, not all sixteen (about
 * 2.5 MiB of heap when they were one file). CommonJS, so loading stays synchronous like the
 * checks; the build copies the folder to dist/.
 */
function precompiledValidator(name: PrecompiledName): (value: unknown) => boolean {
  let validate = loaded.get(name);
  if (!validate) {
    const folder = import.meta.url.endsWith(".ts") ? "src" : "dist";
    validate = (require(path.join(RUNTIME_ROOT, folder, VALIDATORS_FOLDER, `${name}.cjs`)) as Record<string, (value: unknown) => boolean>)[name]!;
    loaded.set(name, validate);
  }
  return validate;
}

/**
 * Code made ahead of time for `schema` (scripts/config-schema.ts, Ajv standalone), by its name in
 * the generated file: a document it accepts has no problems, without loading Ajv; a rejected one
 * is explained by the verbose check.
 */
export function usePrecompiledSpec(schema: object, name: PrecompiledName): void {
  precompiled.set(schema, name);
}

function validatorFor(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    // verbose: each error carries the failing schema node (for `problem`) and the value (for "got …").
    ajv ??= new (require("ajv") as { Ajv: new (options: object) => Ajv }).Ajv({ allErrors: true, strict: false, verbose: true, discriminator: true, allowUnionTypes: true });
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** ["tools", 0, "name"] → "tools[0].name", after `prefix` ("adapter"). */
export function fieldName(prefix: string, segments: readonly (string | number)[]): string {
  let out = prefix;
  for (const s of segments) out += typeof s === "number" || /^\d+$/.test(s) ? `[${s}]` : out ? `.${s}` : s;
  return out;
}

function segmentsOf(pointer: string): (string | number)[] {
  if (!pointer) return [];
  return pointer
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function branchAccepts(branch: AnnotatedSchema, value: unknown): boolean {
  const actual = jsonType(value);
  if (branch.const !== undefined) return branch.const === value;
  const types = branch.type === undefined ? [] : Array.isArray(branch.type) ? branch.type : [branch.type];
  return types.includes(actual) || (actual === "integer" && types.includes("number"));
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/**
 * What a value is, without a word of it: "a string of 44 characters", "an array of 1 item". Said
 * in place of the value where it may hold a credential.
 */
function described(value: unknown): string {
  const count = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;
  if (typeof value === "string") return `a string of ${count(value.length, "character")}`;
  if (Array.isArray(value)) return `an array of ${count(value.length, "item")}`;
  if (value === null) return "null";
  if (typeof value === "object") return `an object of ${count(Object.keys(value).length, "key")}`;
  if (typeof value === "number") return "a number";
  return `a ${typeof value}`;
}

/**
 * ajv's own words for a keyword no node explains, made into a sentence about the field. The value
 * is shown ("got …") unless the field may hold a credential (see holdsCredentials): then only its
 * type and size are, since the sentence reaches stderr, logs and validate's JSON.
 */
function plainMessage(error: ErrorObject, secret: boolean): string {
  const params = error.params as Record<string, unknown>;
  const got = ` (got ${secret ? described(error.data) : shown(error.data)})`;
  switch (error.keyword) {
    case "type":
      return `must be ${String(params.type).replace(/,/g, " or ")}${got}`;
    case "enum":
      return `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}${got}`;
    case "const":
      return `must be ${JSON.stringify(params.allowedValue)}`;
    default:
      return `${error.message ?? "is not valid"}${got}`;
  }
}

/**
 * Blocks that carry credentials whatever their keys are called: a header or env block written as
 * text or a Docker-style list ("Authorization: Bearer …", ["GITHUB_TOKEN=ghp_…"]) and a command's
 * arguments ("--token …") hold them in their values.
 */
const CREDENTIAL_BLOCK = /^(headers|env|args|argv)$/;

/**
 * Whether the field at `segments` may hold a credential: it is named like one (its own key, or the
 * key of the list holding it), or it is, or sits inside, a CREDENTIAL_BLOCK.
 */
function holdsCredentials(segments: readonly (string | number)[]): boolean {
  const key = segments.findLast((s): s is string => typeof s === "string");
  if (key !== undefined && SECRET_NAME.test(key)) return true;
  return segments.some((s) => typeof s === "string" && CREDENTIAL_BLOCK.test(s));
}

/**
 * Every problem of `value` against `schema` (none: an empty list). `prefix` names the value in
 * messages ("adapter", or "" for a block's own field names).
 */
export function specProblems(schema: object, value: unknown, prefix = ""): SpecProblem[] {
  const name = precompiled.get(schema);
  if (name && precompiledValidator(name)(value)) return [];
  const validate = validatorFor(schema);
  if (validate(value)) return [];
  let errors = [...(validate.errors ?? [])];
  // Unions: keep the branch that fits the value's type, else the union's own sentence.
  for (const union of errors.filter((e) => e.keyword === "anyOf" || (e.keyword === "oneOf" && !(e.parentSchema as AnnotatedSchema).discriminator))) {
    const branches = (union.schema as AnnotatedSchema[]) ?? [];
    const fitting = branches.map((b, i) => (branchAccepts(b, union.data) ? i : -1)).filter((i) => i >= 0);
    const inside = (e: ErrorObject) => e.schemaPath.startsWith(`${union.schemaPath}/`);
    if (fitting.length === 1) {
      const keep = `${union.schemaPath}/${fitting[0]}/`;
      errors = errors.filter((e) => e !== union && (!inside(e) || e.schemaPath.startsWith(keep)));
    } else errors = errors.filter((e) => !inside(e));
  }
  const problems: SpecProblem[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const node = (error.parentSchema ?? {}) as AnnotatedSchema;
    const params = error.params as Record<string, unknown>;
    const segments = segmentsOf(error.instancePath);
    let message: string;
    if (error.keyword === "additionalProperties") {
      const key = String(params.additionalProperty);
      segments.push(key);
      const known = Object.keys(node.properties ?? {});
      // A key that differs from a setting only in case or `-`/`_` (readOnlyTools) meant that one:
      // another merely near (trustReadOnlyHints) would only blur the answer.
      const folded = foldedMatch(key, known);
      const close = folded ? [folded] : closestNames(key, known, 0.5, 2);
      const guess = close.length ? `; did you mean ${close.map((c) => `'${c}'`).join(" or ")}?` : "";
      message = node.keyProblem ? `${node.keyProblem}${guess}` : `is not a setting of ${node.title ?? "this block"}${guess || ` (known: ${known.join(", ")})`}`;
    } else if (error.keyword === "required") {
      const key = String(params.missingProperty);
      // A missing tag is said by the discriminator, with the tags there are.
      if (node.discriminator?.propertyName === key) continue;
      segments.push(key);
      const own = node.properties?.[key]?.problem;
      message = own ? `is required; it ${own}` : "is required";
    } else if (error.keyword === "discriminator") {
      const tag = String(params.tag);
      segments.push(tag);
      const tags = (node.oneOf ?? []).map((b) => b.properties?.[tag]?.const).filter((t) => t !== undefined);
      message = `must be one of ${tags.join(", ")} (got ${shown(params.tagValue)})`;
    } else message = node.problem ?? plainMessage(error, holdsCredentials(segments));
    const field = fieldName(prefix, segments);
    const id = `${field}\u0000${message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    problems.push({ segments, field, message, ...(error.keyword === "additionalProperties" ? { key: true } : {}) });
  }
  return problems;
}

/** A problem found by code rather than by the schema: at `field`, with no path inside the checked value. */
export function fieldProblem(field: string, message: string): SpecProblem {
  return { segments: [], field, message };
}

/** The problems as one line each: "adapter.tools[0].name must be …". */
export function describeProblems(problems: readonly SpecProblem[]): string {
  return problems.map((p) => `${p.field} ${p.message}`).join("; ");
}
