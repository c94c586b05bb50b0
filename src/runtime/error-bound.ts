import { headOf } from "./argument-value.js";
import { isPlainObject } from "../plain-object.js";
import { REDACTED_MARKER } from "../adapters/shared/redact.js";

/**
 * An error answer of bounded size. What a downstream says when it fails goes to the model as it
 * came: a 500 KB id came back in a 500 KB message and again in `details.content` (a quarter of a
 * million tokens for one failed call). Each string of the error (message, hint, every string and
 * key in `details`) is cut, saying how much was left out; `details` still too large after that
 * has its largest fields replaced by a note. Run on the failure path only (pipeline.ts `frame`),
 * after the redactor: a secret cut in two would no longer be recognised.
 */

/** A downstream's own error text, as a message quotes it (result.ts). */
export const DOWNSTREAM_TEXT_CHARS = 2000;
/** The message and hint: room for a downstream's text cut at DOWNSTREAM_TEXT_CHARS and the runtime's words around it. */
const MESSAGE_CHARS = 4000;
/**
 * A string (or key) inside `details`: as long as the message, since `details` may carry a
 * downstream's own text (a REST body, a tool's non-text items), and a downstream's error text is
 * read across the message and `details.moreText` (a nested agent-tools runtime's whole error
 * answer as JSON), which a cut at 500 made unreadable to the model and to the runtime above.
 */
const DETAIL_STRING_CHARS = MESSAGE_CHARS;
/**
 * A downstream's error text past the message's quote (`details.moreText`, result.ts): with the
 * message's DOWNSTREAM_TEXT_CHARS, as much of it as a string of `details` holds, so a nested
 * runtime's whole error answer still arrives readable, and no more.
 */
export const DOWNSTREAM_MORE_TEXT_CHARS = DETAIL_STRING_CHARS - DOWNSTREAM_TEXT_CHARS;
/** All of `details`, as JSON: room for a long list of skills or plugins with their one-line descriptions. */
const DETAILS_CHARS = 16_000;
/** Nesting walked inside `details`; deeper values are left as they are (the total bound still applies). */
const MAX_DEPTH = 8;

export interface BoundedError {
  message: string;
  hint?: string | undefined;
  details?: Record<string, unknown> | undefined;
}

/**
 * `text` cut to `max` characters with a note of what was left out; as it was when it fits. A text
 * that may hold a credential is masked before it comes here (the cut of a masked text shows no
 * part of a secret; the mask of a cut text misses the secret the cut went through).
 */
export function cutNoted(text: string, max: number): string {
  if (text.length <= max) return text;
  // headOf keeps one unit fewer when the cut falls inside a surrogate pair: the note counts it.
  const head = headOf(text, max);
  return `${head}… (${text.length - head.length} more characters left out)`;
}

/** A value with each string and key cut; the same value (no copy) when nothing needed cutting. */
function cutStrings(value: unknown, depth: number): unknown {
  if (typeof value === "string") return cutNoted(value, DETAIL_STRING_CHARS);
  if (depth >= MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((item, i) => {
      const cut = cutStrings(item, depth + 1);
      if (cut !== item) (out ??= [...value])[i] = cut;
    });
    return out ?? value;
  }
  if (!isPlainObject(value)) return value;
  let out: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const shownKey = cutNoted(key, DETAIL_STRING_CHARS);
    const cut = cutStrings(item, depth + 1);
    if (cut === item && shownKey === key) continue;
    out ??= { ...value };
    if (shownKey !== key) delete out[key];
    out[shownKey] = cut;
  }
  return out ?? value;
}

/** What replaces a `details.next` that could not be repeated whole. */
export const NEXT_LEFT_OUT = "(left out: the call's arguments are too long, or hold a secret, to be repeated here; make the call the message names with your own arguments)";

/**
 * `details.next` is a call to copy as it stands. One whose arguments a cut or the redactor changed
 * would, followed, write the cut or masked copy (a 10,000-character body stored as 4,033
 * characters ending "… left out"): it is left out, and the message still names the call.
 */
function nextWhole(next: unknown): boolean {
  return cutStrings(next, 0) === next && !(JSON.stringify(next) ?? "").includes(REDACTED_MARKER);
}

/** `details` within DETAILS_CHARS: its largest fields, one by one, replaced by a note of their size (listed in `leftOut`). */
function boundDetails(given: Record<string, unknown>): { details: Record<string, unknown>; leftOut: Map<string, number> } {
  const details = given.next === undefined || nextWhole(given.next) ? given : { ...given, next: NEXT_LEFT_OUT };
  const cut = cutStrings(details, 0) as Record<string, unknown>;
  const leftOut = new Map<string, number>();
  const sizes = new Map(Object.entries(cut).map(([key, value]) => [key, JSON.stringify(value)?.length ?? 0]));
  let total = [...sizes.values()].reduce((sum, size) => sum + size, 0);
  if (total <= DETAILS_CHARS) return { details: cut, leftOut };
  const out = { ...cut };
  for (const [key, size] of [...sizes].sort((a, b) => b[1] - a[1])) {
    const note = `(left out: ${size} characters of JSON)`;
    out[key] = note;
    leftOut.set(key, size);
    total += note.length - size;
    if (total <= DETAILS_CHARS) break;
  }
  return { details: out, leftOut };
}

/**
 * A hint that sends the reader to a `details` field the bound left out would promise what is not
 * there: it says so, and that asking for less is the way to see it.
 */
function hintFor(hint: string, leftOut: ReadonlyMap<string, number>): string {
  const named = [...leftOut].filter(([key]) => hint.includes(`\`details.${key}\``));
  if (named.length === 0) return hint;
  const said = named.map(([key, size]) => `\`details.${key}\` (${size} characters of JSON)`).join(" and ");
  return `${hint} (${said} was too large to send and is left out of this answer: it is not there to read; to see it, run again asking for less, or tell the user.)`;
}

/** The error with its message, hint and details bounded; the same object when all of it fits. */
export function boundError<E extends BoundedError>(error: E): E {
  const message = cutNoted(error.message, MESSAGE_CHARS);
  const bounded = error.details === undefined ? undefined : boundDetails(error.details);
  const details = bounded?.details;
  const hint = error.hint === undefined ? undefined : cutNoted(bounded ? hintFor(error.hint, bounded.leftOut) : error.hint, MESSAGE_CHARS);
  if (message === error.message && hint === error.hint && details === error.details) return error;
  return { ...error, message, ...(hint === undefined ? {} : { hint }), ...(details === undefined ? {} : { details }) };
}
