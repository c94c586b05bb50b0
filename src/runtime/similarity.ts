import { distance } from "fastest-levenshtein";

/** Name similarity for "did you mean" and for routing misspelt names: 1 − edit distance / longer length. */

/** Edit distance (fastest-levenshtein's, a well-kept implementation of the same measure). */
export function levenshtein(a: string, b: string): number {
  return distance(a, b);
}

/**
 * Case and separator differences ("listIssues", "list-issues", "list_issues") do not count, nor
 * does the Unicode form: "café" written with a combining accent (`cafe\u0301`, as macOS file
 * names and some keyboards give it) is the same name as with the one character `é` (NFC).
 */
export function normalise(name: string): string {
  return name.normalize("NFC").replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase().replace(/[\s.:/-]+/g, "_");
}

/**
 * What a "was matched to" note adds when `sent` and `matched` differ in their Unicode form only:
 * the two look the same on screen, so the note says why they are not equal.
 */
export function unicodeFormNote(sent: string, matched: string): string {
  return sent !== matched && sent.normalize("NFC") === matched.normalize("NFC") ? " (the same letters, written in another Unicode form: combining accents instead of composed characters, or the other way round)" : "";
}

/** Whether `sent` names `candidate`: the same name but for case and separators (`listTickets`, `list-tickets`). */
export function namesSame(sent: string, candidate: string): boolean {
  return sent === candidate || normalise(sent) === normalise(candidate);
}

export function similarity(a: string, b: string): number {
  const x = normalise(a);
  const y = normalise(b);
  const longest = Math.max(x.length, y.length);
  return longest === 0 ? 1 : 1 - levenshtein(x, y) / longest;
}

/** Candidates ranked by similarity to `name`, best first, keeping those at or above `threshold`. */
export function closestNames(name: string, candidates: Iterable<string>, threshold = 0.4, limit = 3): string[] {
  return [...candidates]
    .map((candidate) => ({ candidate, score: similarity(name, candidate) }))
    .filter((c) => c.score >= threshold)
    .sort((a, b) => b.score - a.score || a.candidate.localeCompare(b.candidate))
    .slice(0, limit)
    .map((c) => c.candidate);
}

/**
 * The plugin prefixes to suggest for a name that is none: closestNames's, and first the one prefix
 * the name is the start of when exactly one is (`inv` for `inventory`: too short for a score
 * over the whole name to pass the threshold).
 */
export function closestPrefixes(name: string, prefixes: readonly string[], limit = 3): string[] {
  const start = foldName(name);
  const starting = start ? prefixes.filter((p) => foldName(p).startsWith(start)) : [];
  const close = closestNames(name, prefixes, 0.4, limit);
  const [only] = starting;
  return starting.length === 1 && only !== undefined ? [only, ...close.filter((c) => c !== only)].slice(0, limit) : close;
}

/**
 * The form two names are compared in when only case and `-`/`_` may differ ("Prod-DB" = "prod_db").
 * Routing uses this, not `similarity`: a score over whole names lets a shared part ("agent_tools_",
 * "_db") carry a call to the wrong plugin.
 */
export function foldName(name: string): string {
  return name.trim().toLowerCase().replace(/-/g, "_");
}

/**
 * The one candidate `name` folds to, or undefined when none or several do (two prefixes that differ
 * only by `-`/`_` are ambiguous, and an ambiguous name is never resolved).
 */
export function foldedMatch(name: string, candidates: Iterable<string>): string | undefined {
  const folded = foldName(name);
  const hits = [...candidates].filter((c) => foldName(c) === folded);
  return hits.length === 1 ? hits[0] : undefined;
}
