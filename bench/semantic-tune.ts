import { readQueries, readTools } from "../src/cli/retrieval-data.js";
import { createBm25fIndex } from "../src/runtime/search/bm25f.js";
import { formatMetrics, retrievalMetrics } from "../src/runtime/search/evaluate.js";
import { embeddingCacheDir, fileEmbeddingCache } from "../src/runtime/search/semantic/embedding-cache.js";
import { createHybridIndex, type HybridSettings } from "../src/runtime/search/semantic/hybrid.js";
import { loadSentenceModel } from "../src/runtime/search/semantic/sentence-model.js";
import { documentsByServer, SEAL_DIR, splitQueries } from "./retrieval-kit.js";

/**
 * The fusion grid of the hybrid engine, on the data this project may tune on: Seal-Tools dev's
 * "tune" half and the own dev set (bench/data/mcp-fleet-*). Embeddings come from the cache
 * (AGENT_TOOLS_CACHE_DIR), so only the first run embeds. Prints one line per setting and set.
 * Run: node --import tsx bench/semantic-tune.ts
 */

const sets = [
  { label: "fleet", tools: "bench/data/mcp-fleet.tools.json", queries: readQueries("bench/data/mcp-fleet-tasks.jsonl") },
  { label: "seal-tune", tools: `${SEAL_DIR}/tools.json`, queries: splitQueries(readQueries(`${SEAL_DIR}/queries.jsonl`)).tune },
];
const grid: Partial<HybridSettings>[] = [];
for (const lexicalWeight of [1, 0.8, 0.7, 0.6, 0.5])
  for (const mmrLambda of [1, 0.85, 0.7])
    for (const clauseWeight of [0, 0.5]) grid.push({ lexicalWeight, mmrLambda, clauseWeight });

const results = new Map<string, string[]>();
for (const set of sets) {
  const index = createHybridIndex({
    lexical: createBm25fIndex(),
    loadModel: () => loadSentenceModel(),
    cache: (model) => fileEmbeddingCache(embeddingCacheDir(process.env) ?? ".tmp/embeddings", model.id, model.dimensions, console.error),
    log: console.error,
  });
  for (const [plugin, docs] of documentsByServer(readTools(set.tools))) index.setPluginDocuments(plugin, docs);
  const started = performance.now();
  for (const q of set.queries) await index.prepare!(q.query);
  console.error(`${set.label}: embedded catalog and ${set.queries.length} queries in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  for (const settings of grid) {
    index.tune(settings);
    const m = retrievalMetrics(set.queries.map((q) => ({ relevant: q.relevant, ranked: index.search(q.query, { limit: 10 }).hits.map((h) => h.name) })));
    const key = JSON.stringify(settings);
    results.set(key, [...(results.get(key) ?? []), formatMetrics(set.label, m)]);
  }
}
for (const [key, lines] of results) console.log(`${key}\n  ${lines.join("\n  ")}`);
