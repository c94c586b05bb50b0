import { isPlainObject } from "../plain-object.js";
import type { Repair } from "./repair.js";
import { levenshtein, normalise } from "./similarity.js";
import { echoed } from "./argument-value.js";

/**
 * Keys a call carries that the runtime does not read: said in the answer's `repairs`, or read as
 * the parameter they plainly meant, never dropped without a word. Models misspell a parameter
 * (`qurey`, `limt`), name it as another tool does (`q`, `cmd`), put a tool's arguments next to
 * `toolName` instead of inside `arguments`, or pass a parameter the tool does not declare; before
 * this, each of those was passed over and the call ran as if it had not been sent.
 *
 * Never read as what it resembles: a misspelt `confirm`. A write runs only on a `confirm: true`
 * spelt so, at the top level (repair.ts).
 */

/** Another name for a parameter, as other tools and APIs call it (lower case). */
const ALIASES: Readonly<Record<string, string>> = {
  q: "query",
  search: "query",
  text: "query",
  keywords: "query",
  cmd: "command",
  script: "command",
  shell: "command",
};

/**
 * The one candidate `key` plainly means: the same name but for case and separators, an alias
 * above, or one near miss: one edit in a name of up to four letters, two in a longer one (a swap
 * of two letters, `qurey`, is two edits).
 */
export function nearKey(key: string, candidates: readonly string[]): string | undefined {
  const folded = normalise(key).replace(/_/g, "");
  const lower = key.toLowerCase();
  const alias = Object.hasOwn(ALIASES, lower) ? ALIASES[lower] : undefined;
  if (alias && candidates.includes(alias)) return alias;
  let best: string | undefined;
  let bestDistance = Infinity;
  let tie = false;
  for (const candidate of candidates) {
    const target = normalise(candidate).replace(/_/g, "");
    const edits = target.length >= 5 ? 2 : 1;
    // Lengths apart by more than the edits allowed cannot be a near miss: a huge key is not compared letter by letter.
    if (Math.abs(folded.length - target.length) > edits) continue;
    const d = levenshtein(folded, target);
    if (d > edits) continue;
    if (d < bestDistance) [best, bestDistance, tie] = [candidate, d, false];
    else if (d === bestDistance) tie = true;
  }
  return tie ? undefined : best;
}

/** `Confirm`, `confirm_`, `confrim`, `confirmed`… (`confirm` itself is read before any key is stray). */
function isConfirmLike(key: string): boolean {
  return levenshtein(normalise(key).replace(/_/g, ""), "confirm") <= 2;
}

function list(names: readonly string[]): string {
  return names.length ? names.join(", ") : "no parameters";
}

/**
 * The arguments of help, search, discover or exec with each key the tool does not take read as
 * the parameter it plainly means (when that one was not sent too), or said to be ignored.
 * `reads`: the keys the tool takes. A key sent as `null` (clients fill unset fields so) is let be.
 * `elsewhere`: for a key another facade tool takes, where to send it (said after "it was ignored").
 */
export function readFacadeKeys(tool: string, reads: readonly string[], args: unknown, repairs: Repair[], elsewhere: Readonly<Record<string, string>> = {}): unknown {
  if (!isPlainObject(args)) return args;
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(args)) {
    if (reads.includes(key) || args[key] === undefined || args[key] === null) continue;
    const meant = nearKey(key, reads);
    if (meant && (out ?? args)[meant] === undefined) {
      out ??= { ...args };
      out[meant] = args[key];
      delete out[key];
      repairs.push({ kind: "renamed-key", message: `'${echoed(key)}' was read as '${meant}'` });
      continue;
    }
    const also = meant ? ` ('${meant}' was sent too)` : "";
    // A key another tool takes (discover's `detail` is search's) says where it works.
    const there = Object.hasOwn(elsewhere, key) ? `; ${elsewhere[key]}` : "";
    repairs.push({ kind: "ignored-key", message: `'${echoed(key)}' is not a parameter of ${tool}${also}; it was ignored. ${tool} takes: ${list(reads)}${there}` });
  }
  return out ?? args;
}

/**
 * `{"prefix": "notes"}`, `{"name": "notes"}`, `{"server": "notes"}` to a tool that takes `plugin`
 * (help, search): a key it does not take whose value is exactly a plugin's prefix names that
 * plugin, the very word help's answer calls `prefix`. Read as `plugin` when that was not sent and
 * only one such key was, said in `repairs`; help answered the whole fleet (675 tokens) instead of
 * the plugin (113). `prefixes`: the plugins this caller may use.
 */
export function readPluginValuedKey(reads: readonly string[], args: unknown, prefixes: readonly string[], repairs: Repair[]): unknown {
  if (!isPlainObject(args) || !reads.includes("plugin") || (args.plugin !== undefined && args.plugin !== null)) return args;
  const naming = Object.keys(args).filter((key) => !reads.includes(key) && typeof args[key] === "string" && prefixes.includes(args[key]));
  const [key] = naming;
  if (naming.length !== 1 || key === undefined) return args;
  const { [key]: prefix, ...rest } = args;
  repairs.push({ kind: "renamed-key", message: `'${echoed(key)}' was read as 'plugin' ('${String(prefix)}' is a plugin's prefix)` });
  return { ...rest, plugin: prefix };
}

/** What a _call or _run_skill is, for the wording of its notes. */
export interface CallSubject {
  /** The field that names the target: `toolName` or `skill`. */
  field: string;
  /** "'read_file'" or "skill 'digest'". */
  what: string;
}

/**
 * A _call's or _run_skill's top-level keys beside `toolName`/`skill`, `arguments`, `confirm` and
 * `plugin` (repair.ts collects them): one the tool or skill declares, and that `arguments` does not
 * already hold, is read as its argument (the model flattened the call); a misspelt `confirm` is
 * said not to be honoured; anything else is said to be ignored. `parameters`: the declared names
 * (undefined: the target does not list them, as a skill whose arguments are a sentence).
 */
export function placeStrayKeys(stray: Record<string, unknown>, args: Record<string, unknown>, parameters: readonly string[] | undefined, subject: CallSubject, repairs: Repair[]): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(stray)) {
    if (value === undefined || value === null) continue;
    const declared = parameters?.includes(key) === true;
    if (!declared && isConfirmLike(key)) {
      repairs.push({ kind: "ignored-key", message: `'${echoed(key)}' is not 'confirm' and was not honoured: a change is allowed only by confirm: true, spelt so, next to '${subject.field}'` });
      continue;
    }
    if (declared && !Object.hasOwn(out ?? args, key)) {
      out ??= { ...args };
      out[key] = value;
      repairs.push({ kind: "moved-stray-argument", message: `'${key}' was sent next to '${subject.field}' instead of inside 'arguments'; it was read as an argument of ${subject.what}` });
      continue;
    }
    const why = declared
      ? `'arguments' holds '${key}' too, and that one was used`
      : parameters
        ? `it is not a parameter of this call (${subject.field}, arguments, confirm) nor of ${subject.what} (${list(parameters)}); it was ignored`
        : `it is not a parameter of this call (${subject.field}, arguments, confirm); it was ignored. An argument of ${subject.what} goes inside 'arguments'`;
    repairs.push({ kind: "ignored-key", message: `'${echoed(key)}' was sent next to '${subject.field}': ${why}` });
  }
  return out ?? args;
}

/**
 * Arguments a tool's schema does not declare, said once each (they are passed on as sent: a
 * schema that leaves `additionalProperties` open allows them, and some servers read more than they
 * declare). Said only where the schema lists its parameters plainly: not when it sets
 * `additionalProperties` or `patternProperties` itself, or builds its object from `allOf`/`anyOf`/
 * `oneOf`/`$ref`. A successful call with declared arguments pays one `hasOwn` per argument.
 */
export function noteUndeclaredArguments(schema: Record<string, unknown>, args: Record<string, unknown>, tool: string, repairs: Repair[]): void {
  const undeclared = undeclaredArguments(schema, args);
  if (!undeclared) return;
  for (const { key, names, meant } of undeclared) {
    repairs.push({
      kind: "undeclared-argument",
      message: `'${echoed(key)}' is not a parameter of '${tool}' (it takes: ${list(names)}); it was passed on as sent${meant ? `. Did you mean '${meant}'?` : ""}`,
    });
  }
}

/**
 * The arguments `schema` does not declare, each with the declared parameter it plainly means (if
 * one); undefined when there are none, or when the schema leaves its object open (see above). A
 * successful call with declared arguments pays one `hasOwn` per argument, and nothing is made.
 */
export function undeclaredArguments(schema: Record<string, unknown>, args: Record<string, unknown>): { key: string; names: readonly string[]; meant: string | undefined }[] | undefined {
  const properties = schema.properties;
  if (!isPlainObject(properties)) return undefined;
  let found: { key: string; names: readonly string[]; meant: string | undefined }[] | undefined;
  let names: string[] | undefined;
  for (const key in args) {
    if (Object.hasOwn(properties, key)) continue;
    // Read only once an argument is undeclared: the usual call never looks.
    if (leavesObjectOpen(schema)) return undefined;
    names ??= Object.keys(properties);
    (found ??= []).push({ key, names, meant: nearKey(key, names) });
  }
  return found;
}

/** The schema says itself which other keys may come, or builds its object from parts: `properties` is not the whole list. */
function leavesObjectOpen(schema: Record<string, unknown>): boolean {
  return ["additionalProperties", "patternProperties", "allOf", "anyOf", "oneOf", "$ref"].some((keyword) => schema[keyword] !== undefined);
}
