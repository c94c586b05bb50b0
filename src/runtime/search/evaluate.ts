/**
 * Retrieval metrics over ranked name lists, with binary relevance: Recall@k (share of a query's
 * needed tools found in its top k, averaged over queries), nDCG@10, MRR, and latency percentiles.
 */

export interface JudgedRanking {
  relevant: readonly string[];
  ranked: readonly string[];
}

export interface RetrievalMetrics {
  queries: number;
  recallAt1: number;
  recallAt5: number;
  recallAt10: number;
  ndcgAt10: number;
  mrr: number;
  /** Share of queries with every relevant tool in the top 5 / top 10 (what a task needing several tools needs). */
  coverageAt5: number;
  coverageAt10: number;
}

function recallAt(k: number, { relevant, ranked }: JudgedRanking): number {
  if (relevant.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return relevant.filter((r) => top.has(r)).length / relevant.length;
}

function ndcgAt(k: number, { relevant, ranked }: JudgedRanking): number {
  const wanted = new Set(relevant);
  let dcg = 0;
  ranked.slice(0, k).forEach((name, i) => {
    if (wanted.has(name)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, wanted.size); i++) ideal += 1 / Math.log2(i + 2);
  return ideal ? dcg / ideal : 0;
}

function reciprocalRank({ relevant, ranked }: JudgedRanking): number {
  const wanted = new Set(relevant);
  const at = ranked.findIndex((name) => wanted.has(name));
  return at < 0 ? 0 : 1 / (at + 1);
}

export function retrievalMetrics(rankings: readonly JudgedRanking[]): RetrievalMetrics {
  const mean = (f: (r: JudgedRanking) => number) => (rankings.length ? rankings.reduce((sum, r) => sum + f(r), 0) / rankings.length : 0);
  return {
    queries: rankings.length,
    recallAt1: mean((r) => recallAt(1, r)),
    recallAt5: mean((r) => recallAt(5, r)),
    recallAt10: mean((r) => recallAt(10, r)),
    ndcgAt10: mean((r) => ndcgAt(10, r)),
    mrr: mean(reciprocalRank),
    coverageAt5: mean((r) => (recallAt(5, r) === 1 ? 1 : 0)),
    coverageAt10: mean((r) => (recallAt(10, r) === 1 ? 1 : 0)),
  };
}

/** The p-th percentile (0–100) of a list of numbers, nearest-rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function formatMetrics(label: string, m: RetrievalMetrics): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(6);
  return `${label.padEnd(28)} R@1 ${pct(m.recallAt1)}  R@5 ${pct(m.recallAt5)}  R@10 ${pct(m.recallAt10)}  nDCG@10 ${m.ndcgAt10.toFixed(3)}  MRR ${m.mrr.toFixed(3)}  C@5 ${pct(m.coverageAt5)}  C@10 ${pct(m.coverageAt10)}  (${m.queries} queries)`;
}
