/**
 * An error's `details` made sure to become JSON. Plugin code puts anything there (a BigInt count,
 * an object that points back to itself, a getter that throws, a Proxy), and one such part made the
 * whole answer a bare JSON-RPC error ("Do not know how to serialize a BigInt"), losing the code,
 * the hint and `writesSent` of a run that had already written. Each part that cannot become JSON
 * is replaced by a short text saying what it was, where, and what the plugin should send instead;
 * the rest is kept. Raw bytes are described as the redactor describes them (binary-value.ts).
 * It imports nothing of the runtime, so errors.ts (the bottom layer) may use it.
 */

import { bytesDescriptor, isBytes } from "./binary-value.js";

/**
 * Deeper than this, a part is replaced: a real error's details are a few levels deep, and the
 * redactor's walk after this one recurses (a value thousands of levels deep overflows it).
 */
const MAX_DEPTH = 100;

function childPath(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** What a getter, a trap or a toJSON of plugin code threw, as text; read with care, as it is plugin code's too. */
export function textOfThrown(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return "a value that cannot be shown";
  }
}

/** The text put in place of a part that cannot become JSON. */
function replaced(what: string, path: string, fix: string): string {
  return `[not JSON: ${what} at ${path}; ${fix}]`;
}

/**
 * `value` with every part JSON.stringify cannot write replaced by a text naming it and its path
 * (`root` is the path's start, e.g. "details"). Copy on write: a value with nothing to replace
 * (nearly every one) comes back as it was.
 */
export function jsonSafe(value: unknown, root: string): unknown {
  return walk(value, root, "", 0, new Set());
}

/** The text in place of a part that threw when it was read (a revoked Proxy, a trap or getter that throws). */
function threwWhenRead(error: unknown, path: string): string {
  return replaced(`a value that threw when read (${textOfThrown(error)})`, path, "the plugin should send plain data");
}

function walk(value: unknown, path: string, key: string, depth: number, onPath: Set<object>): unknown {
  if (typeof value === "bigint") return replaced(`a BigInt (${String(value)})`, path, "the plugin should send it as a string or a number");
  if (!value || typeof value !== "object") return value;
  try {
    // isBytes reads the value's prototype, which a revoked Proxy refuses: only this part is replaced.
    if (isBytes(value)) return bytesDescriptor(value);
  } catch (error) {
    return threwWhenRead(error, path);
  }
  if (onPath.has(value)) return replaced("a circular reference", path, "the plugin should send data without the cycle");
  if (depth >= MAX_DEPTH) return replaced(`a value nested more than ${MAX_DEPTH} levels deep`, path, "the plugin should send a flatter value");
  let item: unknown = value;
  try {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") {
      // JSON.stringify writes what toJSON returns in the object's place; so does this copy.
      item = (toJSON as (key: string) => unknown).call(value, key);
      if (!item || typeof item !== "object") return walk(item, path, key, depth, onPath);
    }
  } catch (error) {
    return replaced(`a value whose toJSON() threw (${textOfThrown(error)})`, path, "the plugin should send plain data");
  }
  const object = item as object;
  onPath.add(object);
  try {
    return Array.isArray(object) ? walkArray(object, path, depth, onPath) : walkObject(object, path, depth, onPath);
  } catch (error) {
    // A Proxy whose traps throw, a getter that throws while its fields are listed or read.
    return threwWhenRead(error, path);
  } finally {
    onPath.delete(object);
  }
}

function walkArray(items: readonly unknown[], path: string, depth: number, onPath: Set<object>): unknown {
  let out: unknown[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const item: unknown = items[i];
    const safe = walk(item, childPath(path, i), String(i), depth + 1, onPath);
    if (safe !== item) (out ??= items.slice())[i] = safe;
  }
  return out ?? items;
}

function walkObject(object: object, path: string, depth: number, onPath: Set<object>): unknown {
  const record = object as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const field of Object.keys(record)) {
    let item: unknown;
    try {
      item = record[field];
    } catch (error) {
      (out ??= copyOf(record))[field] = replaced(`a getter that threw (${textOfThrown(error)})`, childPath(path, field), "the plugin should send plain data");
      continue;
    }
    const safe = walk(item, childPath(path, field), field, depth + 1, onPath);
    if (safe !== item) (out ??= copyOf(record))[field] = safe;
  }
  return out ?? object;
}

/** A copy of an object's own enumerable fields, as JSON.stringify has them; a throwing getter becomes its text. */
function copyOf(record: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const field of Object.keys(record)) {
    try {
      copy[field] = record[field];
    } catch {
      copy[field] = undefined;
    }
  }
  return copy;
}
