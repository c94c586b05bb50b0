import type { SearchAnswer, SearchHit } from "./search/index.js";

/**
 * The first `limit` entries of a search, and how many hits passed, without having the index rank
 * and hand over every match (thousands, on a large fleet and a broad query) when a few are shown.
 *
 * What is picked from a ranking: a hit that does not `pass` (a plugin this caller may not use) is
 * left out and not counted; a hit of a plugin that is not `configured` is never an entry (its call
 * could only answer NOT_CONFIGURED) and is not counted either: when it ranks among the first
 * `limit` places, its name is kept under its plugin in `unconfigured`, for the answer to say in one
 * line what that plugin would offer once configured (unconfigured-hits.ts). The first `limit`
 * configured hits that pass become entries (`build`; a hit it cannot describe is left out and not
 * counted either), and every other configured hit that passes only counts in `total`.
 *
 * When every hit of the scope counts (`allCounted`: no plugin this caller may not use, and none
 * that is not configured, has a document in it), the index is first asked for a window of its
 * ranking: what is needed plus as much again and a little, for what `build` can drop. That answer
 * is final when it provably equals the unlimited one: the window held every match, or it filled
 * every entry, so each hit past it only counts (the total is the hits counted plus every match
 * past the window). Otherwise the index ranks everything: with an unconfigured plugin in scope the
 * hits past the window could not be counted unseen, and on 2,400 and 24,000 BM25F tools the full
 * ranking costs about what the window does (scoring every document is most of either).
 * test/search.window.test.ts compares both ways with the unlimited ranking.
 */
export interface RankedWindow<T> {
  /** The index's ranking, cut after `limit` hits when one is given. */
  search: (limit?: number) => SearchAnswer;
  limit: number;
  configured: (prefix: string) => boolean;
  pass: (hit: SearchHit) => boolean;
  build: (hit: SearchHit) => T | undefined;
  /** Every hit of the scope passes `pass` and is of a configured plugin (so the hits past the window can be counted without seeing them). */
  allCounted: boolean;
}

export interface Ranked<T> {
  entries: T[];
  /** The configured hits that pass, shown or not. */
  total: number;
  /** Prefix → the names of its hits among the first `limit` places, for each plugin that is not configured, in rank order. */
  unconfigured: Map<string, string[]>;
}

export function windowSize(limit: number): number {
  return 2 * limit + 10;
}

export function pickRanked<T>(opts: RankedWindow<T>): Ranked<T> {
  if (opts.allCounted) {
    const head = opts.search(windowSize(opts.limit));
    const picked = walk(head.hits, opts);
    if (head.hits.length >= head.total) return picked;
    if (picked.entries.length === opts.limit) return { ...picked, total: picked.total + head.total - head.hits.length };
  }
  return walk(opts.search().hits, opts);
}

function walk<T>(hits: readonly SearchHit[], opts: RankedWindow<T>): Ranked<T> {
  const entries: T[] = [];
  const unconfigured = new Map<string, string[]>();
  let total = 0;
  // Places taken so far, by entries and by unconfigured hits alike, in the index's order.
  let places = 0;
  for (const hit of hits) {
    if (!opts.pass(hit)) continue;
    if (!opts.configured(hit.plugin)) {
      if (places < opts.limit) {
        places += 1;
        unconfigured.set(hit.plugin, [...(unconfigured.get(hit.plugin) ?? []), hit.name]);
      }
      continue;
    }
    if (entries.length < opts.limit) {
      const entry = opts.build(hit);
      if (entry === undefined) continue;
      entries.push(entry);
      places += 1;
    }
    total += 1;
  }
  return { entries, total, unconfigured };
}
