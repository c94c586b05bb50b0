import { setOwnField } from "../../plain-object.js";
import type { JsonSchema } from "../types.js";

/**
 * OpenAPI schema objects → JSON Schema for tool input: `nullable` becomes a `null` type,
 * documentation-only keywords (`xml`, `example(s)`, `externalDocs`, `x-*`) are dropped to keep
 * the catalog small, `$ref`s are followed, and a circular one becomes a described placeholder.
 *
 * A component used in several places is one object reached by many paths: a spec of a few
 * KB can reach one component by W^levels paths (8 levels of 8 properties each naming the next:
 * 16 million). So each schema object is converted once (memoised by identity), and each
 * operation's input schema has a node budget: the schema it gets is a plain tree (every consumer
 * of tool schemas, from the search index to clients, reads plain properties, not `$ref`s), and
 * the parts past the budget accept any value and say so.
 */

const DROP = new Set(["xml", "example", "examples", "externalDocs", "discriminator"]);
const MAX_DEPTH = 12;
/** `$ref` hops followed for one non-schema object (a parameter naming a parameter naming …). */
const MAX_REF_HOPS = 16;
/** Schema objects in one operation's input schema, expanded; a large real request body has a few hundred. */
export const MAX_SCHEMA_NODES = 2000;
const CUT_NOTE = "(schema too large to list here; any value is accepted)";

/** What one operation's input schema may still take, and whether anything was left out. */
export interface SchemaBudget {
  remaining: number;
  cut: boolean;
}

export function newSchemaBudget(nodes = MAX_SCHEMA_NODES): SchemaBudget {
  return { remaining: nodes, cut: false };
}

interface Converted {
  schema: JsonSchema;
  /** Schema objects in `schema` written out as a tree (shared parts counted each time). */
  size: number;
}

/** A JSON Pointer (`#/components/schemas/Pet`) inside the document; undefined when it names nothing there. */
export function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  let current: unknown = root;
  for (const raw of ref.slice(1).split("/").slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (current === null || typeof current !== "object" || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** A parameter, request body or path item that may be a `$ref` to one in `components`: the object it names. */
export function followRef(value: unknown, root: unknown): unknown {
  let current = value;
  for (let hop = 0; hop < MAX_REF_HOPS; hop++) {
    const ref = current && typeof current === "object" ? (current as Record<string, unknown>).$ref : undefined;
    if (typeof ref !== "string") return current;
    current = resolvePointer(root, ref);
  }
  return undefined;
}

/**
 * Converts the schemas of one document. `root`: the document, to follow `$ref`s in; a reference
 * is expanded once per branch, and its recursive use becomes a placeholder. The schemas it returns share objects:
 * callers copy before changing one (`toJsonSchema` gives a tree of its own).
 */
export class SchemaConverter {
  private readonly memo = new WeakMap<object, Converted>();
  private readonly ancestors = new WeakSet<object>();

  constructor(private readonly root?: unknown) {}

  /** A parameter, request body or path item of this document, its `$ref` followed. */
  follow(value: unknown): unknown {
    return followRef(value, this.root);
  }

  convert(value: unknown, budget: SchemaBudget): JsonSchema {
    return this.walk(value, budget, 0, new Set()).schema;
  }

  private walk(value: unknown, budget: SchemaBudget, depth: number, refs: ReadonlySet<string>): Converted {
    if (!value || typeof value !== "object" || Array.isArray(value)) return { schema: {}, size: 1 };
    if (this.ancestors.has(value) || depth > MAX_DEPTH) return { schema: { description: "(nested schema not expanded)" }, size: 1 };
    const schema = value as Record<string, unknown>;
    if (typeof schema.$ref === "string") {
      const ref = schema.$ref;
      const name = ref.split("/").pop() ?? ref;
      if (!ref.startsWith("#")) return { schema: { description: `reference to another document, ${ref} (not followed)` }, size: 1 };
      const target = refs.has(ref) ? undefined : resolvePointer(this.root, ref);
      if (target === undefined) return { schema: { description: `recursive reference to ${name} (not expanded)` }, size: 1 };
      return this.walk(target, budget, depth + 1, new Set([...refs, ref]));
    }
    const known = this.memo.get(value);
    if (known && known.size <= budget.remaining) {
      budget.remaining -= known.size;
      return known;
    }
    if (known || budget.remaining <= 0) {
      budget.cut = true;
      return { schema: { description: CUT_NOTE }, size: 1 };
    }
    budget.remaining--;
    this.ancestors.add(value);
    const converted = this.convertObject(schema, budget, depth, refs);
    this.ancestors.delete(value);
    this.memo.set(value, converted);
    return converted;
  }

  private convertObject(schema: Record<string, unknown>, budget: SchemaBudget, depth: number, refs: ReadonlySet<string>): Converted {
    const out: JsonSchema = {};
    let size = 1;
    const sub = (inner: unknown): JsonSchema => {
      const converted = this.walk(inner, budget, depth + 1, refs);
      size += converted.size;
      return converted.schema;
    };
    for (const [key, inner] of Object.entries(schema)) {
      if (DROP.has(key) || key.startsWith("x-") || key === "nullable") continue;
      if (key === "properties" || key === "patternProperties" || key === "definitions" || key === "$defs") {
        const props: Record<string, JsonSchema> = {};
        for (const [name, inner2] of Object.entries((inner ?? {}) as Record<string, unknown>)) setOwnField(props, name, sub(inner2));
        out[key] = props;
      } else if (key === "items" || key === "additionalProperties" || key === "not" || key === "contains" || key === "propertyNames") {
        out[key] = typeof inner === "boolean" ? inner : sub(inner);
      } else if ((key === "allOf" || key === "anyOf" || key === "oneOf" || key === "prefixItems") && Array.isArray(inner)) {
        out[key] = inner.map(sub);
      } else {
        setOwnField(out, key, inner);
      }
    }
    if (schema.nullable === true) {
      if (typeof out.type === "string") out.type = [out.type, "null"];
      else if (Array.isArray(out.type) && !out.type.includes("null")) out.type = [...(out.type as unknown[]), "null"];
      if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
    }
    return { schema: out, size };
  }
}

/** One schema on its own (a tree of its own, within `budget`). */
export function toJsonSchema(value: unknown, root?: unknown, budget: SchemaBudget = newSchemaBudget()): JsonSchema {
  return asTree(new SchemaConverter(root).convert(value, budget));
}

/**
 * The schema written out as a plain tree with no shared objects, so a later change to one tool's
 * schema cannot reach another's. Bounded: a converted schema's tree is within its budget.
 */
export function asTree(schema: JsonSchema): JsonSchema {
  return JSON.parse(JSON.stringify(schema)) as JsonSchema;
}
