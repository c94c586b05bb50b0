import type { JsonSchema } from "../types.js";

/**
 * OpenAPI schema objects → JSON Schema for tool input: `nullable` becomes a `null` type,
 * documentation-only keywords (`xml`, `example(s)`, `externalDocs`, `x-*`) are dropped to keep
 * the catalog small, and a `$ref` left by a circular reference becomes a described placeholder.
 */

const DROP = new Set(["xml", "example", "examples", "externalDocs", "discriminator"]);
const MAX_DEPTH = 12;

/** A JSON Pointer (`#/components/schemas/Pet`) inside the document. */
function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  let current: unknown = root;
  for (const raw of ref.slice(1).split("/").slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/**
 * `root`: the document, to expand the `$ref`s json-schema-ref-parser leaves in place for circular
 * references; each is expanded once per branch, and its recursive use becomes a placeholder.
 */
export function toJsonSchema(value: unknown, root?: unknown, depth = 0, seen: WeakSet<object> = new WeakSet(), refs: ReadonlySet<string> = new Set()): JsonSchema {
  if (!value || typeof value !== "object" || Array.isArray(value)) return {};
  if (seen.has(value) || depth > MAX_DEPTH) return { description: "(nested schema not expanded)" };
  const schema = value as Record<string, unknown>;
  if (typeof schema.$ref === "string") {
    const ref = schema.$ref;
    const name = ref.split("/").pop() ?? ref;
    const target = refs.has(ref) ? undefined : resolvePointer(root, ref);
    if (target === undefined) return { description: `recursive reference to ${name} (not expanded)` };
    return toJsonSchema(target, root, depth + 1, seen, new Set([...refs, ref]));
  }
  seen.add(value);
  const out: JsonSchema = {};
  for (const [key, inner] of Object.entries(schema)) {
    if (DROP.has(key) || key.startsWith("x-") || key === "nullable") continue;
    if (key === "properties" || key === "patternProperties" || key === "definitions" || key === "$defs") {
      const props: Record<string, JsonSchema> = {};
      for (const [name, sub] of Object.entries((inner ?? {}) as Record<string, unknown>)) props[name] = toJsonSchema(sub, root, depth + 1, seen, refs);
      out[key] = props;
    } else if (key === "items" || key === "additionalProperties" || key === "not" || key === "contains" || key === "propertyNames") {
      out[key] = typeof inner === "boolean" ? inner : toJsonSchema(inner, root, depth + 1, seen, refs);
    } else if ((key === "allOf" || key === "anyOf" || key === "oneOf" || key === "prefixItems") && Array.isArray(inner)) {
      out[key] = inner.map((sub) => toJsonSchema(sub, root, depth + 1, seen, refs));
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
