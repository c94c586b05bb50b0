import type { JsonSchema } from "../types.js";

/**
 * OpenAPI schema objects → JSON Schema for tool input: `nullable` becomes a `null` type,
 * documentation-only keywords (`xml`, `example(s)`, `externalDocs`, `x-*`) are dropped to keep
 * the catalog small, and a `$ref` left by a circular reference becomes a described placeholder.
 */

const DROP = new Set(["xml", "example", "examples", "externalDocs", "discriminator"]);
const MAX_DEPTH = 12;

export function toJsonSchema(value: unknown, depth = 0, seen: WeakSet<object> = new WeakSet()): JsonSchema {
  if (!value || typeof value !== "object" || Array.isArray(value)) return {};
  if (seen.has(value) || depth > MAX_DEPTH) return { description: "(nested schema not expanded)" };
  const schema = value as Record<string, unknown>;
  if (typeof schema.$ref === "string") {
    const name = schema.$ref.split("/").pop() ?? schema.$ref;
    return { description: `recursive reference to ${name} (not expanded)` };
  }
  seen.add(value);
  const out: JsonSchema = {};
  for (const [key, inner] of Object.entries(schema)) {
    if (DROP.has(key) || key.startsWith("x-") || key === "nullable") continue;
    if (key === "properties" || key === "patternProperties" || key === "definitions" || key === "$defs") {
      const props: Record<string, JsonSchema> = {};
      for (const [name, sub] of Object.entries((inner ?? {}) as Record<string, unknown>)) props[name] = toJsonSchema(sub, depth + 1, seen);
      out[key] = props;
    } else if (key === "items" || key === "additionalProperties" || key === "not" || key === "contains" || key === "propertyNames") {
      out[key] = typeof inner === "boolean" ? inner : toJsonSchema(inner, depth + 1, seen);
    } else if ((key === "allOf" || key === "anyOf" || key === "oneOf" || key === "prefixItems") && Array.isArray(inner)) {
      out[key] = inner.map((sub) => toJsonSchema(sub, depth + 1, seen));
    } else {
      out[key] = inner;
    }
  }
  seen.delete(value);
  if (schema.nullable === true) {
    if (typeof out.type === "string") out.type = [out.type, "null"];
    else if (Array.isArray(out.type) && !out.type.includes("null")) out.type = [...(out.type as unknown[]), "null"];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
  }
  return out;
}
