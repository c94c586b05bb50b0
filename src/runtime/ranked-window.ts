import type { SearchAnswer, SearchHit } from "./search/index.js";
import { UNCONFIGURED_WEIGHT } from "./unconfigured-hits.js";

/**
 * The first `limit` entries of a search, and how many hits passed, without having the index rank
 * and hand over every match (thousands, on a large fleet and a broad query) when a few are shown.
 *
 * What is picked from a ranking: hits of plugins that are not configured weigh less
 * (UNCONFIGURED_WEIGHT; a stable re-sort, so equal weights keep the index's order); a hit that
 * does not `pass` (a plugin this caller may not use) is left out and not counted; the first
 * `limit` hits that pass become entries (`build`; a hit it cannot describe is left out and not
 * counted either), and every other hit that passes only counts in `total`.
 *
 * The index is first asked for a window of its ranking: what is needed plus as much again and a
 * little, for what demotion and `build` can drop. That answer is final when it provably equals the
 * unlimited one: the window held every match, or the last entry taken weighs at least the
 * window's last score (every hit past the window scores at most that, and weighs at most its
 * score; at equal weight it comes later in the index's order). The total is then the passing hits
 * seen plus every match past the window, so this only works when every unseen hit passes
 * (`allPass`: no plugin this caller may not use has a document in the scope). Otherwise the index
 * ranks everything, as before. test/search.window.test.ts compares both ways with the unlimited ranking.
 */
export interface RankedWindow<T> {
  /** The index's ranking, cut after `limit` hits when one is given. */
  search: (limit?: number) => SearchAnswer;
  limit: number;
  configured: (prefix: string) => boolean;
  pass: (hit: SearchHit) => boolean;
  build: (hit: SearchHit) => T | undefined;
  /** Every hit of the scope passes `pass` (so the hits past the window can be counted without seeing them). */
  allPass: boolean;
}

export function windowSize(limit: number): number {
  return 2 * limit + 10;
}

export function pickRanked<T>(opts: RankedWindow<T>): { entries: T[]; total: number } {
  if (opts.allPass) {
    const head = opts.search(windowSize(opts.limit));
    const picked = walk(head.hits, opts);
    if (head.hits.length >= head.total) return { entries: picked.entries, total: picked.total };
    const edge = head.hits[head.hits.length - 1]!.score;
    if (picked.entries.length === opts.limit && picked.lastWeight >= edge) return { entries: picked.entries, total: picked.total + head.total - head.hits.length };
  }
  const { entries, total } = walk(opts.search().hits, opts);
  return { entries, total };
}

function walk<T>(hits: readonly SearchHit[], opts: RankedWindow<T>): { entries: T[]; total: number; lastWeight: number } {
  const weight = (hit: SearchHit) => hit.score * (opts.configured(hit.plugin) ? 1 : UNCONFIGURED_WEIGHT);
  const weighed = hits.map((hit) => ({ hit, weight: weight(hit) }));
  // Array.prototype.sort is stable, so equal weights keep the index's order.
  weighed.sort((a, b) => b.weight - a.weight);
  const entries: T[] = [];
  let total = 0;
  let lastWeight = Infinity;
  for (const { hit, weight: w } of weighed) {
    if (!opts.pass(hit)) continue;
    if (entries.length < opts.limit) {
      const entry = opts.build(hit);
      if (entry === undefined) continue;
      entries.push(entry);
      lastWeight = w;
    }
    total += 1;
  }
  return { entries, total, lastWeight };
}
