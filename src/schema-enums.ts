import type { ErrorObject } from "ajv";
import { canonicalJson } from "./runtime/loop-breaker.js";

/**
 * The meta-schema check of a schema's long `enum` lists, in linear time. Draft-07's meta-schema
 * says an `enum` has `uniqueItems`, and Ajv checks that of an untyped list by comparing every pair:
 * a downstream tool with a 30,000-value enum held the runtime's one thread for 44 s on its first
 * call (and again after each catalog refresh), every other session waiting. Ajv's meta-schema
 * check (json-schema.ts) is given the schema with each long enum cut to its first value (still a
 * non-empty list, so every other rule reads it as before), and the uniqueness is checked here with
 * a set of each value's canonical JSON (object keys sorted, so `{a,b}` and `{b,a}` are equal, as
 * Ajv's deep equality has them). A short enum is left to Ajv: its pairs cost nothing.
 */

/** Enums of at least this many values are checked here, not by Ajv's pairwise meta-schema check (64 values: 2,016 pairs). */
export const LONG_ENUM = 64;

/** Keywords whose values are data, not schemas: an `enum` key inside one is a value, not a keyword. */
const DATA_KEYWORDS: ReadonlySet<string> = new Set(["enum", "const", "default", "examples"]);

/** Keywords whose value maps names to schemas: a key inside one is a name (a property called `enum` or `default`), never a keyword. */
const NAMED_SCHEMAS: ReadonlySet<string> = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"]);

export interface ShortenedEnums {
  /** The schema with each long enum cut to its first value (the same object when it has none): what Ajv's meta-schema check is given. */
  schema: unknown;
  /** One error per long enum with two equal values, as Ajv's `uniqueItems` says it (when `uniqueValues` was asked for). */
  duplicates: ErrorObject[];
}

/**
 * `schema` with its long enums cut short, and the duplicates found in them when the dialect wants
 * unique values (`uniqueValues`: draft-07; 2020-12's meta-schema allows repeats). Copies only the
 * objects on the way to a long enum; recursive like Ajv's own walk of the same schema (a tool
 * entry's depth is bounded at listing, tool-entry-rules.ts).
 */
export function shortenLongEnums(schema: unknown, uniqueValues: boolean): ShortenedEnums {
  const duplicates: ErrorObject[] = [];
  // `names`: the node maps names to schemas (NAMED_SCHEMAS), so its keys are no keywords.
  const walk = (node: unknown, pointer: string, names = false): unknown => {
    if (!node || typeof node !== "object") return node;
    if (Array.isArray(node)) {
      let copy: unknown[] | undefined;
      node.forEach((item, index) => {
        const walked = walk(item, `${pointer}/${index}`);
        if (walked !== item) (copy ??= [...node])[index] = walked;
      });
      return copy ?? node;
    }
    let copy: Record<string, unknown> | undefined;
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      const at = `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
      let walked: unknown;
      if (names) {
        walked = walk(value, at);
      } else if (key === "enum" && Array.isArray(value) && value.length >= LONG_ENUM) {
        if (uniqueValues) {
          const repeat = firstRepeat(value);
          if (repeat) duplicates.push(duplicateError(at, repeat));
        }
        walked = [value[0]];
      } else {
        walked = DATA_KEYWORDS.has(key) ? value : walk(value, at, NAMED_SCHEMAS.has(key));
      }
      if (walked !== value) (copy ??= { ...(node as Record<string, unknown>) })[key] = walked;
    }
    return copy ?? node;
  };
  return { schema: walk(schema, ""), duplicates };
}

/** The first value of `values` equal to an earlier one, with that one's index; undefined when all differ. */
function firstRepeat(values: readonly unknown[]): { i: number; j: number } | undefined {
  const seen = new Map<string, number>();
  for (let i = 0; i < values.length; i++) {
    const key = canonicalJson(values[i]);
    const j = seen.get(key);
    if (j !== undefined) return { i, j };
    seen.set(key, i);
  }
  return undefined;
}

/** Ajv's own error for a repeated enum value (keyword, words and params as its `uniqueItems` has them), so callers read both alike. */
function duplicateError(instancePath: string, { i, j }: { i: number; j: number }): ErrorObject {
  return {
    instancePath,
    schemaPath: "#/properties/enum/uniqueItems",
    keyword: "uniqueItems",
    params: { i, j },
    message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)`,
  };
}
