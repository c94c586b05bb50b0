import { isPlainObject } from "../../plain-object.js";
import { nearKey } from "../../runtime/stray-keys.js";
import type { JsonSchema } from "../types.js";

/**
 * Declarative tools (a `rest` tool without a catch-all body or query, a `cli` tool's argv) carry
 * only the arguments their mapping names: one they do not name has nowhere to go, and sending the
 * call without it would lose it while the answer said nothing. So such a tool says so in its
 * schema (`additionalProperties: false`: validation refuses the call before it runs, naming the
 * argument and the near parameter), and the adapter refuses what the schema could not say (a
 * schema built from `allOf`/`$ref`…), so nothing is ever sent without it.
 */

/** Keywords with which a schema builds its object from parts or says itself which other keys may come. */
const COMPOSING = ["patternProperties", "allOf", "anyOf", "oneOf", "$ref"] as const;

/**
 * A manifest's own input schema for a tool that carries no undeclared argument, closed to them:
 * `additionalProperties: false` when it lists its properties plainly. A schema built from parts
 * is left as it is (closing it would refuse the parts' properties); the adapter's own check
 * (`refuseUncarried`) stands for it.
 */
export function closedToUndeclared(schema: JsonSchema): JsonSchema {
  if (schema.additionalProperties === false || !plainProperties(schema)) return schema;
  return { ...schema, additionalProperties: false };
}

/**
 * The property names of a schema that lists them plainly (a `properties` object, built from no
 * parts); undefined for one built from parts, whose parts may declare more.
 */
export function plainProperties(schema: JsonSchema): string[] | undefined {
  if (!isPlainObject(schema.properties)) return undefined;
  if (COMPOSING.some((keyword) => schema[keyword] !== undefined)) return undefined;
  return Object.keys(schema.properties);
}

/**
 * The first argument a tool cannot carry (`carries` says which it can), with the near one it
 * carries when there is one; undefined when every argument has its place. A key sent as `null`
 * or undefined is let be (clients send an unset field so).
 */
export function uncarriedArgument(args: Readonly<Record<string, unknown>>, carried: readonly string[]): { key: string; meant?: string } | undefined {
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined || value === null || carried.includes(key)) continue;
    const meant = nearKey(key, carried);
    return meant ? { key, meant } : { key };
  }
  return undefined;
}

/** The message for an argument a tool cannot carry: names it, what the tool takes, the near one; says nothing was sent. */
export function uncarriedMessage(tool: string, found: { key: string; meant?: string }, carried: readonly string[], nothing: string): string {
  const takes = carried.length ? carried.join(", ") : "no arguments";
  return `'${found.key}' is not a parameter of '${tool}' (it takes: ${takes}); ${nothing}${found.meant ? `. Did you mean '${found.meant}'?` : ""}`;
}
