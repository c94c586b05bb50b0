import { toolDocument } from "../src/runtime/catalog.js";
import { percentile, retrievalMetrics, type RetrievalMetrics } from "../src/runtime/search/evaluate.js";
import type { SearchDocument, ToolIndex } from "../src/runtime/search/types.js";
import type { DatasetQuery, DatasetTool } from "../src/cli/retrieval-data.js";
import { createHash } from "node:crypto";
import path from "node:path";

/** Shared by the retrieval benchmark and the tuning script: documents, splits, one run. */

// The data sets are not in the repository: name where they are (the defaults are this project's own machine).
export const SEAL_DIR = process.env.SEAL_TOOLS_DIR ?? "/work/shared/data/retrieval/seal-tools";
export const GITHUB_CATALOG = process.env.GITHUB_CATALOG_FILE ?? "/work/shared/data/catalogs/github-mcp-server.tools.json";

/** A file of bench/data, found from this module's own folder, whatever the working directory. */
export const benchData = (file: string): string => path.join(import.meta.dirname, "data", file);

/** One plugin per `server`, the way search-bench builds them, as index documents. */
export function documentsByServer(tools: readonly DatasetTool[]): Map<string, SearchDocument[]> {
  const groups = new Map<string, SearchDocument[]>();
  for (const tool of tools) {
    const docs = groups.get(tool.server) ?? [];
    docs.push(toolDocument(tool.server, tool.server, tool));
    groups.set(tool.server, docs);
  }
  return groups;
}

/** A fixed half of the queries by a hash of their id: "tune" to choose settings, "held-out" to report. */
export function splitQueries(queries: readonly DatasetQuery[]): { tune: DatasetQuery[]; heldOut: DatasetQuery[] } {
  const tune: DatasetQuery[] = [];
  const heldOut: DatasetQuery[] = [];
  for (const q of queries) (createHash("sha1").update(q.id).digest()[0]! % 2 === 0 ? tune : heldOut).push(q);
  return { tune, heldOut };
}

export interface RunResult {
  metrics: RetrievalMetrics;
  p50: number;
  p95: number;
  buildMs: number;
}

export function runIndex(make: () => ToolIndex, groups: Map<string, SearchDocument[]>, queries: readonly DatasetQuery[]): RunResult {
  const started = performance.now();
  const index = make();
  for (const [plugin, docs] of groups) index.setPluginDocuments(plugin, docs);
  const buildMs = performance.now() - started;
  const times: number[] = [];
  const rankings = queries.map((q) => {
    const t0 = performance.now();
    const ranked = index.search(q.query, { limit: 10 }).hits.map((h) => h.name);
    times.push(performance.now() - t0);
    return { relevant: q.relevant, ranked };
  });
  return { metrics: retrievalMetrics(rankings), p50: percentile(times, 50), p95: percentile(times, 95), buildMs };
}

/** The original runtime's scorer, for reference: +3 per query word found in the name, +1 elsewhere. */
export function createSubstringIndex(): ToolIndex {
  const docs = new Map<string, SearchDocument[]>();
  return {
    engine: "substring",
    setPluginDocuments: (plugin, documents) => void docs.set(plugin, [...documents]),
    removePlugin: (plugin) => void docs.delete(plugin),
    size: (plugin) => (plugin ? (docs.get(plugin)?.length ?? 0) : [...docs.values()].reduce((n, d) => n + d.length, 0)),
    search(query, options = {}) {
      const words = query.toLowerCase().split(/\s+/).filter((w) => w.length > 0);
      const hits = [];
      for (const list of docs.values()) {
        for (const doc of list) {
          const name = doc.name.toLowerCase();
          const rest = `${doc.fields.description ?? ""} ${doc.fields.params ?? ""}`.toLowerCase();
          let score = 0;
          for (const w of words) score += (name.includes(w) ? 3 : 0) + (rest.includes(w) ? 1 : 0);
          if (score > 0) hits.push({ plugin: doc.plugin, kind: doc.kind, name: doc.name, score });
        }
      }
      hits.sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));
      return { hits: hits.slice(0, options.limit ?? hits.length), total: hits.length };
    },
  };
}
