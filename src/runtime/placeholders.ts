import { RuntimeError } from "../errors.js";
import { pointerToField } from "../json-schema.js";
import { isPlainObject } from "../plain-object.js";
import { echoed } from "./argument-value.js";

/**
 * The typed placeholders a search or discover hit's `next` holds for each required argument
 * (`{"title": "<string>"}`), made and recognised here only. A model sends `next` back unchanged
 * often enough: a task titled "<string>" was created. So a call whose argument is exactly one of
 * these is refused before anything is sent (pipeline.ts), and the text that makes them and the
 * check that refuses them cannot drift apart.
 */

/** JSON Schema's types: a placeholder names one or several of them ("<string|null>"), or is "<value>". */
const JSON_TYPES = ["string", "integer", "number", "boolean", "array", "object", "null"] as const;
const ANY_VALUE = "value";

const TYPE = `(?:${JSON_TYPES.join("|")})`;
const PLACEHOLDER = new RegExp(`^<(?:${ANY_VALUE}|${TYPE}(?:\\|${TYPE})*)>$`);
/** Longer than any placeholder: a long string is not tested against the pattern. */
const LONGEST = 2 + JSON_TYPES.join("|").length;

/** The placeholder for one parameter's schema: its JSON types in angle brackets ("<string>", "<integer|null>"), else "<value>". */
export function placeholderFor(spec: unknown): string {
  const type = isPlainObject(spec) ? spec.type : undefined;
  const listed = Array.isArray(type) ? type : [type];
  const named = listed.filter((t): t is (typeof JSON_TYPES)[number] => typeof t === "string" && (JSON_TYPES as readonly string[]).includes(t));
  return `<${named.length ? named.join("|") : ANY_VALUE}>`;
}

/** Whether a value is exactly one of the placeholders placeholderFor makes. */
export function isPlaceholder(value: unknown): value is string {
  return typeof value === "string" && value.length <= LONGEST && value.charCodeAt(0) === 0x3c && PLACEHOLDER.test(value);
}

/** One placeholder found in the arguments: where (a JSON pointer's parts) and which. */
export interface PlaceholderFound {
  path: (string | number)[];
  placeholder: string;
}

/** A value on the walk's stack, with the way back to the arguments' top (its path is built only when it is a placeholder). */
interface Visit {
  value: unknown;
  key: string | number | undefined;
  parent: Visit | undefined;
}

function pathOf(visit: Visit): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: Visit | undefined = visit; at?.key !== undefined; at = at.parent) path.unshift(at.key);
  return path;
}

/**
 * The placeholders left in `args`, nested ones included (up to `max`). Walked with a stack, not
 * recursion: arguments are the caller's JSON, of any depth. A call without placeholders allocates
 * a stack entry per object or array in its arguments; a string is looked at where it is, and only
 * a short one that starts with "<" is tested.
 */
export function placeholdersIn(args: unknown, max = 5): PlaceholderFound[] {
  const found: PlaceholderFound[] = [];
  if (isPlaceholder(args)) return [{ path: [], placeholder: args }];
  const work: Visit[] = [{ value: args, key: undefined, parent: undefined }];
  // Children are pushed last first, so they are taken in their order.
  const look = (child: unknown, key: string | number, parent: Visit, later: Visit[]): void => {
    if (isPlaceholder(child)) found.push({ path: [...pathOf(parent), key], placeholder: child });
    else if (child !== null && typeof child === "object") later.push({ value: child, key, parent });
  };
  while (work.length > 0 && found.length < max) {
    const visit = work.pop() as Visit;
    const { value } = visit;
    const later: Visit[] = [];
    if (Array.isArray(value)) for (let i = 0; i < value.length && found.length < max; i++) look(value[i], i, visit, later);
    else if (isPlainObject(value)) for (const key of Object.keys(value)) if (found.length < max) look(value[key], key, visit, later);
    for (let i = later.length - 1; i >= 0; i--) work.push(later[i] as Visit);
  }
  return found;
}

/** A found placeholder's path as a JSON pointer ("/entities/0/name"). */
function pointerOf(path: readonly (string | number)[]): string {
  return path.map((part) => `/${String(part).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

/**
 * ARG_VALIDATION_FAILED when `args` still hold a placeholder of `next`, naming each argument
 * that does (nothing is sent); `what`: the tool or skill as the message names it.
 */
export function refusePlaceholders(args: unknown, what: string): void {
  const found = placeholdersIn(args);
  if (!found.length) return;
  const fields = found.map((f) => `'${pointerToField(pointerOf(f.path)) || "arguments"}'`);
  const placeholders = [...new Set(found.map((f) => `"${f.placeholder}"`))].join(", ");
  const said =
    found.length === 1
      ? `${fields[0]} still holds the placeholder ${placeholders} from \`next\`; put the real value`
      : `${fields.join(", ")} still hold placeholders (${placeholders}) from \`next\`; put the real values`;
  throw new RuntimeError("ARG_VALIDATION_FAILED", `arguments for ${what} are invalid: ${said}. Nothing was sent.`, {
    errors: found.map((f) => ({ path: pointerOf(f.path.map((part) => (typeof part === "string" ? echoed(part) : part))), message: `still holds the placeholder "${f.placeholder}" from \`next\`` })),
  });
}
