import { createBm25fIndex } from "./bm25f.js";
import { createPlainBm25Index } from "./bm25-baseline.js";
import { createMiniSearchIndex } from "./minisearch-index.js";
import { embeddingCacheDir, fileEmbeddingCache } from "./semantic/embedding-cache.js";
import { createHybridIndex } from "./semantic/hybrid.js";
import { loadSentenceModel } from "./semantic/sentence-model.js";
import type { ToolIndex } from "./types.js";

/**
 * The runtime's one search index over every plugin's tools and skills. Engines: "hybrid" (BM25F
 * fused with sentence embeddings, the default: see README "Semantic search"), the owned BM25F,
 * minisearch, and the plain BM25 yardstick.
 */

export type { FieldName, SearchAnswer, SearchDocument, SearchFields, SearchHit, SearchKind, SearchOptions, ToolIndex } from "./types.js";
export { FIELD_NAMES } from "./types.js";

export const SEARCH_ENGINES = ["hybrid", "bm25f", "minisearch", "bm25"] as const;
export type SearchEngineName = (typeof SEARCH_ENGINES)[number];
export const DEFAULT_SEARCH_ENGINE: SearchEngineName = "hybrid";

export function isSearchEngineName(value: unknown): value is SearchEngineName {
  return typeof value === "string" && (SEARCH_ENGINES as readonly string[]).includes(value);
}

export interface ToolIndexOptions {
  env?: NodeJS.ProcessEnv;
  /** Where the hybrid engine logs its one notice and cache problems. */
  log?: (message: string) => void;
  /** How long a search waits for the model and the embeddings before answering with BM25F alone (default: until done). */
  waitMs?: number;
  /** How long a search waits for the sentence model to load before answering with BM25F alone (default: until loaded). */
  modelWaitMs?: number;
}

/**
 * `AGENT_TOOLS_SEMANTIC_WAIT_MS`: how long a search waits for the semantic side before answering
 * with BM25F alone, in ms, or `ready` to always wait (tests that check semantic ranking through a
 * server). Unset or not a number: the caller's `waitMs`.
 */
export const SEMANTIC_WAIT_ENV = "AGENT_TOOLS_SEMANTIC_WAIT_MS";

function semanticWaitFromEnv(env: NodeJS.ProcessEnv): number | "ready" | undefined {
  const raw = env[SEMANTIC_WAIT_ENV]?.trim().toLowerCase();
  if (!raw) return undefined;
  if (raw === "ready") return "ready";
  const ms = Number(raw);
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

export function createToolIndex(engine: SearchEngineName = DEFAULT_SEARCH_ENGINE, options: ToolIndexOptions = {}): ToolIndex {
  switch (engine) {
    case "hybrid": {
      const env = options.env ?? process.env;
      const dir = embeddingCacheDir(env);
      const fromEnv = semanticWaitFromEnv(env);
      const waitMs = fromEnv === "ready" ? undefined : (fromEnv ?? options.waitMs);
      return createHybridIndex({
        lexical: createBm25fIndex(),
        loadModel: () => loadSentenceModel(env),
        ...(dir ? { cache: (model) => fileEmbeddingCache(dir, model.id, model.dimensions, options.log) } : {}),
        ...(waitMs !== undefined ? { waitMs } : {}),
        ...(options.modelWaitMs !== undefined ? { modelWaitMs: options.modelWaitMs } : {}),
        ...(options.log ? { log: options.log } : {}),
      });
    }
    case "bm25f":
      return createBm25fIndex();
    case "minisearch":
      return createMiniSearchIndex();
    case "bm25":
      return createPlainBm25Index();
  }
}
