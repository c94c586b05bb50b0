import { isPlainObject } from "../plain-object.js";
import { declaredPropertyNames, schemaBranches } from "../schema-branches.js";
import type { Repair } from "./repair.js";

/**
 * A REST or OpenAPI request body sent one level off, the slip models make most with such tools:
 * `{sku, body: {delta}}` to a tool that takes the body's fields at the top level of its arguments
 * (as OpenAPI tools here do), or `{title, due}` to one whose body is its `body` argument. Moved
 * where the tool takes them only when that cannot be a different call: the wrapper is no
 * parameter of the tool, and every field moved is one the tool declares there (and not sent
 * twice). Anything else is left to validation, whose errors name each key.
 */

/** The names models put a request body under. */
const BODY_WRAPPERS = ["body", "requestBody"] as const;

/** `args` with a misplaced body's fields where the tool takes them, said in `repairs`; else `args` as it was. */
export function placeBodyFields(args: Record<string, unknown>, schema: Record<string, unknown>, declared: ReadonlySet<string>, where: string, repairs: Repair[]): Record<string, unknown> {
  return liftedBody(args, declared, where, repairs) ?? wrappedBody(args, schema, declared, where, repairs) ?? args;
}

/** `{sku, body: {delta}}` → `{sku, delta}`, for a tool that declares no `body` but does declare `delta`. */
function liftedBody(args: Record<string, unknown>, declared: ReadonlySet<string>, where: string, repairs: Repair[]): Record<string, unknown> | undefined {
  const sent = BODY_WRAPPERS.filter((key) => key in args && !declared.has(key));
  if (sent.length !== 1) return undefined;
  const wrapper = sent[0] as string;
  const inner = args[wrapper];
  if (!isPlainObject(inner)) return undefined;
  const fields = Object.keys(inner);
  // A `confirm` is never moved: where it was sent decides whether it is honoured (repair.ts).
  if (!fields.length || !fields.every((field) => field !== "confirm" && declared.has(field) && !(field in args))) return undefined;
  const { [wrapper]: _wrapper, ...rest } = args;
  repairs.push({
    kind: "moved-body-fields",
    message: `'${where}.${wrapper}' held the request body's fields (${fields.join(", ")}); this tool takes them at the top level of '${where}', where they were moved`,
  });
  return { ...rest, ...inner };
}

/** `{title, due}` → `{body: {title, due}}`, for a tool whose only parameter holding them is `body`. */
function wrappedBody(args: Record<string, unknown>, schema: Record<string, unknown>, declared: ReadonlySet<string>, where: string, repairs: Repair[]): Record<string, unknown> | undefined {
  const wrappers = BODY_WRAPPERS.filter((key) => declared.has(key));
  if (wrappers.length !== 1) return undefined;
  const wrapper = wrappers[0] as string;
  if (wrapper in args) return undefined;
  const loose = Object.keys(args).filter((key) => !declared.has(key));
  if (!loose.length) return undefined;
  const bodyFields = new Set(bodyPropertyNames(schema, wrapper));
  if (!loose.every((key) => key !== "confirm" && bodyFields.has(key))) return undefined;
  const body: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) (loose.includes(key) ? body : rest)[key] = value;
  repairs.push({
    kind: "moved-body-fields",
    message: `'${where}' held the request body's fields (${loose.join(", ")}) at its top level; this tool takes them inside '${where}.${wrapper}', where they were moved`,
  });
  return { ...rest, [wrapper]: body };
}

/** The property names the tool's `wrapper` parameter declares (references and branches followed). */
function bodyPropertyNames(schema: Record<string, unknown>, wrapper: string): string[] {
  for (const branch of schemaBranches(schema, schema)) {
    const properties = branch.properties;
    const body = isPlainObject(properties) ? properties[wrapper] : undefined;
    if (isPlainObject(body)) return declaredPropertyNames(schema, body) ?? [];
  }
  return [];
}
