import { createBm25fIndex } from "./bm25f.js";
import { createPlainBm25Index } from "./bm25-baseline.js";
import { createMiniSearchIndex } from "./minisearch-index.js";
import type { ToolIndex } from "./types.js";

/**
 * The runtime's one search index over every plugin's tools and skills. Two engines implement it
 * (the owned BM25F and minisearch), plus the plain BM25 yardstick; the default is the one that
 * measured best on held-out queries (see README "Discovery").
 */

export type { FieldName, SearchAnswer, SearchDocument, SearchFields, SearchHit, SearchKind, SearchOptions, ToolIndex } from "./types.js";
export { FIELD_NAMES } from "./types.js";

export const SEARCH_ENGINES = ["bm25f", "minisearch", "bm25"] as const;
export type SearchEngineName = (typeof SEARCH_ENGINES)[number];
export const DEFAULT_SEARCH_ENGINE: SearchEngineName = "bm25f";

export function isSearchEngineName(value: unknown): value is SearchEngineName {
  return typeof value === "string" && (SEARCH_ENGINES as readonly string[]).includes(value);
}

export function createToolIndex(engine: SearchEngineName = DEFAULT_SEARCH_ENGINE): ToolIndex {
  switch (engine) {
    case "bm25f":
      return createBm25fIndex();
    case "minisearch":
      return createMiniSearchIndex();
    case "bm25":
      return createPlainBm25Index();
  }
}
