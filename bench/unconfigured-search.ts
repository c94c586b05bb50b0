import { readdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import type { DatasetQuery, DatasetTool } from "../src/cli/retrieval-data.js";
import { benchData, GITHUB_CATALOG } from "./retrieval-kit.js";

/**
 * What plugins that are not configured do to agent_tools_search's answers: each retrieval set's
 * catalog as configured in-memory plugins (as search-bench makes them), beside the runtime's bundled
 * plugins loaded with an empty environment (ollama configured; ccdd, ghcli, github, kite, n8n,
 * pocketbase and tasks not, their catalogs known from their manifests). Every query goes through
 * runtime.search at limit 10. Judged on the configured hits only: an unconfigured plugin's hit in
 * `hits` takes a place and is never relevant (its call answers NOT_CONFIGURED). Also: how many
 * answers have such a hit first, how many such hits an answer has, its o200k tokens, and its
 * `setup` lines. A set's server named like a bundled prefix gets "-mcp" added.
 *   node --import tsx bench/unconfigured-search.ts [DIST] [--engine hybrid|bm25f] [--sets dev,github,api]
 * DIST is the built runtime to measure (default ./dist), so two builds compare with one script.
 */

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : undefined;
};
const engine = flag("--engine") ?? "hybrid";
const sets = (flag("--sets") ?? "dev,github,api").split(",");
const dist = path.resolve(args[0] ?? "dist");
const root = path.resolve(dist, "..");
const load = async <M>(file: string) => (await import(pathToFileURL(path.join(dist, file)).href)) as M;

type Fleet = typeof import("../src/cli/in-memory-fleet.js");
const { inMemoryManifests, inMemoryAdapterKind, IN_MEMORY_KIND } = await load<Fleet>("cli/in-memory-fleet.js");
const { readTools, readQueries } = await load<typeof import("../src/cli/retrieval-data.js")>("cli/retrieval-data.js");
const { readManifest } = await load<typeof import("../src/plugins/manifest.js")>("plugins/manifest.js");
const { createRuntime } = await load<typeof import("../src/runtime/runtime.js")>("runtime/runtime.js");
const { createLogger } = await load<typeof import("../src/log.js")>("log.js");
const { createMemoryState } = await load<typeof import("../src/state/index.js")>("state/index.js");
const { retrievalMetrics } = await load<typeof import("../src/runtime/search/evaluate.js")>("runtime/search/evaluate.js");

const bundledDir = path.join(root, "plugins");
const bundled = await Promise.all(readdirSync(bundledDir).map((d) => readManifest(path.join(bundledDir, d, "plugin.json"))));
const taken = new Set(bundled.map((m) => m.prefix));

const available: Record<string, () => [DatasetTool[], DatasetQuery[]]> = {
  dev: () => [readTools(benchData("mcp-fleet.tools.json")), readQueries(benchData("mcp-fleet-tasks.jsonl"))],
  github: () => [readTools(GITHUB_CATALOG, "github"), readQueries(benchData("github-queries.jsonl"))],
  api: () => [readTools(process.env.API_INTENTS_CATALOG ?? "/tmp/api-intents.tools.json"), readQueries(benchData("api-intents.jsonl"))],
};

for (const set of sets) {
  const [tools, queries] = available[set]!();
  const renamed = tools.map((t) => (taken.has(t.server) ? { ...t, server: `${t.server}-mcp` } : t));
  const runtime = await createRuntime({
    manifests: [...inMemoryManifests(renamed, `${set}.tools.json`), ...bundled],
    adapterKinds: { [IN_MEMORY_KIND]: inMemoryAdapterKind },
    searchEngine: engine as "hybrid",
    facadeMode: "compact",
    semanticWaitMs: Number.POSITIVE_INFINITY,
    semanticModelWaitMs: Number.POSITIVE_INFINITY,
    log: createLogger("unconfigured-search", "error"),
    env: { ...(process.env.AGENT_TOOLS_CACHE_DIR ? { AGENT_TOOLS_CACHE_DIR: process.env.AGENT_TOOLS_CACHE_DIR } : {}) },
    state: createMemoryState(),
  });
  try {
    const idle = new Set(runtime.plugins.filter((p) => !p.configured).map((p) => p.manifest.prefix));
    const session = runtime.createSession("bench");
    await runtime.search(session, { query: "warm up the catalogs", limit: 1 });
    const rankings = [];
    let idleFirst = 0;
    let idleHits = 0;
    let tokens = 0;
    let setupLines = 0;
    for (const q of queries) {
      const outcome = await runtime.search(session, { query: q.query, limit: 10 });
      const payload = outcome.payload as { hits?: { plugin: string; name: string }[]; setup?: Record<string, string> };
      const hits = payload.hits ?? [];
      if (hits[0] && idle.has(hits[0].plugin)) idleFirst += 1;
      idleHits += hits.filter((h) => idle.has(h.plugin)).length;
      setupLines += Object.keys(payload.setup ?? {}).length;
      tokens += countTokens(JSON.stringify(payload));
      rankings.push({ relevant: q.relevant, ranked: hits.map((h) => (idle.has(h.plugin) ? `${h.plugin}!${h.name}` : h.name)) });
    }
    const m = retrievalMetrics(rankings);
    const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
    const n = queries.length;
    console.log(
      `${set} (${tools.length} tools + bundled, ${engine}, ${n} queries): R@1 ${pct(m.recallAt1)} R@5 ${pct(m.recallAt5)} MRR ${m.mrr.toFixed(3)}; unconfigured first ${idleFirst}/${n}; unconfigured hits ${(idleHits / n).toFixed(2)}/answer; setup lines ${(setupLines / n).toFixed(2)}/answer; ${Math.round(tokens / n)} tokens/answer`,
    );
  } finally {
    await runtime.close();
  }
}
