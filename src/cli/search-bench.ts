import { createLogger } from "../log.js";
import { createRuntime, type Runtime } from "../runtime/runtime.js";
import { formatMetrics, percentile, retrievalMetrics, type RetrievalMetrics } from "../runtime/search/evaluate.js";
import { DEFAULT_SEARCH_ENGINE, describeHybridSetup, type SearchEngineName } from "../runtime/search/index.js";
import { createMemoryState } from "../state/index.js";
import { IN_MEMORY_KIND, inMemoryAdapterKind, inMemoryManifests } from "./in-memory-fleet.js";
import { readQueries, readTools, type DatasetQuery } from "./retrieval-data.js";

/**
 * `agent-tools search-bench --tools FILE --queries FILE [--limit N] [--engine E]`: one in-memory
 * plugin per `server`, every query sent through runtime.search — the code path of
 * agent_tools_search — a {"id","ranked"} line per query on stdout, and the metrics with query
 * times on stderr, beside the plain BM25 baseline run the same way in the same process.
 *
 * The runtime reads the process environment as the server does (AGENT_TOOLS_CACHE_DIR and
 * AGENT_TOOLS_CATALOG_CACHE for where catalog vectors are kept, so a second run embeds nothing
 * again; AGENT_TOOLS_SEARCH_EXPANSION, AGENT_TOOLS_SEMANTIC*, AGENT_TOOLS_WORDNET_DIR): until
 * session 11 it ran with an empty one, embedding a large catalog afresh every run and with no way
 * to switch those off. Its shared state stays in memory, without audit: a benchmark is not a team
 * member (AGENT_TOOLS_REDIS_URL) and its queries are not calls to audit.
 */

export interface SearchBenchOptions {
  tools: string;
  queries: string;
  limit?: number;
  engine?: SearchEngineName;
  /** The environment the runtime reads (default: the process's). */
  env?: NodeJS.ProcessEnv;
  /** Also run the plain BM25 baseline (default true). */
  baseline?: boolean;
  writeLine?: (line: string) => void;
  report?: (line: string) => void;
}

export interface EngineRun {
  engine: SearchEngineName;
  metrics: RetrievalMetrics;
  p50Ms: number;
  p95Ms: number;
  /** The first search: listing every catalog into the index (and embedding it, or reading the cache). */
  warmUpMs: number;
}

async function runEngine(engine: SearchEngineName, options: SearchBenchOptions, queries: DatasetQuery[], writeLine?: (line: string) => void): Promise<EngineRun> {
  const tools = readTools(options.tools);
  const runtime: Runtime = await createRuntime({
    manifests: inMemoryManifests(tools, options.tools),
    adapterKinds: { [IN_MEMORY_KIND]: inMemoryAdapterKind },
    searchEngine: engine,
    facadeMode: "compact",
    // The benchmark ranks with the whole catalog embedded: the first search waits for it.
    semanticWaitMs: Number.POSITIVE_INFINITY,
    log: createLogger("search-bench", "warn"),
    env: options.env ?? process.env,
    state: createMemoryState(),
  });
  try {
    const session = runtime.createSession("search-bench");
    const limit = options.limit ?? 10;
    // The first search lists every catalog into the index; it is not a query to time.
    const warming = performance.now();
    await runtime.search(session, { query: "warm up the catalogs", limit: 1 });
    const warmUpMs = performance.now() - warming;
    const times: number[] = [];
    const rankings = [];
    for (const q of queries) {
      const started = performance.now();
      const outcome = await runtime.search(session, { query: q.query, limit });
      times.push(performance.now() - started);
      const hits = outcome.kind === "search" ? outcome.payload.hits : [];
      const ranked = hits.map((h) => h.name);
      writeLine?.(JSON.stringify({ id: q.id, ranked }));
      rankings.push({ relevant: q.relevant, ranked });
    }
    return { engine, metrics: retrievalMetrics(rankings), p50Ms: percentile(times, 50), p95Ms: percentile(times, 95), warmUpMs };
  } finally {
    await runtime.close();
  }
}

export async function searchBench(options: SearchBenchOptions): Promise<EngineRun[]> {
  const queries = readQueries(options.queries);
  const engine = options.engine ?? DEFAULT_SEARCH_ENGINE;
  const report = options.report ?? ((line: string) => process.stderr.write(`${line}\n`));
  if (engine === "hybrid") report(`hybrid: ${describeHybridSetup(options.env ?? process.env)}`);
  const runs = [await runEngine(engine, options, queries, options.writeLine ?? ((line) => process.stdout.write(`${line}\n`)))];
  if (options.baseline !== false && engine !== "bm25") runs.push(await runEngine("bm25", options, queries));
  for (const run of runs) {
    report(`${formatMetrics(run.engine === "bm25" ? "bm25 (plain baseline)" : run.engine, run.metrics)}  query p50 ${run.p50Ms.toFixed(2)} ms  p95 ${run.p95Ms.toFixed(2)} ms  first search ${(run.warmUpMs / 1000).toFixed(1)} s`);
  }
  const [main, base] = runs;
  if (main && base && base.metrics.recallAt5 > 0) report(`Recall@5 ratio ${main.engine}/bm25: ${(main.metrics.recallAt5 / base.metrics.recallAt5).toFixed(2)}×`);
  return runs;
}
