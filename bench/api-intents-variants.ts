import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readQueries, type DatasetQuery, type DatasetTool } from "../src/cli/retrieval-data.js";
import { splitWords, stem, STOP_WORDS } from "../src/runtime/search/tokenize.js";
import { apiIntentTools } from "./api-intents-catalog.js";
import { isMain } from "../scripts/is-main.js";
import { benchData } from "./retrieval-kit.js";

/**
 * Harder variants of the API-intents dev set, in the direction of issue #19's held-out API set,
 * where BM25F was no better than plain BM25 (1.01×: its intents share few words with the tool
 * names). Both are made mechanically from bench/data/api-intents.jsonl, never tuned by hand:
 * - "stripped": every intent word whose stem is a word of one of its own relevant tools' names is
 *   removed ("weekend getaway to Lisbon with a rental car" → "weekend getaway to Lisbon with a",
 *   because of carRental), so the name field no longer hands over the answer;
 * - "opaque": the tools keep their descriptions and parameters but are named `tool-<n>` (in
 *   catalog order), so neither BM25F's name field nor the embedded name says anything.
 * Run: node --import tsx bench/api-intents-variants.ts OUTDIR (writes api.tools.json,
 * api-stripped.jsonl, api-opaque.tools.json, api-opaque.jsonl for search-bench).
 */

const USAGE =
  "usage: node --import tsx bench/api-intents-variants.ts OUTDIR\n" +
  "  writes the API-intents catalog and its two harder variants to OUTDIR: api.tools.json, api-stripped.jsonl,\n" +
  "  api-opaque.tools.json, api-opaque.jsonl (Seal-Tools is read from $SEAL_TOOLS_DIR)";

const nameStems = (name: string) => new Set(splitWords(name).map(stem));

/** The intent without the words its relevant tools' names contain (stop words are left: they carry no match). */
export function strippedIntents(queries: readonly DatasetQuery[]): DatasetQuery[] {
  return queries.map((q) => {
    const shared = new Set(q.relevant.flatMap((name) => [...nameStems(name)]));
    const kept = q.query.split(/\s+/).filter((word) => {
      const words = splitWords(word);
      return words.length === 0 || words.every((w) => STOP_WORDS.has(w)) || !words.some((w) => shared.has(stem(w)));
    });
    return { ...q, query: kept.join(" ") };
  });
}

/**
 * The catalog with every tool named `tool-<n>`, and the queries' relevant names mapped the same way.
 * A relevant tool missing from the catalog throws: kept under its real name, it would hand the
 * answer over in a set whose point is that names say nothing.
 */
export function opaqueCatalog(tools: readonly DatasetTool[], queries: readonly DatasetQuery[]): { tools: DatasetTool[]; queries: DatasetQuery[] } {
  const renamed = new Map<string, string>();
  const out = tools.map((tool, n) => {
    const name = renamed.get(tool.name) ?? `tool-${n + 1}`;
    renamed.set(tool.name, name);
    return { ...tool, name };
  });
  const missing = [...new Set(queries.flatMap((q) => q.relevant.filter((r) => !renamed.has(r))))];
  if (missing.length > 0) throw new Error(`opaqueCatalog: relevant tool(s) not in the catalog: ${missing.join(", ")} (is $SEAL_TOOLS_DIR the Seal-Tools the queries were written for?)`);
  return { tools: out, queries: queries.map((q) => ({ ...q, relevant: q.relevant.map((r) => renamed.get(r)!) })) };
}

/** The three API-intents sets (as written, stripped, opaque) with their catalogs. */
export function apiIntentVariants(sealDir?: string): { label: string; tools: DatasetTool[]; queries: DatasetQuery[] }[] {
  const tools = apiIntentTools(sealDir);
  const queries = readQueries(benchData("api-intents.jsonl"));
  const opaque = opaqueCatalog(tools, queries);
  return [
    { label: "api", tools, queries },
    { label: "api-stripped", tools, queries: strippedIntents(queries) },
    { label: "api-opaque", tools: opaque.tools, queries: opaque.queries },
  ];
}

if (isMain(import.meta.url)) {
  const dir = process.argv[2];
  if (dir === "-h" || dir === "--help") {
    console.log(USAGE);
    process.exit(0);
  }
  if (!dir || dir.startsWith("-")) {
    console.error(dir ? `unknown option ${dir}\n${USAGE}` : `OUTDIR is missing\n${USAGE}`);
    process.exit(2);
  }
  mkdirSync(dir, { recursive: true });
  const [plain, stripped, opaque] = apiIntentVariants();
  const jsonl = (qs: DatasetQuery[]) => qs.map((q) => JSON.stringify(q)).join("\n") + "\n";
  writeFileSync(join(dir, "api.tools.json"), JSON.stringify(plain!.tools));
  writeFileSync(join(dir, "api-stripped.jsonl"), jsonl(stripped!.queries));
  writeFileSync(join(dir, "api-opaque.tools.json"), JSON.stringify(opaque!.tools));
  writeFileSync(join(dir, "api-opaque.jsonl"), jsonl(opaque!.queries));
  console.error(`written to ${dir}: api.tools.json (${plain!.tools.length} tools), api-stripped.jsonl, api-opaque.tools.json, api-opaque.jsonl (${plain!.queries.length} intents each)`);
}
