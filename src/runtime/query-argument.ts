import { echoQuery } from "./search-answer.js";

/**
 * The `query` of discover and search, read one way for both. What models send besides a string
 * is read when its meaning is plain, and said in `repairs`: a number as its text (`42` → "42"),
 * an array of strings as its words joined with spaces (`["list", "notes"]` → "list notes").
 * Anything else (an object, a boolean, an array holding other values) is refused naming what was
 * received: before, it was read as no query at all, and the answer was the default listing (or
 * "'query' is missing") without a word about the query that was sent.
 */

export type QueryReading =
  /** `query` "" when none was given (`null` too: clients fill unset fields with it). */
  | { ok: true; query: string; repairs: string[] }
  /** `got`: what was received, as the refusal names it. */
  | { ok: false; got: string };

export function readQuery(value: unknown): QueryReading {
  if (value === undefined || value === null) return { ok: true, query: "", repairs: [] };
  if (typeof value === "string") return { ok: true, query: value.trim(), repairs: [] };
  if (typeof value === "number" && Number.isFinite(value)) {
    return { ok: true, query: String(value), repairs: [`'query' was the number ${value}; it was read as the text "${value}"`] };
  }
  if (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === "string")) {
    const query = value.map((item) => item.trim()).filter(Boolean).join(" ");
    return { ok: true, query, repairs: [`'query' was an array of strings; its words were read as one query, ${JSON.stringify(echoQuery(query))}`] };
  }
  return { ok: false, got: kindOf(value) };
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return value.length ? "an array that is not all strings" : "an empty array";
  if (typeof value === "object") return "an object";
  if (typeof value === "number") return `the number ${String(value)}`;
  return `${typeof value === "boolean" ? "the boolean" : `a ${typeof value}`} ${String(value)}`;
}
