import { readQueries, readTools } from "../src/cli/retrieval-data.js";
import { BM25F_DEFAULTS, createBm25fIndex } from "../src/runtime/search/bm25f.js";
import { createMiniSearchIndex } from "../src/runtime/search/minisearch-index.js";
import { documentsByServer, runIndex, SEAL_DIR, splitQueries } from "./retrieval-kit.js";

/**
 * The tuning grid, on the Seal-Tools dev "tune" half only (the held-out half and the GitHub set
 * are for bench/retrieval.ts). Prints settings sorted by Recall@5, then nDCG@10.
 * Run: node --import tsx bench/tune.ts
 */

const groups = documentsByServer(readTools(`${SEAL_DIR}/tools.json`));
const { tune } = splitQueries(readQueries(`${SEAL_DIR}/queries.jsonl`));
const rows: { label: string; r5: number; ndcg: number }[] = [];
for (const expansion of [0, 0.3, 0.5, 1]) {
  for (const name of [2, 3, 4]) {
    for (const nameB of [0.3, 0.5, 0.75]) {
      for (const plugin of [0, 0.4]) {
        const run = runIndex(
          () => createBm25fIndex({ expansion, weights: { ...BM25F_DEFAULTS.weights, name, plugin }, b: { ...BM25F_DEFAULTS.b, name: nameB } }),
          groups,
          tune,
        );
        rows.push({ label: `bm25f expansion ${expansion} name ${name} b(name) ${nameB} plugin ${plugin}`, r5: run.metrics.recallAt5, ndcg: run.metrics.ndcgAt10 });
      }
    }
  }
  const mini = runIndex(() => createMiniSearchIndex({ expansion }), groups, tune);
  rows.push({ label: `minisearch expansion ${expansion}`, r5: mini.metrics.recallAt5, ndcg: mini.metrics.ndcgAt10 });
}
rows.sort((a, b) => b.r5 - a.r5 || b.ndcg - a.ndcg);
for (const row of rows) console.log(`${(row.r5 * 100).toFixed(1)}%  nDCG ${row.ndcg.toFixed(3)}  ${row.label}`);
