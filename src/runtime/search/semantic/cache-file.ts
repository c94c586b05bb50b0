import { FileShapeError, readBoundedFileSync, type FileBound } from "../../../bounded-file.js";

/**
 * Reading and writing the files of the embeddings folder in the runtime's cache folder (the
 * catalog vectors and sense vectors, embedding-cache.ts; the piece table, piece-vectors.ts, read
 * in the model's worker thread). Anyone with the user's rights can put anything there.
 */

/**
 * What a cache file in the embeddings folder may be when it is read: a regular file (opened
 * non-blocking: a FIFO put there would block the read, on the main thread, and with it every
 * answer and the exit, for good), of at most `limit` bytes. Anything else is not read, said once,
 * and replaced by the next write (temp file + rename).
 */
export function cacheFileBound(kind: string, limit: number): FileBound {
  return { limit, kind, notRegularFix: () => "it is not read, and the next write replaces it", tooLargeFix: () => "The next write replaces it" };
}

/**
 * `file`'s bytes if it is a regular file within `bound`; undefined if it is absent or cannot be
 * read (as before: a miss, rebuilt), or is not a regular file or too large, which is said through
 * `warn` after `label` ("embedding cache /…/embeddings-use-lite-512-v1.bin is a FIFO (named pipe), …").
 */
export function readCacheFileSync(label: string, file: string, bound: FileBound, warn: (message: string) => void): Buffer | undefined {
  try {
    return readBoundedFileSync(file, bound);
  } catch (error: unknown) {
    if (error instanceof FileShapeError) warn(`${label} ${error.message}`);
    return undefined;
  }
}
