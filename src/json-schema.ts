import { createRequire } from "node:module";
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import { echoed } from "./runtime/argument-value.js";
import { closestNames } from "./runtime/similarity.js";
import { shortenLongEnums } from "./schema-enums.js";
import { collectUnrunPatterns, schemaRegExp, type UnrunPattern } from "./schema-regexp.js";

/**
 * JSON Schema validation shared by manifest loading and argument validation. Tool schemas come
 * from arbitrary servers, so both draft-07 (Ajv's default, and what most MCP servers emit) and
 * 2020-12 (what the MCP spec names) are supported; the `$schema` keyword picks the dialect.
 *
 * Ajv is loaded on the first schema compiled, not at start: the runtime's own schemas (config
 * file, plugin manifests, adapter blocks) come precompiled (validators.generated/, used by
 * adapters/shared/spec-check.ts), and compiling them at each start cost a quarter of a second and 8 MiB.
 */

// Synchronous and on first use: ajv and ajv-formats are CommonJS packages.
const require = createRequire(import.meta.url);
export interface SchemaViolation {
  /** JSON Pointer-like path of the offending value, "" for the root. */
  path: string;
  message: string;
  keyword: string;
  params: Record<string, unknown>;
}

export type SchemaCheck = { ok: true } | { ok: false; violations: SchemaViolation[] };

const DRAFT_2020 = /json-schema\.org\/draft\/2020-12\/schema/;

/** The options every Ajv here is made with; scripts/config-schema.ts precompiles with the same. */
export const AJV_OPTIONS = { allErrors: true, strict: false, validateFormats: true, allowUnionTypes: true } as const;

type Dialect = "draft-07" | "2020-12";

function newAjv(dialect: Dialect): Ajv {
  const AjvClass = (dialect === "2020-12" ? (require("ajv/dist/2020.js") as { Ajv2020: new (options: object) => Ajv }).Ajv2020 : (require("ajv") as { Ajv: new (options: object) => Ajv }).Ajv);
  // Each pattern compiled on its own: by V8's linear-time engine where it takes it; of the others,
  // one that can take exponential time is not run (schema-regexp.ts). The meta-schema check is
  // metaSchemaErrors's, before each compile: Ajv's own compares a long enum's values pair by pair.
  const ajv = new AjvClass({ ...AJV_OPTIONS, validateSchema: false, code: { regExp: schemaRegExp } });
  // ajv-formats is CommonJS; its callable sits on `default` in some builds.
  const formats = require("ajv-formats") as { default?: (ajv: Ajv) => Ajv } & ((ajv: Ajv) => Ajv);
  (formats.default ?? formats)(ajv);
  return ajv;
}

/**
 * Schemas one Ajv compiles before the next compile takes a fresh one. An Ajv keeps every schema
 * and every validator it ever compiled in its code scope, and `removeSchema` does not release
 * them: one Ajv for the whole process kept every tool schema of every catalog ever listed (a
 * slow leak on each catalog refresh). Each validator holds its Ajv, so an Ajv goes once every
 * validator it made is gone; with a fresh one every SCHEMAS_PER_AJV compiles, what a live
 * validator can keep beside it is bounded. A fresh Ajv costs its first compile about 40 ms (it
 * compiles the meta-schema), under a millisecond per schema at this size.
 */
export const SCHEMAS_PER_AJV = 64;

interface Generation {
  ajv: Ajv;
  compiles: number;
}

const generations: Partial<Record<Dialect, Generation>> = {};

function dialectOf(schema: Record<string, unknown>): Dialect {
  return typeof schema.$schema === "string" && DRAFT_2020.test(schema.$schema) ? "2020-12" : "draft-07";
}

function ajvFor(schema: Record<string, unknown>): Ajv {
  const dialect = dialectOf(schema);
  let generation = generations[dialect];
  if (!generation || generation.compiles >= SCHEMAS_PER_AJV) generation = generations[dialect] = { ajv: newAjv(dialect), compiles: 0 };
  generation.compiles++;
  return generation.ajv;
}

/**
 * Compiled validators, keyed by schema object identity: a catalog keeps its tools' schema objects,
 * so a validator lives exactly as long as the catalog entry it was compiled for. A refresh of
 * the catalog (tools/list_changed, a re-listing) brings new schema objects, and the old
 * validators go with the old entry.
 */
const compiled = new WeakMap<object, ValidateFunction | Error>();

/** Per validator, the patterns of its schema the runtime does not run (schema-regexp.ts); absent when none. */
const unrunOf = new WeakMap<ValidateFunction, readonly UnrunPattern[]>();

/**
 * The patterns of `schema` the runtime does not run (each passes every value; the schema's other
 * checks stay), given once per schema object, so the caller says them once per tool list.
 */
export function takeUnrunPatterns(schema: Record<string, unknown>): readonly UnrunPattern[] {
  const validate = compiled.get(schema);
  if (!validate || validate instanceof Error) return [];
  const unrun = unrunOf.get(validate) ?? [];
  unrunOf.delete(validate);
  return unrun;
}

/** Validators compiled since start, and those not yet garbage collected (for the tests that check nothing keeps them). */
const counts = { compiled: 0, alive: 0 };
const collected = new FinalizationRegistry<undefined>(() => counts.alive--);
export const validatorCounts = (): { compiled: number; alive: number } => ({ ...counts });

/** Compile once per schema object; a schema that cannot compile is returned as an Error rather than thrown. */
export function compileSchema(schema: Record<string, unknown>): ValidateFunction | Error {
  const cached = compiled.get(schema);
  if (cached) return cached;
  const result = compileTransient(schema);
  compiled.set(schema, result);
  return result;
}

/**
 * Compile a schema and keep nothing of it here: the function lives only as long as its caller
 * holds it (compileSchema: as long as the schema object; a user's form, see
 * facade/form-validator.ts: for one check), and with it, at most its Ajv (see SCHEMAS_PER_AJV).
 */
export function compileTransient(schema: Record<string, unknown>): ValidateFunction | Error {
  try {
    return compileWith(schema);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

function compileWith(schema: Record<string, unknown>): ValidateFunction {
  // `$id` is dropped so two servers that reuse one id cannot collide in the shared Ajv
  // instance; a `$schema` Ajv does not know (e.g. draft-04) is dropped because the keywords are
  // close enough across drafts that validating without it is right.
  const { $id: _id, $schema, ...rest } = schema;
  const known = typeof $schema === "string" && /draft-07|2020-12/.test($schema);
  // Named by the exact id Ajv knows: servers spell it many ways ("https://json-schema.org/draft-07/schema#",
  // "http://json-schema.org/draft/2020-12/schema"), and Ajv refuses to compile any other spelling.
  const toCompile = known ? { $schema: DRAFT_2020.test($schema) ? "https://json-schema.org/draft/2020-12/schema" : "http://json-schema.org/draft-07/schema#", ...rest } : rest;
  const ajv = ajvFor(schema);
  // What Ajv's compile would throw, said in its words; it is made with validateSchema off (newAjv).
  const faults = metaSchemaErrors(ajv, toCompile, dialectOf(schema));
  if (faults.length) throw new Error(`schema is invalid: ${ajv.errorsText(faults)}`);
  const { result: validate, unrun } = collectUnrunPatterns(() => ajv.compile(toCompile));
  if (unrun.length) unrunOf.set(validate, unrun);
  // Ajv's by-object cache would never be hit (`toCompile` is new each time): keep it empty.
  ajv.removeSchema(toCompile);
  counts.compiled++;
  counts.alive++;
  collected.register(validate, undefined);
  return validate;
}

/**
 * What the dialect's meta-schema refuses in `schema` ([] when nothing), as Ajv's own check at
 * compile says it, but with each long enum's uniqueness checked in linear time (schema-enums.ts).
 */
function metaSchemaErrors(ajv: Ajv, schema: Record<string, unknown>, dialect: Dialect): ErrorObject[] {
  const { schema: checkable, duplicates } = shortenLongEnums(schema, dialect === "draft-07");
  const valid = ajv.validateSchema(checkable as Record<string, unknown>, false);
  return [...(valid ? [] : (ajv.errors ?? [])), ...duplicates];
}

/** A place in a schema that keeps it from compiling: the path inside the schema, and what is wrong there. */
export interface SchemaFault {
  /** Path inside the schema: ["properties", "id", "type"]; [] for the schema as a whole. */
  segments: (string | number)[];
  message: string;
}

/**
 * Why `schema` cannot be compiled, each fault at its place inside the schema ([] when it
 * compiles): what the JSON Schema meta-schema refuses (a misspelt `type`, with the type it is
 * near), else the compiler's own words (a `$ref` that resolves to nothing). Compiled transiently:
 * a block's schema is checked once, when the block is read.
 */
export function schemaFaults(schema: Record<string, unknown>): SchemaFault[] {
  const compiled = compileTransient(schema);
  if (!(compiled instanceof Error)) return [];
  // Checked against the meta-schema of the dialect ajvFor picks (a `$schema` it does not know is left out, as compileWith does).
  const { $id: _id, $schema: _schema, ...rest } = schema;
  const faults = metaSchemaErrors(ajvFor(schema), rest, dialectOf(schema));
  if (!faults.length) return [{ segments: [], message: compiled.message.replace(/^schema is invalid: /, "") }];
  // One fault per place: the meta-schema's `type` is an enum or an array (anyOf), so a bad value fails all three.
  const byPlace = new Map<string, ErrorObject[]>();
  for (const error of faults) byPlace.set(error.instancePath, [...(byPlace.get(error.instancePath) ?? []), error]);
  return [...byPlace].map(([pointer, errors]) => {
    const segments = pointer.split("/").slice(1).map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~")).map((p) => (/^\d+$/.test(p) ? Number(p) : p));
    const value = segments.reduce<unknown>((node, key) => (node && typeof node === "object" ? (node as Record<string | number, unknown>)[key] : undefined), rest);
    const allowed = errors.find((e) => e.keyword === "enum")?.params.allowedValues as unknown[] | undefined;
    if (allowed && typeof value === "string") {
      const near = closestNames(value, allowed.map(String), 0.5, 1)[0];
      return { segments, message: `is ${JSON.stringify(value)}, which is not one of ${allowed.map((v) => JSON.stringify(v)).join(", ")}${near ? `; did you mean ${JSON.stringify(near)}?` : ""}` };
    }
    const said = errors.find((e) => e.keyword !== "anyOf" && e.keyword !== "oneOf") ?? errors[0];
    return { segments, message: `${said?.message ?? "is not valid"} (got ${JSON.stringify(value)?.slice(0, 60)})` };
  });
}

export function toViolations(errors: readonly ErrorObject[] | null | undefined): SchemaViolation[] {
  return (errors ?? []).map((error) => {
    const params = error.params as Record<string, unknown>;
    let path = error.instancePath;
    // "required" and "additionalProperties" point at the parent; name the property itself.
    if (error.keyword === "required" && typeof params.missingProperty === "string") path = `${path}/${params.missingProperty}`;
    if (error.keyword === "additionalProperties" && typeof params.additionalProperty === "string") {
      path = `${path}/${params.additionalProperty}`;
    }
    return { path, message: describeViolation(error), keyword: error.keyword, params };
  });
}

function describeViolation(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  const at = error.instancePath ? `'${pointerToField(error.instancePath)}'` : "the arguments";
  switch (error.keyword) {
    case "required":
      return `missing required property '${pointerToField(`${error.instancePath}/${String(params.missingProperty)}`)}'`;
    case "additionalProperties":
      return `unknown property '${pointerToField(`${error.instancePath}/${String(params.additionalProperty)}`)}' is not allowed`;
    case "type":
      return `${at} must be ${typeInWords(String(params.type))}`;
    case "enum":
      return `${at} must be one of ${JSON.stringify(params.allowedValues)}`;
    case "const":
      // Ajv's "must be equal to constant" names no value.
      return `${at} must be ${JSON.stringify(params.allowedValue)}`;
    default:
      return `${at} ${error.message ?? "is invalid"}`;
  }
}

/**
 * Ajv's `type` param as a sentence says it: one type with its article ("a string", "an
 * integer"), a union ("string,null") as "a string or null", not the comma-joined list.
 */
function typeInWords(type: string): string {
  const words = type.split(",").map((t) => (t === "null" ? "null" : `${/^[aeiou]/.test(t) ? "an" : "a"} ${t}`));
  return words.length < 2 ? (words[0] ?? type) : `${words.slice(0, -1).join(", ")} or ${words[words.length - 1]}`;
}

/** "/a/0/b" → "a[0].b": how a person names a field; each name cut as answers quote what was sent (a sent key can be a megabyte). */
export function pointerToField(pointer: string): string {
  const parts = pointer.split("/").slice(1).map((p) => echoed(p.replace(/~1/g, "/").replace(/~0/g, "~")));
  let out = "";
  for (const part of parts) out += /^\d+$/.test(part) ? `[${part}]` : out ? `.${part}` : part;
  return out;
}

export function checkAgainstSchema(schema: Record<string, unknown>, value: unknown): SchemaCheck | { ok: "skipped"; reason: string } {
  const validate = compileSchema(schema);
  if (validate instanceof Error) return { ok: "skipped", reason: validate.message };
  try {
    if (validate(value)) return { ok: true };
  } catch (error) {
    // A schema that refers to itself without reading any of the value (`Self: {anyOf: [{$ref:
    // Self}, …]}`) recurses without end: it cannot check anything, like one that does not compile.
    if (error instanceof RangeError) return { ok: "skipped", reason: "the schema refers to itself without end (a $ref that leads back to itself before reading any of the value)" };
    throw error;
  }
  return { ok: false, violations: toViolations(validate.errors) };
}
