import { checkAgainstSchema, type SchemaViolation } from "../json-schema.js";
import { RuntimeError } from "../errors.js";
import { isPlainObject } from "../plain-object.js";
import { nearKey } from "./stray-keys.js";

/**
 * Argument validation with answers a model can act on cheaply: each failing field is named with
 * the reason and the part of the schema that applies there (its type, allowed values, required
 * names…), not the whole input schema. A one-field mistake stays well under 150 tokens.
 */

const KEPT = ["type", "enum", "const", "format", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems", "required"] as const;
const MAX_ENUM = 8;
const MAX_NAMES = 12;
const MAX_ERRORS = 5;

/** The sub-schema at a JSON pointer into the value (through properties, items, additionalProperties). */
function schemaAt(schema: Record<string, unknown>, pointer: string): Record<string, unknown> | undefined {
  let current: Record<string, unknown> | undefined = schema;
  for (const raw of pointer.split("/").slice(1)) {
    if (!current) return undefined;
    const part = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    const properties: unknown = current.properties;
    if (isPlainObject(properties) && isPlainObject(properties[part])) current = properties[part];
    else if (/^\d+$/.test(part) && isPlainObject(current.items)) current = current.items;
    else if (isPlainObject(current.additionalProperties)) current = current.additionalProperties;
    else return undefined;
  }
  return current;
}

/** A schema cut to what says how a value must look: no descriptions, nested objects by their required names. */
function schemaFragment(schema: Record<string, unknown>, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of KEPT) {
    const value = schema[key];
    if (value === undefined) continue;
    if (key === "enum" && Array.isArray(value) && value.length > MAX_ENUM) out.enum = [...value.slice(0, MAX_ENUM), `…${value.length - MAX_ENUM} more`];
    else if (key === "required" && Array.isArray(value) && value.length > MAX_NAMES) out.required = value.slice(0, MAX_NAMES);
    else out[key] = value;
  }
  if (isPlainObject(schema.items) && depth < 1) out.items = schemaFragment(schema.items, depth + 1);
  if (isPlainObject(schema.properties) && out.required === undefined) {
    const names = Object.keys(schema.properties);
    if (names.length) out.properties = names.length > MAX_NAMES ? [...names.slice(0, MAX_NAMES), "…"] : names;
  }
  for (const union of ["anyOf", "oneOf"] as const) {
    const options = schema[union];
    if (Array.isArray(options) && depth < 1) out[union] = options.filter(isPlainObject).slice(0, 4).map((o) => schemaFragment(o, depth + 1));
  }
  return out;
}

export interface FieldError {
  path: string;
  message: string;
  /** What the schema asks for at this path (absent when there is nothing to add). */
  schema?: Record<string, unknown>;
}

/** Longest list of allowed values said in a message (the schema fragment beside it holds up to MAX_ENUM of them). */
const ENUM_ECHO_CHARS = 160;

/** The allowed values in words, cut to ENUM_ECHO_CHARS: `"a", "b" or "c"`, `"a", "b" … (12 more)`. */
function allowedValues(values: readonly unknown[]): string {
  const said: string[] = [];
  let length = 0;
  for (const value of values) {
    const text = JSON.stringify(value) ?? String(value);
    if (said.length && length + text.length > ENUM_ECHO_CHARS) break;
    said.push(text.length > ENUM_ECHO_CHARS ? `${text.slice(0, ENUM_ECHO_CHARS)}…` : text);
    length += text.length + 2;
  }
  const left = values.length - said.length;
  if (left > 0) return `${said.join(", ")} … (${left} more)`;
  return said.length > 1 ? `${said.slice(0, -1).join(", ")} or ${said[said.length - 1]}` : (said[0] ?? "");
}

/** The reason, said once, with what to send instead: the allowed values, the near parameter. */
function reasonOf(violation: SchemaViolation, schema: Record<string, unknown>): string {
  const params = violation.params;
  if (violation.keyword === "enum" && Array.isArray(params.allowedValues)) return `must be one of ${allowedValues(params.allowedValues)}`;
  if (violation.keyword === "additionalProperties" && typeof params.additionalProperty === "string") {
    const parent = schemaAt(schema, violation.path.split("/").slice(0, -1).join("/"));
    const meant = parent && isPlainObject(parent.properties) ? nearKey(params.additionalProperty, Object.keys(parent.properties)) : undefined;
    if (meant) return `${violation.message}; did you mean '${meant}'?`;
  }
  return violation.message;
}

function fieldErrors(schema: Record<string, unknown>, violations: readonly SchemaViolation[]): FieldError[] {
  const byPath = new Map<string, FieldError>();
  const errors: FieldError[] = [];
  for (const violation of violations) {
    const known = byPath.get(violation.path);
    if (known) {
      // Several rules broken at one path (type and enum): one entry, the reasons joined.
      const reason = reasonOf(violation, schema);
      if (!known.message.split("; ").includes(reason)) known.message = `${known.message}; ${reason}`;
      continue;
    }
    const error: FieldError = { path: violation.path, message: violation.message };
    if (violation.keyword === "additionalProperties") {
      const parent = schemaAt(schema, violation.path.split("/").slice(0, -1).join("/"));
      if (parent && isPlainObject(parent.properties)) error.schema = { properties: Object.keys(parent.properties).slice(0, MAX_NAMES) };
    } else {
      const at = schemaAt(schema, violation.path);
      const fragment = at ? schemaFragment(at) : undefined;
      if (fragment && Object.keys(fragment).length) error.schema = fragment;
    }
    error.message = reasonOf(violation, schema);
    byPath.set(violation.path, error);
    errors.push(error);
    if (errors.length >= MAX_ERRORS) break;
  }
  return errors;
}

/**
 * Check `args` against `schema`. Returns false when the schema could not be compiled (the call
 * goes ahead unvalidated, as before); throws ARG_VALIDATION_FAILED naming every failing field.
 */
export function validateArguments(schema: Record<string, unknown>, args: unknown, what: string, details: Record<string, unknown> = {}): { checked: boolean; reason?: string } {
  const checked = checkAgainstSchema(schema, args);
  if (checked.ok === "skipped") return { checked: false, reason: checked.reason };
  if (checked.ok) return { checked: true };
  const errors = fieldErrors(schema, checked.violations);
  const fields = [...new Set(checked.violations.map((v) => v.path))];
  const more = fields.length > errors.length ? ` (+${fields.length - errors.length} more)` : "";
  throw new RuntimeError("ARG_VALIDATION_FAILED", `arguments for ${what} are invalid: ${errors.map((e) => `${e.path || "(the arguments)"}: ${e.message}`).join("; ")}${more}`, { ...details, errors });
}
