import { checkAgainstSchema, type SchemaViolation } from "../json-schema.js";
import { RuntimeError } from "../errors.js";
import { isPlainObject } from "../plain-object.js";
import { closestNames } from "./similarity.js";
import { nearKey, undeclaredArguments } from "./stray-keys.js";
import { echoed } from "./argument-value.js";
import { declaredPropertyNames, followRef, schemaBranches } from "../schema-branches.js";

/**
 * Argument validation with answers a model can act on cheaply: each failing field is named with
 * the reason and the part of the schema that applies there (its type, allowed values, required
 * names…), not the whole input schema. A one-field mistake stays under 150 tokens
 * (bench/answer-cost.ts).
 */

const KEPT = ["type", "enum", "const", "format", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "required"] as const;
const MAX_ENUM = 8;
const MAX_NAMES = 12;
const MAX_ERRORS = 5;

/** Sub-schemas read at one path at most (each union branch can lead somewhere else). */
const MAX_CANDIDATES = 16;

/** The schema `node` gives a child at `part` (a property, an array item, an additional property), its local `$ref` followed. */
function childOf(root: Record<string, unknown>, node: Record<string, unknown>, part: string): Record<string, unknown> | undefined {
  const properties: unknown = node.properties;
  let child: unknown;
  if (isPlainObject(properties) && isPlainObject(properties[part])) child = properties[part];
  else if (/^\d+$/.test(part) && isPlainObject(node.items)) child = node.items;
  else if (isPlainObject(node.additionalProperties)) child = node.additionalProperties;
  return isPlainObject(child) ? followRef(root, child) : undefined;
}

/**
 * Every sub-schema that can apply at a JSON pointer into the value: through properties, items and
 * additionalProperties, into each `anyOf`/`oneOf`/`allOf` branch and local `$ref`
 * (schema-branches.ts) on the way, so a pydantic model under `$defs` or a union's branch is found.
 */
function schemasAt(schema: Record<string, unknown>, pointer: string): Record<string, unknown>[] {
  const top = followRef(schema, schema);
  let current = top ? [top] : [];
  for (const raw of pointer.split("/").slice(1)) {
    const part = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    const next: Record<string, unknown>[] = [];
    for (const node of current) {
      for (const branch of schemaBranches(schema, node)) {
        const child = childOf(schema, branch, part);
        if (child && !next.includes(child) && next.length < MAX_CANDIDATES) next.push(child);
      }
    }
    current = next;
  }
  return current;
}

/** The first sub-schema that applies at a JSON pointer into the value (see schemasAt). */
function schemaAt(schema: Record<string, unknown>, pointer: string): Record<string, unknown> | undefined {
  return schemasAt(schema, pointer)[0];
}

/** The property names declared at a pointer, in any branch (for 'did you mean', and the names listed). */
function declaredNames(schema: Record<string, unknown>, pointer: string): string[] {
  const names = new Set<string>();
  for (const node of schemasAt(schema, pointer)) for (const name of declaredPropertyNames(schema, node) ?? []) names.add(name);
  return [...names];
}

/** The `const` and `enum` values any branch allows at a pointer (a discriminated union's tags, "user" and "team"). */
function valuesAllowedAt(schema: Record<string, unknown>, pointer: string): unknown[] {
  const values = new Map<string, unknown>();
  for (const node of schemasAt(schema, pointer)) {
    for (const branch of schemaBranches(schema, node)) {
      const listed = Object.hasOwn(branch, "const") ? [branch.const] : Array.isArray(branch.enum) ? branch.enum : [];
      for (const value of listed) values.set(JSON.stringify(value) ?? String(value), value);
    }
  }
  return [...values.values()];
}

/**
 * A `const`/`enum` failure inside a union, or of a union's branches at its own path, says every
 * value the union's branches allow there (Ajv reports one "must be equal to constant" per failing
 * branch, naming none). When the value
 * sent is one a branch allows, that failure is another branch's and is left out: what failed in
 * the branch it chose (a missing property) and the union's own error say what is wrong.
 */
function unionValues(schema: Record<string, unknown>, args: unknown, violations: readonly SchemaViolation[]): SchemaViolation[] {
  const unions = violations.filter((v) => v.keyword === "oneOf" || v.keyword === "anyOf").map((v) => v.path);
  const out: SchemaViolation[] = [];
  // Unions whose branches are values at the union's own path (`mode: {oneOf: [{const: "fast"},
  // {const: "slow"}]}`): the list of values says it all, so the union's own "must match exactly
  // one schema" is left out.
  const saidAsValues = new Set<string>();
  for (const violation of violations) {
    const inUnion = unions.some((path) => violation.path === path || violation.path.startsWith(`${path}/`));
    if ((violation.keyword !== "const" && violation.keyword !== "enum") || !inUnion) {
      out.push(violation);
      continue;
    }
    const values = valuesAllowedAt(schema, violation.path);
    const sent = JSON.stringify(valueAt(args, violation.path));
    if (values.length > 1 && values.some((value) => JSON.stringify(value) === sent)) continue;
    if (unions.includes(violation.path)) saidAsValues.add(violation.path);
    out.push({ ...violation, keyword: "enum", params: { ...violation.params, allowedValues: values.length ? values : [violation.params.allowedValue] } });
  }
  return out.filter((v) => !((v.keyword === "oneOf" || v.keyword === "anyOf") && saidAsValues.has(v.path)));
}

/** A schema cut to what says how a value must look: no descriptions, nested objects by their required names. */
function schemaFragment(root: Record<string, unknown>, schema: Record<string, unknown>, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of KEPT) {
    const value = schema[key];
    if (value === undefined) continue;
    if (key === "enum" && Array.isArray(value) && value.length > MAX_ENUM) out.enum = [...value.slice(0, MAX_ENUM), `…${value.length - MAX_ENUM} more`];
    else if (key === "required" && Array.isArray(value) && value.length > MAX_NAMES) out.required = value.slice(0, MAX_NAMES);
    else out[key] = value;
  }
  const items = isPlainObject(schema.items) ? followRef(root, schema.items) : undefined;
  if (items && depth < 1) out.items = schemaFragment(root, items, depth + 1);
  // An object's names when `required` does not say them, or when it must have more of them than it has (minProperties).
  if (isPlainObject(schema.properties) && (out.required === undefined || out.minProperties !== undefined)) {
    const names = Object.keys(schema.properties);
    if (names.length) out.properties = names.length > MAX_NAMES ? [...names.slice(0, MAX_NAMES), "…"] : names;
  }
  for (const union of ["anyOf", "oneOf"] as const) {
    const options = schema[union];
    if (Array.isArray(options) && depth < 1) out[union] = options.filter(isPlainObject).slice(0, 4).map((o) => schemaFragment(root, followRef(root, o) ?? {}, depth + 1));
  }
  return out;
}

export interface FieldError {
  path: string;
  message: string;
  /** What the schema asks for at this path (absent when there is nothing to add). */
  schema?: Record<string, unknown>;
}

/**
 * Longest list of allowed values said in the error's message. The values are said once, in the
 * message (what a model reads first): the field's entry in `details.errors` then leaves `enum` out
 * of its schema fragment and does not say them again.
 */
const ENUM_ECHO_CHARS = 100;
/** How many of a long list's values nearest to what was sent are named instead of the first ones. */
const NEAREST_VALUES = 3;

/** `"a", "b" or "c"`. */
function listed(said: readonly string[]): string {
  return said.length > 1 ? `${said.slice(0, -1).join(", ")} or ${said[said.length - 1]}` : (said[0] ?? "");
}

/** The values' JSON texts that fit in ENUM_ECHO_CHARS (at least one, itself cut to fit). */
function fitting(values: readonly unknown[]): string[] {
  const said: string[] = [];
  let length = 0;
  for (const value of values) {
    const text = JSON.stringify(value) ?? String(value);
    if (said.length && length + text.length > ENUM_ECHO_CHARS) break;
    said.push(text.length > ENUM_ECHO_CHARS ? `${text.slice(0, ENUM_ECHO_CHARS)}…` : text);
    length += text.length + 2;
  }
  return said;
}

/**
 * The allowed values in words: all of them when they fit in ENUM_ECHO_CHARS (`"a", "b" or "c"`);
 * else, when a string was sent, the values nearest to it (`one of 3000 values; nearest to "colr":
 * "color", "colour"`), or the first ones that fit (`"a", "b" … and 12 more`).
 */
function allowedValues(values: readonly unknown[], sent: unknown): string {
  const said = fitting(values);
  if (said.length === values.length) return `must be one of ${listed(said)}`;
  if (typeof sent === "string") {
    const strings = values.filter((v): v is string => typeof v === "string");
    const nearest = fitting(closestNames(sent, strings, 0.4, NEAREST_VALUES));
    if (nearest.length) return `must be one of ${values.length} values; nearest to ${JSON.stringify(sent.slice(0, 40))}: ${listed(nearest)}`;
  }
  return `must be one of ${said.join(", ")} … and ${values.length - said.length} more`;
}

/** A JSON pointer as the answer shows it: each part cut as sent names are (the pointer itself stays whole for the lookups). */
function shownPath(pointer: string): string {
  return pointer.split("/").map((part) => echoed(part)).join("/");
}

/** The value at a JSON pointer into the arguments (undefined when the path leads nowhere). */
function valueAt(value: unknown, pointer: string): unknown {
  let current = value;
  for (const raw of pointer.split("/").slice(1)) {
    const part = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(current) && /^\d+$/.test(part)) current = current[Number(part)];
    else if (isPlainObject(current)) current = current[part];
    else return undefined;
  }
  return current;
}

/**
 * The reason, with what to send instead: the allowed values, the near parameter. `told` is the
 * reason as the error's message says it; `entry` as the field's entry in `details.errors` says it
 * (without the allowed values, which the message has said).
 */
function reasonOf(violation: SchemaViolation, schema: Record<string, unknown>, args: unknown): { told: string; entry: string } {
  const params = violation.params;
  if (violation.keyword === "enum" && Array.isArray(params.allowedValues)) {
    return { told: allowedValues(params.allowedValues, valueAt(args, violation.path)), entry: "must be one of the values the message names" };
  }
  if (violation.keyword === "additionalProperties" && typeof params.additionalProperty === "string") {
    const meant = nearKey(params.additionalProperty, declaredNames(schema, violation.path.split("/").slice(0, -1).join("/")));
    if (meant) return { told: `${violation.message}; did you mean '${meant}'?`, entry: `${violation.message}; did you mean '${meant}'?` };
  }
  if (violation.keyword === "minProperties") {
    const more = propertiesToAdd(schemaAt(schema, violation.path), valueAt(args, violation.path));
    // The entry's schema fragment lists the names (and minProperties): said once, in the message.
    if (more) return { told: `${violation.message}; add ${more}`, entry: violation.message };
  }
  return { told: violation.message, entry: violation.message };
}

/** For a minProperties failure: the declared names not sent, as something to add ("one or more of 'title', 'status'"). */
function propertiesToAdd(at: Record<string, unknown> | undefined, value: unknown): string | undefined {
  if (!at || !isPlainObject(at.properties) || !isPlainObject(value)) return undefined;
  const missing = Object.keys(at.properties).filter((name) => !Object.hasOwn(value, name));
  if (!missing.length) return undefined;
  const shown = missing.slice(0, MAX_NAMES).map((name) => `'${name}'`);
  return `${missing.length > 1 ? "one or more of " : ""}${shown.join(", ")}${missing.length > MAX_NAMES ? ", …" : ""}`;
}

/** The message names an enum's values (a union's consts among them): the entry's schema fragment does not list them again. */
function dropEnum(error: FieldError): void {
  if (!error.schema || (error.schema.enum === undefined && error.schema.const === undefined)) return;
  const { enum: _said, const: _one, ...rest } = error.schema;
  if (Object.keys(rest).length) error.schema = rest;
  else delete error.schema;
}

/** Each failing field once (up to MAX_ERRORS), with its entry for `details.errors` and its reason as the message says it. */
function fieldErrors(schema: Record<string, unknown>, args: unknown, violations: readonly SchemaViolation[]): { error: FieldError; told: string }[] {
  const byPath = new Map<string, { error: FieldError; told: string }>();
  const fields: { error: FieldError; told: string }[] = [];
  for (const violation of violations) {
    const known = byPath.get(violation.path);
    if (known) {
      // Several rules broken at one path (type and enum): one entry, the reasons joined.
      const reason = reasonOf(violation, schema, args);
      if (violation.keyword === "enum") dropEnum(known.error);
      if (!known.told.split("; ").includes(reason.told)) {
        known.told = `${known.told}; ${reason.told}`;
        known.error.message = `${known.error.message}; ${reason.entry}`;
      }
      continue;
    }
    const error: FieldError = { path: shownPath(violation.path), message: violation.message };
    if (violation.keyword === "additionalProperties") {
      const names = declaredNames(schema, violation.path.split("/").slice(0, -1).join("/"));
      if (names.length) error.schema = { properties: names.slice(0, MAX_NAMES) };
    } else {
      const at = schemaAt(schema, violation.path);
      const fragment = at ? schemaFragment(schema, at) : undefined;
      if (fragment && Object.keys(fragment).length) error.schema = fragment;
    }
    const reason = reasonOf(violation, schema, args);
    if (violation.keyword === "enum") dropEnum(error);
    error.message = reason.entry;
    const field = { error, told: reason.told };
    byPath.set(violation.path, field);
    fields.push(field);
    if (fields.length >= MAX_ERRORS) break;
  }
  return fields;
}

/**
 * On a failed call, the arguments an open schema does not declare (read as passed on, and said in
 * `repairs`, when the call is valid): said beside the failure, with the parameter each plainly
 * means, since a wrong-case or misspelt name (`Text` for `text`) is usually why a required one is
 * missing. Looked for at the top level and in each object a failure is in: `relation_type` in
 * `relations[0]` is why `relations[0].relationType` is missing, and was not named before. Within
 * MAX_ERRORS with the failing fields, and only at paths not already named.
 */
function undeclaredFields(schema: Record<string, unknown>, args: unknown, violations: readonly SchemaViolation[], failing: readonly { error: FieldError }[]): { error: FieldError; told: string }[] {
  // The objects to look in: the arguments themselves, then the object holding each failing path.
  const objects = new Set<string>([""]);
  for (const { path } of violations) if (path) objects.add(path.slice(0, path.lastIndexOf("/")));
  const named = new Set(failing.map((f) => f.error.path));
  const out: { error: FieldError; told: string }[] = [];
  for (const pointer of objects) {
    const value = pointer ? valueAt(args, pointer) : args;
    // A path under a union may lead to several schemas: which one the object meant is not known.
    const at = pointer ? schemasAt(schema, pointer) : [schema];
    if (!isPlainObject(value) || at.length !== 1) continue;
    const undeclared = undeclaredArguments(at[0] as Record<string, unknown>, value);
    for (const { key, names, meant } of undeclared ?? []) {
      const path = shownPath(`${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`);
      if (named.has(path) || failing.length + out.length >= MAX_ERRORS) continue;
      const what = pointer ? "property" : "parameter";
      const told = meant ? `not a declared ${what}; did you mean '${meant}'?` : `not a declared ${what} (declared: ${names.slice(0, MAX_NAMES).join(", ")})`;
      out.push({ error: { path, message: told }, told });
    }
  }
  return out;
}

/**
 * Check `args` against `schema`. Returns false when the schema could not be compiled (the call
 * goes ahead unvalidated, as before); throws ARG_VALIDATION_FAILED naming every failing field.
 */
export function validateArguments(schema: Record<string, unknown>, args: unknown, what: string, details: Record<string, unknown> = {}): { checked: boolean; reason?: string } {
  const checked = checkAgainstSchema(schema, args);
  if (checked.ok === "skipped") return { checked: false, reason: checked.reason };
  if (checked.ok) return { checked: true };
  const violations = unionValues(schema, args, checked.violations);
  const failing = fieldErrors(schema, args, violations);
  failing.push(...undeclaredFields(schema, args, violations, failing));
  const paths = [...new Set([...violations.map((v) => v.path), ...failing.map((f) => f.error.path)])];
  const more = paths.length > failing.length ? ` (+${paths.length - failing.length} more)` : "";
  const said = failing.map(({ error, told }) => `${error.path || "(the arguments)"}: ${told}`).join("; ");
  throw new RuntimeError("ARG_VALIDATION_FAILED", `arguments for ${what} are invalid: ${said}${more}`, { ...details, errors: failing.map((f) => f.error) });
}
