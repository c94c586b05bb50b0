/**
 * What a search says of the plugins that are not configured. They are searched at all so that a
 * user who asks "list github issues" learns that the GitHub plugin has list_issues and needs
 * GITHUB_TOKEN. But such a hit is nothing to act on: its call can only answer NOT_CONFIGURED. Until
 * 7 December they were hits, weighed 0.9 of a configured one, and still outranked working tools
 * ("find my release checklist note": n8n's find-node-types first, above the notes server's
 * search_notes; 4 of the 10 hits, about 290 of the answer's 740 tokens). Now they are never hits:
 * each such plugin with a hit among the first `limit` places of the ranking (ranked-window.ts)
 * gets one line in the answer's `setup`, saying what to set and naming what matched.
 */

/** Names a setup line gives, in rank order; the rest are counted. */
export const SETUP_LINE_NAMES = 3;

/** `set GITHUB_TOKEN to use: list_issues, search_issues` (`toSet`: describeMissing's words). */
export function setupLine(toSet: string, names: readonly string[]): string {
  const shown = names.slice(0, SETUP_LINE_NAMES).join(", ");
  const rest = names.length > SETUP_LINE_NAMES ? `, +${names.length - SETUP_LINE_NAMES} more` : "";
  return `${toSet} to use: ${shown}${rest}`;
}
