import { readQueries, readTools } from "../src/cli/retrieval-data.js";
import { createBm25fIndex } from "../src/runtime/search/bm25f.js";
import { createMiniSearchIndex } from "../src/runtime/search/minisearch-index.js";
import { createPlainBm25Index } from "../src/runtime/search/bm25-baseline.js";
import { formatMetrics } from "../src/runtime/search/evaluate.js";
import { makeTokenizer, makeQueryTokenizer } from "../src/runtime/search/tokenize.js";
import { SEAL_DIR, documentsByServer, splitQueries, runIndex, createSubstringIndex } from "../bench/retrieval-kit.js";
const tools = readTools(`${SEAL_DIR}/tools.json`);
const queries = readQueries(`${SEAL_DIR}/queries.jsonl`);
const { tune } = splitQueries(queries);
const groups = documentsByServer(tools);
const nostem = { tokenize: makeTokenizer({ stem: false }), queryTerms: makeQueryTokenizer({ stem: false }) };
const variants: [string, () => any][] = [
  ["substring", createSubstringIndex],
  ["bm25", createPlainBm25Index],
  ["bm25f", () => createBm25fIndex()],
  ["bm25f nostem", () => createBm25fIndex(nostem)],
  ["minisearch", () => createMiniSearchIndex()],
  ["minisearch nostem", () => createMiniSearchIndex(nostem)],
];
for (const [label, make] of variants) {
  const r = runIndex(make, groups, tune);
  console.log(formatMetrics(label, r.metrics), `p50 ${r.p50.toFixed(2)}ms build ${r.buildMs.toFixed(0)}ms`);
}
const gh = readTools("/work/shared/data/catalogs/github-mcp-server.tools.json", "github");
const ghq = readQueries("bench/data/github-queries.jsonl");
const ghg = documentsByServer(gh);
console.log("--- github");
for (const [label, make] of variants) {
  const r = runIndex(make, ghg, ghq);
  console.log(formatMetrics(label, r.metrics));
}
