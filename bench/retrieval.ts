import { readQueries, readTools } from "../src/cli/retrieval-data.js";
import { createPlainBm25Index } from "../src/runtime/search/bm25-baseline.js";
import { createBm25fIndex } from "../src/runtime/search/bm25f.js";
import { formatMetrics } from "../src/runtime/search/evaluate.js";
import { createMiniSearchIndex } from "../src/runtime/search/minisearch-index.js";
import { makeQueryTokenizer, makeTokenizer } from "../src/runtime/search/tokenize.js";
import type { ToolIndex } from "../src/runtime/search/types.js";
import { benchData, createSubstringIndex, documentsByServer, GITHUB_CATALOG, runIndex, SEAL_DIR, splitQueries } from "./retrieval-kit.js";

/**
 * Retrieval benchmark: every engine beside the plain BM25 baseline, in one process, on
 *  - Seal-Tools dev: the "tune" half (settings were chosen on it) and the "held-out" half;
 *  - the GitHub MCP server's 117 tools with bench/data/github-queries.jsonl (40 queries written
 *    before any ranking was run on them), as a check that choices carry over to a real catalog.
 * Run: node --import tsx bench/retrieval.ts
 */

const noStem = { tokenize: makeTokenizer({ stem: false }), queryTerms: makeQueryTokenizer({ stem: false }) };
const engines: [string, () => ToolIndex][] = [
  ["substring (original)", createSubstringIndex],
  ["bm25 (plain baseline)", createPlainBm25Index],
  ["bm25f (default)", () => createBm25fIndex()],
  ["bm25f, no stemming", () => createBm25fIndex(noStem)],
  ["bm25f, no expansion", () => createBm25fIndex({ expansion: 0 })],
  ["minisearch", () => createMiniSearchIndex()],
  ["minisearch, no stemming", () => createMiniSearchIndex(noStem)],
  ["minisearch, no expansion", () => createMiniSearchIndex({ expansion: 0 })],
];

const seal = documentsByServer(readTools(`${SEAL_DIR}/tools.json`));
const { tune, heldOut } = splitQueries(readQueries(`${SEAL_DIR}/queries.jsonl`));
const github = documentsByServer(readTools(GITHUB_CATALOG, "github"));
const githubQueries = readQueries(benchData("github-queries.jsonl"));

const sets: [string, typeof seal, typeof tune][] = [
  [`Seal-Tools dev, tune half (${[...seal.values()].flat().length} tools)`, seal, tune],
  ["Seal-Tools dev, held-out half", seal, heldOut],
  ["GitHub MCP server (117 tools), own queries", github, githubQueries],
];
for (const [title, groups, queries] of sets) {
  console.log(`\n${title}`);
  let baseline = 0;
  for (const [label, make] of engines) {
    const run = runIndex(make, groups, queries);
    if (label.startsWith("bm25 (")) baseline = run.metrics.recallAt5;
    const ratio = baseline ? `  R@5 ×${(run.metrics.recallAt5 / baseline).toFixed(2)} of bm25` : "";
    console.log(`${formatMetrics(label, run.metrics)}  p50 ${run.p50.toFixed(2)} ms${ratio}`);
  }
}
