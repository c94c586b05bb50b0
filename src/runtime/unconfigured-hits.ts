import type { SearchHit } from "./search/index.js";

/**
 * Hits of plugins that are not configured are shown (marked, with what to set) but weigh less
 * than a configured plugin's hit of about the same score: a user who asks "read a file" with the
 * filesystem plugin running wants read_file before GitHub's get_file_contents, while "list github
 * issues" still finds GitHub's list_issues because nothing configured comes close.
 */
export const UNCONFIGURED_WEIGHT = 0.9;

export function demoteUnconfigured(hits: readonly SearchHit[], configured: (prefix: string) => boolean): SearchHit[] {
  const weight = (hit: SearchHit) => hit.score * (configured(hit.plugin) ? 1 : UNCONFIGURED_WEIGHT);
  // Array.prototype.sort is stable, so equal weights keep the index's order.
  return [...hits].sort((a, b) => weight(b) - weight(a));
}
