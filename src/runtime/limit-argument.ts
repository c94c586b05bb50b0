import { describeArgumentValue } from "./argument-value.js";

/**
 * The `limit` of discover and search, read one way for the typed facade and the text layer's
 * `discover --limit`. What models really send is repaired (a number sent as a string, `"5"`; a
 * number over the most shown, which asks for the most); what cannot mean a count (`"ten"`, 0,
 * -3, 2.5, true) is refused, naming the value, never turned into the default without a word.
 */

/** The most entries one discover or search answer shows. */
export const MAX_LIMIT = 50;

export type LimitReading =
  /** `limit` undefined: not given (the caller's default applies). `repairs`: what was changed, said in the answer. */
  | { ok: true; limit: number | undefined; repairs: string[] }
  /** `got`: the value as the message names it (`the string "ten"`, `0`, `true`). */
  | { ok: false; got: string };

/** A number written as JSON or JavaScript would write it (`5`, `5.0`, `1e1`, `-3`): what it reads as is then checked like a number. */
const NUMERAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** `null` counts as not given (clients fill unset optional fields with it). */
export function readLimit(value: unknown): LimitReading {
  if (value === undefined || value === null) return { ok: true, limit: undefined, repairs: [] };
  const repairs: string[] = [];
  let count: unknown = value;
  if (typeof value === "string" && NUMERAL.test(value.trim())) {
    count = Number(value.trim());
    repairs.push(`'limit' was the string ${JSON.stringify(value)}; it was read as the number ${String(count)}`);
  }
  if (typeof count !== "number" || !Number.isInteger(count) || count < 1) return { ok: false, got: describeArgumentValue(value) };
  if (count <= MAX_LIMIT) return { ok: true, limit: count, repairs };
  repairs.push(`'limit' ${String(count)} is over the most an answer shows; ${MAX_LIMIT} were asked for`);
  return { ok: true, limit: MAX_LIMIT, repairs };
}

/** What a limit must be, for the facade's error and the text layer's usage line alike. */
export const LIMIT_RULE = `a whole number from 1 to ${MAX_LIMIT}`;
