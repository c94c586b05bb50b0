import { inMemoryAdapterKind, inMemoryManifests, IN_MEMORY_KIND } from "../src/cli/in-memory-fleet.js";
import { readQueries, readTools, type DatasetQuery, type DatasetTool } from "../src/cli/retrieval-data.js";
import { createLogger } from "../src/log.js";
import { createRuntime } from "../src/runtime/runtime.js";
import { queryClauses } from "../src/runtime/search/clauses.js";
import type { HybridIndex } from "../src/runtime/search/semantic/hybrid.js";
import { queryTerms } from "../src/runtime/search/tokenize.js";
import { apiIntentVariants } from "./api-intents-variants.js";
import { benchData, GITHUB_CATALOG, SEAL_DIR, splitQueries } from "./retrieval-kit.js";

/**
 * The experiment of issue #19, session 8: a fusion weight learned per query feature. Each query of
 * every set is ranked at several lexical weights through runtime.search (the hybrid engine, as
 * semantic-tune does); then, per bucket of a feature (the query's number of terms, of clauses, or
 * both), the weight that gives the best mean R@5 over the training sets (the dev set, GitHub and
 * Seal-Tools' tune half, each set counting alike) is chosen, and every set is scored with the
 * chosen weights against today's fixed 0.8. Not kept (docs/search-log.md, "Figures").
 * Run: node --import tsx bench/fusion-policy.ts
 */

const WEIGHTS = [1, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4];
const DEFAULT_WEIGHT = 0.8;
const TRAINING = ["fleet", "github", "seal-tune"];

interface Row {
  set: string;
  terms: number;
  clauses: number;
  /** R@5 at each of WEIGHTS. */
  recall: number[];
}

async function rankAtWeights(label: string, tools: readonly DatasetTool[], sets: { label: string; queries: readonly DatasetQuery[] }[]): Promise<Row[]> {
  const runtime = await createRuntime({
    manifests: inMemoryManifests(tools, label),
    adapterKinds: { [IN_MEMORY_KIND]: inMemoryAdapterKind },
    facadeMode: "compact",
    semanticWaitMs: Number.POSITIVE_INFINITY,
    log: createLogger("fusion-policy", "warn"),
    env: {},
  });
  const session = runtime.createSession("fusion-policy");
  const index = runtime.index as HybridIndex;
  const rows: Row[] = [];
  for (const set of sets) {
    const mine = set.queries.map((q) => ({ set: set.label, terms: queryTerms(q.query).length, clauses: Math.max(1, queryClauses(q.query).length), recall: [] as number[] }));
    for (const weight of WEIGHTS) {
      index.tune({ lexicalWeight: weight });
      for (const [i, q] of set.queries.entries()) {
        const outcome = await runtime.search(session, { query: q.query, limit: 5 });
        const top = new Set((outcome.kind === "search" ? outcome.payload.hits : []).map((h) => h.name));
        const wanted = [...new Set(q.relevant)];
        mine[i]!.recall.push(wanted.filter((r) => top.has(r)).length / wanted.length);
      }
    }
    rows.push(...mine);
    console.error(`${set.label}: ${set.queries.length} queries at ${WEIGHTS.length} weights`);
  }
  await runtime.close();
  return rows;
}

const seal = splitQueries(readQueries(`${SEAL_DIR}/queries.jsonl`));
const api = apiIntentVariants();
const rows = [
  ...(await rankAtWeights("fleet", readTools(benchData("mcp-fleet.tools.json")), [{ label: "fleet", queries: readQueries(benchData("mcp-fleet-tasks.jsonl")) }])),
  ...(await rankAtWeights("github", readTools(GITHUB_CATALOG), [{ label: "github", queries: readQueries(benchData("github-queries.jsonl")) }])),
  ...(await rankAtWeights("api", api.find((s) => s.label === "api")!.tools, api.filter((s) => s.label !== "api-opaque"))),
  ...(await rankAtWeights("api-opaque", api.find((s) => s.label === "api-opaque")!.tools, api.filter((s) => s.label === "api-opaque"))),
  ...(await rankAtWeights("seal", readTools(`${SEAL_DIR}/tools.json`), [{ label: "seal-tune", queries: seal.tune }, { label: "seal-held", queries: seal.heldOut }])),
];

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const labels = [...new Set(rows.map((r) => r.set))];
const pct = (x: number) => (100 * x).toFixed(1);
console.log(`fixed weights: ${labels.map((l) => `${l} ${WEIGHTS.map((w, i) => `${w}:${pct(mean(rows.filter((r) => r.set === l).map((r) => r.recall[i]!)))}`).join(" ")}`).join("\n               ")}`);
const features: Record<string, (r: Row) => string> = {
  terms: (r) => `${Math.min(r.terms, 9) >> 1}`,
  clauses: (r) => `${Math.min(r.clauses, 3)}`,
  both: (r) => `${r.clauses > 1 ? "several" : "one"} clause, ${r.terms <= 3 ? "≤3" : r.terms <= 6 ? "4–6" : "7+"} terms`,
};
const base = WEIGHTS.indexOf(DEFAULT_WEIGHT);
for (const [name, bucketOf] of Object.entries(features)) {
  const chosen = new Map<string, number>();
  for (const bucket of new Set(rows.filter((r) => TRAINING.includes(r.set)).map(bucketOf))) {
    const inBucket = rows.filter((r) => TRAINING.includes(r.set) && bucketOf(r) === bucket);
    const score = WEIGHTS.map((_, i) => mean(TRAINING.map((s) => inBucket.filter((r) => r.set === s)).filter((rs) => rs.length > 0).map((rs) => mean(rs.map((r) => r.recall[i]!)))));
    // Ties go to the weight nearest today's.
    chosen.set(bucket, score.reduce((best, s, i) => (s > score[best]! + 1e-12 || (Math.abs(s - score[best]!) <= 1e-12 && Math.abs(WEIGHTS[i]! - DEFAULT_WEIGHT) < Math.abs(WEIGHTS[best]! - DEFAULT_WEIGHT)) ? i : best), base));
  }
  console.log(`\nper ${name}: ${[...chosen].map(([b, i]) => `${b} → ${WEIGHTS[i]}`).join(", ")}`);
  console.log(`  R@5 fixed ${DEFAULT_WEIGHT} → learned: ${labels.map((l) => {
    const rs = rows.filter((r) => r.set === l);
    return `${l} ${pct(mean(rs.map((r) => r.recall[base]!)))} → ${pct(mean(rs.map((r) => r.recall[chosen.get(bucketOf(r)) ?? base]!)))}`;
  }).join(" | ")}`);
}
process.exit(0);
