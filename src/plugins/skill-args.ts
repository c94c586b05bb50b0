import { compileSchema } from "../json-schema.js";
import { isPlainObject } from "../plain-object.js";

/**
 * A skill's `meta.args` comes in three shapes: a JSON Schema (validated at each run), a map of
 * argument name → description, or a sentence. Which one a skill meant decides whether its
 * arguments are checked, so a schema that does not compile must not pass for a name map: its
 * arguments would go unchecked while the README promises they are validated.
 */

/** A meta.args that is a JSON Schema (rather than a name → description map or a sentence) is validated. */
export function isSchemaLike(args: unknown): args is Record<string, unknown> {
  return isPlainObject(args) && (args.type === "object" || isPlainObject(args.properties));
}

/**
 * Whether `args` was written as a schema: it is schema-like, or it uses a schema's keywords
 * (`type`, `properties`, `required`, `$schema`) with a value a name map would not hold (its values
 * are descriptions: strings). `{type: "the ticket's type"}` stays a name map.
 */
function meantAsSchema(args: Record<string, unknown>): boolean {
  if (isSchemaLike(args)) return true;
  const keywords = ["type", "properties", "required", "$schema"].some((key) => key in args);
  return keywords && ("$schema" in args || Object.values(args).some((value) => typeof value !== "string"));
}

/**
 * Why a skill's meta.args cannot be used, or undefined when it can: a schema that does not
 * compile (Ajv's words, its paths read from `meta.args`), or one that does not describe an object
 * (a skill's arguments are always one). Compiled through json-schema.ts's cache: the run reuses it.
 */
export function skillArgsProblem(args: unknown): string | undefined {
  if (!isPlainObject(args) || !meantAsSchema(args)) return undefined;
  const fix = "fix the schema, or give meta.args as a map of argument name → description or as a sentence";
  const compiled = compileSchema(args);
  if (compiled instanceof Error) {
    const reason = compiled.message.replace(/^schema is invalid: /, "").replace(/\bdata(?=[/ ])/g, "meta.args");
    return `meta.args is not a valid JSON Schema (${reason}); ${fix}`;
  }
  const type = args.type;
  if (!isSchemaLike(args)) {
    const what = type === undefined ? "has neither \"type\": \"object\" nor \"properties\"" : `has "type": ${JSON.stringify(type)}`;
    return `meta.args is a JSON Schema that ${what}, but a skill's arguments are an object: give it "type": "object" and its "properties"`;
  }
  return undefined;
}
