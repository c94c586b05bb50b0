import { compileSchema } from "../json-schema.js";
import { isPlainObject } from "../plain-object.js";
import { schemaBranches } from "../schema-branches.js";

/**
 * A skill's `meta.args` comes in three shapes: a JSON Schema (validated at each run), a map of
 * argument name → description, or a sentence. Which one a skill meant decides whether its
 * arguments are checked, so a schema that does not compile must not pass for a name map: its
 * arguments would go unchecked while the README promises they are validated.
 */

/**
 * A meta.args that is a JSON Schema of an object (rather than a name → description map or a
 * sentence) is validated: `type: "object"` or `properties`, at the top or in a branch the
 * validator reads (a top-level `$ref` to a `$defs` model, `anyOf`/`oneOf`/`allOf` branches).
 */
export function isSchemaLike(args: unknown): args is Record<string, unknown> {
  if (!isPlainObject(args)) return false;
  const describesObject = (node: Record<string, unknown>) => node.type === "object" || isPlainObject(node.properties);
  if (describesObject(args)) return true;
  return meantAsSchema(args) && schemaBranches(args, args).some(describesObject);
}

/** A schema's keywords, which a name map could also hold as argument names (with a description as the value). */
const SCHEMA_KEYWORDS = ["type", "properties", "required", "anyOf", "oneOf", "allOf", "not", "if", "definitions"];
/** Keywords no argument is named: `$`-prefixed, so a name map never holds them. */
const DOLLAR_KEYWORDS = ["$schema", "$ref", "$defs", "$id"];

/**
 * Whether `args` was written as a schema: it uses a schema's `$` keywords (`$schema`, `$ref`,
 * `$defs`, `$id`), or its other keywords (`type`, `properties`, `required`, `anyOf`, `oneOf`,
 * `allOf`, `not`, `if`, `definitions`) with a value a name map would not hold (its values are
 * descriptions: strings). `{type: "the ticket's type"}` stays a name map.
 */
function meantAsSchema(args: Record<string, unknown>): boolean {
  if (DOLLAR_KEYWORDS.some((key) => key in args)) return true;
  return SCHEMA_KEYWORDS.some((key) => key in args) && Object.values(args).some((value) => typeof value !== "string");
}

/**
 * Why a skill's meta.args cannot be used, or undefined when it can: a schema that does not
 * compile (Ajv's words, its paths read from `meta.args`), or one that does not describe an object
 * (a skill's arguments are always one). Compiled through json-schema.ts's cache: the run reuses it.
 */
export function skillArgsProblem(args: unknown): string | undefined {
  if (!isPlainObject(args) || !(isSchemaLike(args) || meantAsSchema(args))) return undefined;
  const fix = "fix the schema, or give meta.args as a map of argument name → description or as a sentence";
  const compiled = compileSchema(args);
  if (compiled instanceof Error) {
    const reason = compiled.message.replace(/^schema is invalid: /, "").replace(/\bdata(?=[/ ])/g, "meta.args");
    return `meta.args is not a valid JSON Schema (${reason}); ${fix}`;
  }
  const type = args.type;
  if (!isSchemaLike(args)) {
    const what = type === undefined ? "has neither \"type\": \"object\" nor \"properties\" (at its top, or in a $ref, anyOf, oneOf or allOf branch)" : `has "type": ${JSON.stringify(type)}`;
    return `meta.args is a JSON Schema that ${what}, but a skill's arguments are an object: give it "type": "object" and its "properties"`;
  }
  return undefined;
}
