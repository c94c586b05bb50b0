/**
 * A task often names several needs in one query ("get the SLA of the compute service. Then back up
 * /home/data. Finally update the shipment"). Ranked as one bag of words, the need with the rarest
 * words wins the top five. Cut into clauses, each need gets its own ranking, and the engine merges
 * them (docs/search-log.md, "Figures": clause-aware BM25F moved Seal-Tools' tune half from R@5
 * 90.5% to 95.2%, +4.7 points).
 */

const CONNECTIVES = /(?:^|,?\s+)(?:and then|then|after that|afterwards|additionally|also|finally|lastly|next|as well as|and)\b,?\s*/i;
const SENTENCE_END = /(?<=[.!?;])\s+/;
/**
 * Each clause costs a model text and a pass over the catalog's vectors, so a query has a bound.
 * 12 rather than 8 (5 December, session 10): 62 of Seal-Tools' 700 queries name more than 8, and
 * their later needs were never ranked; with the 1,000-character query bound (runtime.ts) Seal-Tools'
 * R@5 went 94.7% → 95.6% and C@10 91.3% → 94.4% (10: 95.4%, 16: 95.7%). The dev sets have at most
 * 3 clauses a query, so nothing else moves (docs/search-log.md, "Long queries").
 */
const MAX_CLAUSES = 12;

/** The query's clauses of at least two words; one clause (or none) means the query is one need. */
export function queryClauses(query: string): string[] {
  const parts = query
    .split(SENTENCE_END)
    .flatMap((sentence) => sentence.split(CONNECTIVES))
    .map((s) => s.trim())
    .filter((s) => s.split(/\s+/).length >= 2);
  return parts.slice(0, MAX_CLAUSES);
}
