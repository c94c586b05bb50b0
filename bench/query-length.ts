import os from "node:os";
import { inMemoryAdapterKind, inMemoryManifests, IN_MEMORY_KIND } from "../src/cli/in-memory-fleet.js";
import { readQueries, readTools, type DatasetQuery, type DatasetTool } from "../src/cli/retrieval-data.js";
import { createLogger } from "../src/log.js";
import { createRuntime } from "../src/runtime/runtime.js";
import { percentile, retrievalMetrics } from "../src/runtime/search/evaluate.js";
import { EXPANSION_DEFAULTS, EXPANSION_ENV } from "../src/runtime/search/expansion.js";
import { apiIntentVariants } from "./api-intents-variants.js";
import { benchData, GITHUB_CATALOG, SEAL_DIR } from "./retrieval-kit.js";

/**
 * What a long query keeps before it is ranked (issue #19; the runtime cuts a query at 500
 * characters, runtime.ts MAX_QUERY_CHARS, and Seal-Tools has 129 queries of 700 longer than that).
 * Each variant turns a query into the text the index ranks; the index is the runtime's own
 * (search-bench's in-memory fleet), asked the way runtime.search asks it (prepare, then search),
 * with a fresh runtime per variant and round so no query vector is reused: the times are each
 * query's own embedding and ranking. Catalog vectors come from AGENT_TOOLS_CACHE_DIR (embedded once).
 * Rounds interleave the variants (A B C A B C) so a load change on this shared machine hits all alike.
 * Run: QL_SETS=seal,fleet QL_VARIANTS=cut500,none QL_MODES=on,off QL_ROUNDS=2 node --import tsx bench/query-length.ts
 */

type Variant = (query: string) => string;

/** At most `max` characters, cut at the last sentence end within them, else at the last space past half. */
function sentenceCut(query: string, max: number): string {
  if (query.length <= max) return query;
  const head = query.slice(0, max);
  const end = Math.max(...[". ", "! ", "? ", "; "].map((mark) => head.lastIndexOf(mark)));
  if (end > max / 2) return head.slice(0, end + 1);
  const space = head.lastIndexOf(" ");
  return space > max / 2 ? head.slice(0, space) : head;
}

const VARIANTS: Record<string, Variant> = {
  cut500: (q) => q.slice(0, 500),
  cut750: (q) => q.slice(0, 750),
  cut1000: (q) => q.slice(0, 1000),
  none: (q) => q,
  sentence500: (q) => sentenceCut(q, 500),
  sentence1000: (q) => sentenceCut(q, 1000),
};

/**
 * How WordNet expansion of one-need intents runs (expansion.ts): as shipped, off (its environment
 * switch), or with a smaller pool of candidate senses per word (fewer sense texts to embed).
 */
const POOL = EXPANSION_DEFAULTS.sensePool;
const MODES: Record<string, () => void> = {
  on: () => {
    delete process.env[EXPANSION_ENV];
    EXPANSION_DEFAULTS.sensePool = POOL;
  },
  off: () => {
    process.env[EXPANSION_ENV] = "off";
    EXPANSION_DEFAULTS.sensePool = POOL;
  },
  pool4: () => {
    delete process.env[EXPANSION_ENV];
    EXPANSION_DEFAULTS.sensePool = 4;
  },
  pool3: () => {
    delete process.env[EXPANSION_ENV];
    EXPANSION_DEFAULTS.sensePool = 3;
  },
};

type Set = { label: string; tools: DatasetTool[]; queries: DatasetQuery[] };
let apiSets: Set[] | undefined;
const apiSet = (label: string) => () => (apiSets ??= apiIntentVariants()).find((s) => s.label === label)!;
const loaders: Record<string, () => Set> = {
  fleet: () => ({ label: "fleet", tools: readTools(benchData("mcp-fleet.tools.json")), queries: readQueries(benchData("mcp-fleet-tasks.jsonl")) }),
  api: apiSet("api"),
  "api-stripped": apiSet("api-stripped"),
  "api-opaque": apiSet("api-opaque"),
  github: () => ({ label: "github", tools: readTools(GITHUB_CATALOG, "github"), queries: readQueries(benchData("github-queries.jsonl")) }),
  seal: () => ({ label: "seal", tools: readTools(`${SEAL_DIR}/tools.json`), queries: readQueries(`${SEAL_DIR}/queries.jsonl`) }),
};

const list = (value: string | undefined, fallback: string[]) => value?.split(",").map((s) => s.trim()).filter(Boolean) ?? fallback;
const setNames = list(process.env.QL_SETS, ["seal"]);
const variantNames = list(process.env.QL_VARIANTS, ["cut500", "none"]);
const modeNames = list(process.env.QL_MODES, ["on"]);
const rounds = Number(process.env.QL_ROUNDS ?? 1);
/** A mistyped name or a missing cache folder exits 2 naming it, before any data set is read. */
function refuse(message: string): never {
  console.error(message);
  process.exit(2);
}
for (const [kind, names, known] of [
  ["QL_SETS", setNames, loaders],
  ["QL_VARIANTS", variantNames, VARIANTS],
  ["QL_MODES", modeNames, MODES],
] as const) {
  const unknown = names.filter((name) => !(name in known));
  if (unknown.length > 0) refuse(`${kind} names unknown ${unknown.join(", ")}; the known ones are ${Object.keys(known).join(", ")}`);
}
if (!process.env.AGENT_TOOLS_CACHE_DIR) refuse("set AGENT_TOOLS_CACHE_DIR to a scratch folder: the catalogs' vectors are embedded once and read from there");

const load = () => os.loadavg().map((x) => x.toFixed(1)).join(" ");
const pct = (x: number) => (100 * x).toFixed(1);

async function run(set: Set, variant: Variant, mode: string) {
  MODES[mode]!();
  const runtime = await createRuntime({
    manifests: inMemoryManifests(set.tools, set.label),
    adapterKinds: { [IN_MEMORY_KIND]: inMemoryAdapterKind },
    facadeMode: "compact",
    semanticWaitMs: Number.POSITIVE_INFINITY,
    semanticModelWaitMs: Number.POSITIVE_INFINITY,
    catalogCache: false,
    log: createLogger("query-length", "warn"),
  });
  try {
    const session = runtime.createSession("query-length");
    await runtime.search(session, { query: "warm up the catalogs", limit: 1 });
    const index = runtime.index;
    const times: number[] = [];
    const longTimes: number[] = [];
    const rankings = [];
    for (const q of set.queries) {
      const text = variant(q.query);
      const started = performance.now();
      await index.prepare?.(text, {});
      const ranked = index.search(text, { limit: 10 }).hits.map((h) => h.name);
      const ms = performance.now() - started;
      times.push(ms);
      if (q.query.length > 500) longTimes.push(ms);
      rankings.push({ relevant: q.relevant, ranked });
    }
    return { metrics: retrievalMetrics(rankings), p50: percentile(times, 50), p95: percentile(times, 95), longP50: longTimes.length ? percentile(longTimes, 50) : NaN, rankings };
  } finally {
    await runtime.close();
  }
}

console.log(`query-length: sets ${setNames.join(",")}, variants ${variantNames.join(",")}, expansion ${modeNames.join(",")}, ${rounds} round(s), load ${load()}, ${new Date().toISOString()}`);
for (const name of setNames) {
  const set = loaders[name]!();
  const long = set.queries.filter((q) => q.query.length > 500).length;
  const rows = new Map<string, string[]>();
  const first = new Map<string, string[][]>();
  for (let r = 0; r < rounds; r++) {
    for (const key of variantNames.flatMap((v) => modeNames.map((m) => `${v}/${m}`))) {
      const [v, mode] = key.split("/") as [string, string];
      const out = await run(set, VARIANTS[v]!, mode);
      first.set(key, first.get(key) ?? out.rankings.map((x) => x.ranked));
      const m = out.metrics;
      rows.set(key, [
        ...(rows.get(key) ?? []),
        `R@5 ${pct(m.recallAt5)} C@5 ${pct(m.coverageAt5)} C@10 ${pct(m.coverageAt10)}  p50 ${out.p50.toFixed(1)} p95 ${out.p95.toFixed(1)} ms (queries >500 chars: p50 ${out.longP50.toFixed(1)})  load ${load()}`,
      ]);
    }
  }
  const baseKey = `${variantNames[0]}/${modeNames[0]}`;
  const base = first.get(baseKey)!;
  console.log(`${name}: ${set.queries.length} queries, ${long} longer than 500 characters`);
  for (const [v, parts] of rows) {
    const changed = first.get(v)!.filter((ranked, i) => ranked.join("\n") !== base[i]!.join("\n")).length;
    for (const part of parts) console.log(`  ${v.padEnd(18)} ${part}  rankings changed vs ${baseKey}: ${changed}`);
  }
}
