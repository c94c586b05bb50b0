import { inMemoryAdapterKind, inMemoryManifests, IN_MEMORY_KIND } from "../src/cli/in-memory-fleet.js";
import { readQueries, readTools, type DatasetQuery, type DatasetTool } from "../src/cli/retrieval-data.js";
import { createLogger } from "../src/log.js";
import { createRuntime } from "../src/runtime/runtime.js";
import { createPlainBm25Index } from "../src/runtime/search/bm25-baseline.js";
import { retrievalMetrics } from "../src/runtime/search/evaluate.js";
import type { HybridIndex, HybridSettings } from "../src/runtime/search/semantic/hybrid.js";
import { apiIntentVariants } from "./api-intents-variants.js";
import { benchData, documentsByServer, GITHUB_CATALOG, runIndex, SEAL_DIR, splitQueries } from "./retrieval-kit.js";

/**
 * The fusion grid of the hybrid engine, on the data this project may tune on: the own dev sets
 * (bench/data/mcp-fleet-* and bench/data/api-intents.jsonl) and Seal-Tools dev's "tune" half (its
 * first SEAL_TUNE_QUERIES queries by default: on a loaded 2-core machine every long query costs a
 * second of embedding). Runs search-bench's code path (in-memory plugins, runtime.search), so the
 * embedded texts are the same and the cache (AGENT_TOOLS_CACHE_DIR) serves both. One line per
 * setting: R@5 (and its ratio to plain BM25), C@5 and nDCG@10 on each set.
 * Sets: fleet, api, api-stripped, api-opaque (bench/api-intents-variants.ts), github, seal-tune.
 * Run: [TUNE_SETS=fleet,api] node --import tsx bench/semantic-tune.ts [SEAL_TUNE_QUERIES] ['{"lexicalWeight":[0.7,0.8],"serverWeight":[0,0.1]}']
 */

const sealCount = Number(process.argv[2] ?? 150);
const axes: Record<string, number[]> = JSON.parse(process.argv[3] ?? '{"lexicalWeight":[1,0.8,0.7,0.6,0.5],"mmrLambda":[1,0.85,0.7]}');
type TuneSet = { label: string; tools: DatasetTool[]; queries: DatasetQuery[] };
// Each set is read only when picked: seal-tune and the API sets read the Seal-Tools files.
let apiSets: TuneSet[] | undefined;
const apiSet = (label: string) => () => (apiSets ??= apiIntentVariants()).find((s) => s.label === label)!;
const loaders: Record<string, () => TuneSet> = {
  fleet: () => ({ label: "fleet", tools: readTools(benchData("mcp-fleet.tools.json")), queries: readQueries(benchData("mcp-fleet-tasks.jsonl")) }),
  // The API intents as written, and two harder variants (names stripped from the intents, opaque tool names).
  api: apiSet("api"),
  "api-stripped": apiSet("api-stripped"),
  "api-opaque": apiSet("api-opaque"),
  github: () => ({ label: "github", tools: readTools(GITHUB_CATALOG, "github"), queries: readQueries(benchData("github-queries.jsonl")) }),
  "seal-tune": () => ({ label: "seal-tune", tools: readTools(`${SEAL_DIR}/tools.json`), queries: splitQueries(readQueries(`${SEAL_DIR}/queries.jsonl`)).tune.slice(0, sealCount) }),
};
// TUNE_SETS=fleet,api picks some of them (default all; seal-tune only with SEAL_TUNE_QUERIES > 0).
const known = Object.keys(loaders);
const picked = process.env.TUNE_SETS?.split(",").map((label) => label.trim()).filter(Boolean) ?? known;
const unknown = picked.filter((label) => !known.includes(label));
if (unknown.length > 0) {
  console.error(`TUNE_SETS names unknown set(s): ${unknown.join(", ")}; the known ones are ${known.join(", ")}`);
  process.exit(2);
}
const runnable = picked.filter((label) => label !== "seal-tune" || sealCount > 0);
if (runnable.length === 0) {
  console.error(`nothing to run: TUNE_SETS=${process.env.TUNE_SETS} with SEAL_TUNE_QUERIES ${sealCount} (seal-tune needs more than 0)`);
  process.exit(2);
}
const sets = runnable.map((label) => loaders[label]!());
let grid: Partial<HybridSettings>[] = [{}];
for (const [key, values] of Object.entries(axes)) grid = grid.flatMap((g) => values.map((v) => ({ ...g, [key]: v })));

const pct = (x: number) => `${(100 * x).toFixed(1)}`.padStart(5);
const lines = new Map<string, string[]>();
for (const set of sets) {
  const plain = runIndex(createPlainBm25Index, documentsByServer(set.tools), set.queries).metrics.recallAt5;
  const runtime = await createRuntime({
    manifests: inMemoryManifests(set.tools, set.label),
    adapterKinds: { [IN_MEMORY_KIND]: inMemoryAdapterKind },
    facadeMode: "compact",
    semanticWaitMs: Number.POSITIVE_INFINITY,
    log: createLogger("semantic-tune", "warn"),
  });
  const session = runtime.createSession("tune");
  const index = runtime.index as HybridIndex;
  const started = performance.now();
  for (const q of set.queries) await runtime.search(session, { query: q.query, limit: 1 });
  console.error(`${set.label}: catalog and ${set.queries.length} queries embedded in ${((performance.now() - started) / 1000).toFixed(1)} s; plain BM25 R@5 ${pct(plain)}`);
  for (const settings of grid) {
    index.tune({ ...settings });
    const rankings = [];
    for (const q of set.queries) {
      const outcome = await runtime.search(session, { query: q.query, limit: 10 });
      rankings.push({ relevant: q.relevant, ranked: (outcome.kind === "search" ? outcome.payload.hits : []).map((h) => h.name) });
    }
    const m = retrievalMetrics(rankings);
    const key = JSON.stringify(settings);
    lines.set(key, [...(lines.get(key) ?? []), `${set.label} R@5 ${pct(m.recallAt5)} (${(m.recallAt5 / plain).toFixed(2)}×) C@5 ${pct(m.coverageAt5)} nDCG ${m.ndcgAt10.toFixed(3)}`]);
  }
  await runtime.close();
}
for (const [key, parts] of lines) console.log(`${key.padEnd(60)} ${parts.join(" | ")}`);
