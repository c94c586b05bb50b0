import { isPlainObject } from "./plain-object.js";

/**
 * Reading a tool's JSON Schema the way its validator does, where a plain `properties`/`type`
 * read would see nothing: through local `$ref`s (`#/$defs/…`, `#/definitions/…`, as pydantic
 * nests every model) and the `anyOf`/`oneOf`/`allOf` branches (`Optional[str]` is
 * `anyOf: [{type: string}, {type: null}]`, a zod discriminated union a `oneOf`). Used to find the
 * sub-schema an error points at (runtime/validation.ts) and the types a flag's parameter takes
 * (text/flag-call.ts). Every walk is bounded: schemas come from other servers, and a recursive
 * one (a tree node naming itself) must not loop.
 */

/** `$ref` hops followed for one sub-schema (a ref naming a ref naming …): a cycle stops here. */
const MAX_REF_HOPS = 16;
/** How deep branches of branches are entered. */
const MAX_BRANCH_DEPTH = 4;
/** Branches read for one sub-schema at most (a wide union of wide unions stays cheap). */
const MAX_BRANCHES = 64;

/** The sub-schema a local reference ("#", "#/$defs/a", "#/definitions/a") names in `root`, if any. */
function localTarget(root: Record<string, unknown>, ref: string): Record<string, unknown> | undefined {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let current: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    let part: string;
    try {
      part = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    } catch {
      return undefined;
    }
    if (!isPlainObject(current) && !Array.isArray(current)) return undefined;
    current = Object.hasOwn(current, part) ? (current as Record<string, unknown>)[part] : undefined;
  }
  return isPlainObject(current) ? current : undefined;
}

/**
 * `schema` with its local `$ref`s followed to what they name. A reference that is not local, or
 * names nothing, leaves the schema as it is; a cycle of references gives undefined.
 */
export function followRef(root: Record<string, unknown>, schema: Record<string, unknown>): Record<string, unknown> | undefined {
  let current = schema;
  for (let hops = 0; typeof current.$ref === "string"; hops++) {
    if (hops >= MAX_REF_HOPS) return undefined;
    const target = localTarget(root, current.$ref);
    if (!target) return current;
    current = target;
  }
  return current;
}

/** `schema` (references followed) and every `anyOf`/`oneOf`/`allOf` branch under it, each followed too. */
export function schemaBranches(root: Record<string, unknown>, schema: Record<string, unknown>): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const visit = (node: Record<string, unknown>, depth: number): void => {
    const followed = followRef(root, node);
    if (!followed || out.length >= MAX_BRANCHES || out.includes(followed)) return;
    out.push(followed);
    if (depth >= MAX_BRANCH_DEPTH) return;
    for (const union of ["anyOf", "oneOf", "allOf"] as const) {
      const options = followed[union];
      if (Array.isArray(options)) for (const option of options) if (isPlainObject(option)) visit(option, depth + 1);
    }
  };
  visit(schema, 0);
  return out;
}

/**
 * The property names a sub-schema declares in any of its branches (a top-level `$ref` to a
 * `$defs` model, `allOf` parts, union branches); undefined when no branch has `properties` at all
 * (an open schema that names nothing).
 */
export function declaredPropertyNames(root: Record<string, unknown>, schema: Record<string, unknown>): string[] | undefined {
  let names: Set<string> | undefined;
  for (const branch of schemaBranches(root, schema)) {
    if (!isPlainObject(branch.properties)) continue;
    names ??= new Set();
    for (const name of Object.keys(branch.properties)) names.add(name);
  }
  return names && [...names];
}

/**
 * The property names a sub-schema requires whatever branch a value takes: its own `required`
 * (references followed), its `allOf` parts' (each must hold), and of each union (`anyOf`,
 * `oneOf`) the names every branch requires: whichever branch a value takes, it needs them. A name
 * only some branches require is left out: it holds only for the values that take those.
 */
export function requiredPropertyNames(root: Record<string, unknown>, schema: Record<string, unknown>): string[] {
  const requiredOf = (node: Record<string, unknown>, depth: number): Set<string> => {
    const names = new Set<string>();
    const followed = followRef(root, node);
    if (!followed) return names;
    if (Array.isArray(followed.required)) for (const name of followed.required) if (typeof name === "string") names.add(name);
    if (depth >= MAX_BRANCH_DEPTH) return names;
    if (Array.isArray(followed.allOf)) for (const part of followed.allOf.slice(0, MAX_BRANCHES)) if (isPlainObject(part)) for (const name of requiredOf(part, depth + 1)) names.add(name);
    for (const union of ["anyOf", "oneOf"] as const) {
      const branches = followed[union];
      // A branch that is not a schema object (true) requires nothing, and so does the union; past
      // MAX_BRANCHES a branch is not read, so nothing is claimed for the union either.
      if (!Array.isArray(branches) || !branches.length || branches.length > MAX_BRANCHES || !branches.every(isPlainObject)) continue;
      const [first, ...rest] = branches.map((branch) => requiredOf(branch, depth + 1));
      for (const name of first ?? []) if (rest.every((other) => other.has(name))) names.add(name);
    }
    return names;
  };
  return [...requiredOf(schema, 0)];
}

/** JSON Schema's name for a value's type ("integer" for a whole number). */
export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/**
 * The JSON types a sub-schema names in any of its branches: `type` (one or a list), and the types
 * of `const`/`enum` values. Empty when it names none (it takes anything, or says so otherwise).
 */
export function typesOf(root: Record<string, unknown>, schema: unknown): string[] {
  if (!isPlainObject(schema)) return [];
  const types = new Set<string>();
  for (const branch of schemaBranches(root, schema)) {
    const type = branch.type;
    if (typeof type === "string") types.add(type);
    else if (Array.isArray(type)) for (const t of type) if (typeof t === "string") types.add(t);
    if (Object.hasOwn(branch, "const")) types.add(jsonType(branch.const));
    if (Array.isArray(branch.enum)) for (const value of branch.enum) types.add(jsonType(value));
  }
  return [...types];
}
