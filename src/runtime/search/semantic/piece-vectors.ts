import path from "node:path";
import { cacheFileBound, readCacheFileSync } from "./cache-file.js";
import { replaceFileSync } from "../../../replace-file.js";
import { unitVector } from "./sentence-model.js";

/**
 * Approximate sentence vectors distilled from the sentence model itself: the model is run once over
 * each word piece of its own vocabulary alone (8,000 pieces for USE lite: seconds, once, then kept
 * in the cache folder beside the catalog embeddings), and a text's vector is the weighted mean of
 * its pieces' vectors. Embedding a text then costs its tokenisation and a few dozen vector adds
 * (well under a millisecond) instead of about 0.6 ms of model CPU per piece.
 *
 * The weights are smooth inverse frequency: a piece of unigram probability p (the tokenizer's own
 * log-probability) counts a / (a + p), so "the", "s" and "," count little and rare, specific
 * pieces much. The vectors are close enough to the model's to rank a catalog semantically while the
 * model embeds it (dev set R@5 56.7% instead of 59.8%, docs/search-log.md "Speed at 10,000 tools"),
 * not to replace it.
 */

/** The model's side: its vocabulary (piece, log-probability), its tokenizer, and one inference over piece ids. */
export interface PieceModel {
  vocabulary: readonly (readonly [string, number])[];
  encode(text: string): number[];
  /** One vector per piece id, each embedded as a text of that piece alone. */
  embedPieces(ids: number[]): Promise<ArrayLike<number>[]>;
}

export interface PieceVectors {
  /** The weighted mean of `text`'s piece vectors, unit length. */
  embed(text: string): Float32Array;
}

/** The smoothing of the inverse-frequency weight (SIF's usual value; 1e-2 and 1e-4 measured no better). */
const SIF_A = 1e-3;
/** Pieces per model call while building the table. */
const PIECE_BATCH = 256;
const MAGIC = 0x31505441; // "ATP1"

/** Where a model's piece table is kept: `pieces-<model id>.bin` in the embeddings folder. */
export function pieceTableFile(dir: string, modelId: string): string {
  return path.join(dir, `pieces-${modelId.replace(/[^a-zA-Z0-9_.-]/g, "_")}.bin`);
}

function readTable(file: string, count: number, dims: number, warn: (message: string) => void): Float32Array | undefined {
  // Its size is known: one of another size is rebuilt (quietly, as always); one far bigger is not even read.
  const buffer = readCacheFileSync("piece table", file, cacheFileBound("piece table", 2 * (12 + count * dims * 4)), warn);
  if (!buffer) return undefined;
  if (buffer.length !== 12 + count * dims * 4 || buffer.readUInt32LE(0) !== MAGIC || buffer.readUInt32LE(4) !== count || buffer.readUInt32LE(8) !== dims) return undefined;
  return new Float32Array(buffer.buffer.slice(buffer.byteOffset + 12, buffer.byteOffset + buffer.length));
}

function writeTable(file: string, table: Float32Array, count: number, dims: number): void {
  const header = Buffer.alloc(12);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(count, 4);
  header.writeUInt32LE(dims, 8);
  replaceFileSync(file, Buffer.concat([header, Buffer.from(table.buffer, table.byteOffset, table.byteLength)]));
}

/**
 * The piece table of `model`: read from `file` when it is there and whole, else built by running
 * the model over every piece and written there (a failed write only costs building it again).
 */
export async function loadPieceVectors(model: PieceModel, dims: number, file: string | undefined, warn: (message: string) => void = () => {}): Promise<PieceVectors> {
  const count = model.vocabulary.length;
  let table = file ? readTable(file, count, dims, warn) : undefined;
  if (!table) {
    table = new Float32Array(count * dims);
    for (let start = 0; start < count; start += PIECE_BATCH) {
      const ids = Array.from({ length: Math.min(PIECE_BATCH, count - start) }, (_, i) => start + i);
      const vectors = await model.embedPieces(ids);
      vectors.forEach((v, i) => table!.set(unitVector(v), (start + i) * dims));
    }
    if (file) {
      try {
        writeTable(file, table, count, dims);
      } catch (error) {
        warn(`could not write the piece table ${file}: ${(error as Error).message}`);
      }
    }
  }
  const weights = Float32Array.from(model.vocabulary, ([, logProbability]) => SIF_A / (SIF_A + Math.exp(logProbability)));
  const rows = table;
  return {
    embed(text) {
      const sum = new Float32Array(dims);
      for (const id of model.encode(text)) {
        if (id < 0 || id >= count) continue;
        const w = weights[id]!;
        const at = id * dims;
        for (let d = 0; d < dims; d++) sum[d]! += w * rows[at + d]!;
      }
      return unitVector(sum);
    },
  };
}
