import { inMemoryAdapterKind, inMemoryManifests, IN_MEMORY_KIND } from "../src/cli/in-memory-fleet.js";
import { readQueries, readTools, type DatasetQuery } from "../src/cli/retrieval-data.js";
import { createLogger } from "../src/log.js";
import { createRuntime } from "../src/runtime/runtime.js";
import { formatMetrics, retrievalMetrics } from "../src/runtime/search/evaluate.js";
import type { HybridIndex, HybridSettings } from "../src/runtime/search/semantic/hybrid.js";
import { SEAL_DIR, splitQueries } from "./retrieval-kit.js";

/**
 * The fusion grid of the hybrid engine, on the data this project may tune on: the own dev set
 * (bench/data/mcp-fleet-*) and Seal-Tools dev's "tune" half (its first SEAL_TUNE_QUERIES queries
 * by default: on a loaded 2-core machine every long query costs a second of embedding). Runs
 * search-bench's code path (in-memory plugins, runtime.search), so the embedded texts are the
 * same and the cache (AGENT_TOOLS_CACHE_DIR) serves both. One line per setting and set.
 * Run: node --import tsx bench/semantic-tune.ts [SEAL_TUNE_QUERIES]
 */

const sealCount = Number(process.argv[2] ?? 150);
const sets: { label: string; tools: string; queries: DatasetQuery[] }[] = [
  { label: "fleet", tools: "bench/data/mcp-fleet.tools.json", queries: readQueries("bench/data/mcp-fleet-tasks.jsonl") },
  { label: "seal-tune", tools: `${SEAL_DIR}/tools.json`, queries: splitQueries(readQueries(`${SEAL_DIR}/queries.jsonl`)).tune.slice(0, sealCount) },
];
const grid: Partial<HybridSettings>[] = [];
for (const lexicalWeight of [1, 0.8, 0.7, 0.6, 0.5]) for (const mmrLambda of [1, 0.85, 0.7]) grid.push({ lexicalWeight, mmrLambda });

const results = new Map<string, string[]>();
for (const set of sets) {
  const runtime = await createRuntime({
    manifests: inMemoryManifests(readTools(set.tools), set.tools),
    adapterKinds: { [IN_MEMORY_KIND]: inMemoryAdapterKind },
    facadeMode: "compact",
    semanticWaitMs: Number.POSITIVE_INFINITY,
    log: createLogger("semantic-tune", "warn"),
  });
  const session = runtime.createSession("tune");
  const index = runtime.index as HybridIndex;
  const started = performance.now();
  for (const q of set.queries) await runtime.search(session, { query: q.query, limit: 1 });
  console.error(`${set.label}: catalog and ${set.queries.length} queries embedded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  for (const settings of grid) {
    index.tune(settings);
    const rankings = [];
    for (const q of set.queries) {
      const outcome = await runtime.search(session, { query: q.query, limit: 10 });
      rankings.push({ relevant: q.relevant, ranked: (outcome.kind === "search" ? outcome.payload.hits : []).map((h) => h.name) });
    }
    const key = JSON.stringify(settings);
    results.set(key, [...(results.get(key) ?? []), formatMetrics(set.label, retrievalMetrics(rankings))]);
    console.log(`${key} ${formatMetrics(set.label, retrievalMetrics(rankings))}`);
  }
  await runtime.close();
}
for (const [key, lines] of results) console.log(`${key}\n  ${lines.join("\n  ")}`);
