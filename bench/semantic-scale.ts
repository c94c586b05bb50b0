import { mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createBm25fIndex } from "../src/runtime/search/bm25f.js";
import { percentile } from "../src/runtime/search/evaluate.js";
import { fileEmbeddingCache } from "../src/runtime/search/semantic/embedding-cache.js";
import { createHybridIndex, type HybridIndex } from "../src/runtime/search/semantic/hybrid.js";
import { loadSentenceModel } from "../src/runtime/search/semantic/sentence-model.js";
import { synthetic, syntheticQueries } from "./synthetic-catalog.js";

/**
 * The hybrid engine at scale: a synthetic catalog (default 10,000 tools) embedded once into an
 * empty cache folder (wall and CPU time, memory), then a second index as after a restart (the
 * catalog comes from the cache file), then query p50/p95 over distinct 2–5-word queries, each
 * timed from `prepare` (the query's embedding) through `search`.
 * Run: node --expose-gc --import tsx bench/semantic-scale.ts [TOOLS]
 */

const size = Number(process.argv[2] ?? 10_000);
const groups = synthetic(size);
const queries = syntheticQueries(200, 11);
const dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-semantic-scale-"));
const gc = (globalThis as { gc?: () => void }).gc;
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
console.log(`load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs; ${size} tools in ${groups.size} plugins`);

const rssBefore = process.memoryUsage().rss;
let started = performance.now();
const load = await loadSentenceModel();
if (!("model" in load)) throw new Error(load.unavailable);
const model = load.model;
gc?.();
console.log(`model load ${(performance.now() - started).toFixed(0)} ms, RSS +${mb(process.memoryUsage().rss - rssBefore)} MB`);

function makeIndex(): HybridIndex {
  const index = createHybridIndex({ lexical: createBm25fIndex(), loadModel: async () => load, cache: (m) => fileEmbeddingCache(dir, m.id, m.dimensions) });
  for (const [plugin, docs] of groups) index.setPluginDocuments(plugin, docs);
  return index;
}

try {
  const rssModel = process.memoryUsage().rss;
  started = performance.now();
  const cpu = process.cpuUsage();
  const first = makeIndex();
  await first.prepare!("warm up");
  const cpuUsed = process.cpuUsage(cpu);
  gc?.();
  const file = statSync(path.join(dir, `embeddings-${model.id}.bin`)).size;
  console.log(
    `first run: embedded ${size} tools in ${((performance.now() - started) / 1000).toFixed(1)} s wall, ${((cpuUsed.user + cpuUsed.system) / 1e6).toFixed(1)} s CPU; cache file ${mb(file)} MB; RSS +${mb(process.memoryUsage().rss - rssModel)} MB over the loaded model`,
  );

  started = performance.now();
  const second = makeIndex();
  await second.prepare!("warm up");
  console.log(`restart: catalog from the cache in ${(performance.now() - started).toFixed(0)} ms`);

  const times: number[] = [];
  const embedTimes: number[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    await second.prepare!(q);
    const t1 = performance.now();
    second.search(q, { limit: 10 });
    times.push(performance.now() - t0);
    embedTimes.push(t1 - t0);
  }
  console.log(`query (embedding + search) p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms; of which the query embedding p50 ${percentile(embedTimes, 50).toFixed(1)} ms`);
  console.log(`process RSS ${mb(process.memoryUsage().rss)} MB, heap ${mb(process.memoryUsage().heapUsed)} MB`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
