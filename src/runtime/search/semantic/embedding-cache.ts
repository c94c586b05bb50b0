import { closeSync, constants, fstatSync, openSync, readdirSync, rmSync, statSync, writeSync } from "node:fs";
import path from "node:path";
import { cacheFileBound, readCacheFileSync } from "./cache-file.js";
import { replaceFileSync } from "../../../replace-file.js";
import { nodeCrypto } from "../../../node-crypto.js";
import { catalogCacheDir } from "../../catalog-cache/store.js";

/**
 * Where catalog embeddings are kept between runs, so a restart does not embed the catalog again.
 * Vectors are keyed by model and text, so a catalog restored from the persistent catalog cache
 * finds its vectors here without any server being started or any text embedded again. An
 * interface, so a shared store (a team gateway's) can stand in for the file one.
 */

export interface EmbeddingCache {
  get(key: string): Float32Array | undefined;
  set(key: string, vector: Float32Array): void;
  /** Write what changed since the last flush; never throws (a read-only disk only costs a re-embed). */
  flush(): void;
}

/** The cache key of one text under one model: text changes, or a new model, miss the cache. */
export function embeddingKey(modelId: string, text: string): string {
  return nodeCrypto().createHash("sha256").update(modelId).update("\0").update(text).digest("hex").slice(0, 32);
}

/** In memory only (tests, or no writable cache folder). */
export function memoryEmbeddingCache(): EmbeddingCache {
  const vectors = new Map<string, Float32Array>();
  return { get: (key) => vectors.get(key), set: (key, vector) => void vectors.set(key, vector), flush() {} };
}

/**
 * `embeddings/` beside the persistent catalogs (`catalogs/`, catalog-cache/store.ts) in the
 * runtime's cache folder; undefined when the catalog cache is off (AGENT_TOOLS_CATALOG_CACHE=off)
 * or the environment names no home: then vectors are kept in memory only.
 */
export function embeddingCacheDir(env: NodeJS.ProcessEnv): string | undefined {
  const catalogs = catalogCacheDir(env);
  return catalogs ? path.join(path.dirname(catalogs), "embeddings") : undefined;
}

/**
 * The files kept here: a model's catalog vectors, its WordNet sense vectors, and its piece table
 * (piece-vectors.ts); and the temporary of a write that died before its rename (replace-file.ts's
 * `.<name>.<pid>.<random hex>.tmp`, or `<name>.<pid>.tmp` from runtimes before it).
 */
const FILE = /^(?:(embeddings|senses|pieces)-.+\.bin(\.\d+\.tmp)?|\.(embeddings|senses|pieces)-.+\.bin\.\d+\.[0-9a-f]+\.tmp)$/;

/** The cache files in `dir` (per model: its vectors and its piece table) and their size, for `agent-tools cache`. */
export function describeEmbeddingCache(dir: string): { files: number; bytes: number } {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => FILE.test(n) && !n.endsWith(".tmp"));
  } catch {
    return { files: 0, bytes: 0 };
  }
  return { files: names.length, bytes: names.reduce((sum, n) => sum + (statSync(path.join(dir, n), { throwIfNoEntry: false })?.size ?? 0), 0) };
}

/** Remove every cache file in `dir` (and leftovers of interrupted writes); how many files went. */
export function clearEmbeddingCache(dir: string): number {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => FILE.test(n));
  } catch {
    return 0;
  }
  for (const n of names) rmSync(path.join(dir, n), { force: true });
  return names.filter((n) => !n.endsWith(".tmp")).length;
}

const MAGIC = 0x31455441; // "ATE1"
const KEY_BYTES = 16;
/** Past this many vectors, a flush keeps only those used by this process (the current catalogs). */
const MAX_ENTRIES = 250_000;

export interface FileCacheOptions {
  /** The file's name prefix: "embeddings" (catalog texts, the default) or "senses" (WordNet sense texts, expansion.ts). */
  kind?: "embeddings" | "senses";
  /**
   * At most this many vectors are kept: past it, a flush rewrites the file with three quarters of
   * it, the oldest not used by this process going first, then the oldest; below it, new vectors are
   * appended. Without it, a file past 250,000 vectors keeps only those this process used
   * (the current catalogs', which must all stay).
   */
  maxEntries?: number;
}

/**
 * One binary file per model (and kind): a header (magic, dimensions, count), then per vector a
 * 16-byte key and its float32 values. Read whole on first use; rewritten (temp file + rename, so a
 * crash never leaves half a file) when new vectors were added.
 */
export function fileEmbeddingCache(dir: string, modelId: string, dimensions: number, warn: (message: string) => void = () => {}, options: FileCacheOptions = {}): EmbeddingCache {
  const file = path.join(dir, `${options.kind ?? "embeddings"}-${modelId.replace(/[^a-zA-Z0-9_.-]/g, "_")}.bin`);
  let vectors: Map<string, Float32Array> | undefined;
  const used = new Set<string>();
  /**
   * A bounded file (`maxEntries`) is appended to while it has room: its records as this process
   * last read or wrote them, and the vectors set since (new keys only; a replaced one rewrites).
   * An intent's few dozen new senses then cost a small write, not the whole file (8 MB: 20–65 ms
   * of the main thread, measured 6 December).
   */
  let onDisk: number | undefined;
  let fresh: [string, Float32Array][] = [];
  /** The file is written whole at the next flush (an unbounded cache always is). */
  let rewrite = false;

  function load(): Map<string, Float32Array> {
    if (vectors) return vectors;
    vectors = new Map();
    const record = KEY_BYTES + dimensions * 4;
    // Twice the most a flush keeps (MAX_ENTRIES, unless this process used more): far above any real file.
    const buffer = readCacheFileSync("embedding cache", file, cacheFileBound("file of cached embeddings", 12 + 2 * MAX_ENTRIES * record), warn);
    if (!buffer) return vectors;
    if (buffer.length < 12 || buffer.readUInt32LE(0) !== MAGIC || buffer.readUInt32LE(4) !== dimensions || buffer.length !== 12 + buffer.readUInt32LE(8) * record) {
      warn(`embedding cache ${file} is not in the expected format; it will be rebuilt`);
      return vectors;
    }
    const count = buffer.readUInt32LE(8);
    onDisk = count;
    // One copy of the values, aligned, then a view per vector.
    const values = new Float32Array(count * dimensions);
    for (let i = 0; i < count; i++) {
      const at = 12 + i * record;
      const key = buffer.toString("hex", at, at + KEY_BYTES);
      const view = values.subarray(i * dimensions, (i + 1) * dimensions);
      view.set(new Float32Array(buffer.buffer.slice(buffer.byteOffset + at + KEY_BYTES, buffer.byteOffset + at + record)));
      vectors.set(key, view);
    }
    return vectors;
  }

  return {
    get(key) {
      const found = load().get(key);
      if (found) used.add(key);
      return found;
    },
    set(key, vector) {
      if (vector.length !== dimensions) return;
      const known = load();
      if (options.maxEntries === undefined || known.has(key)) rewrite = true;
      else fresh.push([key, vector]);
      known.set(key, vector);
      used.add(key);
    },
    flush() {
      if ((!rewrite && !fresh.length) || !vectors) return;
      const record = KEY_BYTES + dimensions * 4;
      const added = fresh;
      const whole = rewrite;
      fresh = [];
      rewrite = false;
      try {
        if (options.maxEntries !== undefined && !whole && onDisk !== undefined && onDisk + added.length <= options.maxEntries && appendRecords(file, onDisk, added, record)) {
          onDisk += added.length;
          return;
        }
        const entries = kept([...vectors], used, options.maxEntries);
        const buffer = Buffer.alloc(12 + entries.length * record);
        buffer.writeUInt32LE(MAGIC, 0);
        buffer.writeUInt32LE(dimensions, 4);
        buffer.writeUInt32LE(entries.length, 8);
        writeRecords(buffer, 12, entries, record);
        replaceFileSync(file, buffer);
        onDisk = entries.length;
        if (options.maxEntries !== undefined && entries.length < vectors.size) {
          // Memory follows the file's bound: what was left out of the file is let go here too.
          vectors = new Map(entries);
          for (const key of used) if (!vectors.has(key)) used.delete(key);
        }
      } catch (error) {
        warn(`could not write the embedding cache ${file}: ${(error as Error).message}`);
      }
    },
  };
}

/** Each entry's 16-byte key and float32 values, one record after another from `at`. */
function writeRecords(buffer: Buffer, at: number, entries: readonly [string, Float32Array][], record: number): void {
  entries.forEach(([key, vector], i) => {
    buffer.write(key, at + i * record, KEY_BYTES, "hex");
    Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).copy(buffer, at + i * record + KEY_BYTES);
  });
}

/**
 * `entries` appended to a file of `count` records and its count updated; false (nothing written)
 * when the file is not the one this process knows (missing, or another process changed its size):
 * the caller rewrites it whole. A crash between the two writes leaves a size that does not match
 * the count, which the next reader rebuilds (it is a cache).
 */
function appendRecords(file: string, count: number, entries: readonly [string, Float32Array][], record: number): boolean {
  let fd: number;
  try {
    // Non-blocking: whatever took the file's place since it was read must not hold the flush.
    fd = openSync(file, constants.O_RDWR | (constants.O_NONBLOCK ?? 0));
  } catch {
    return false;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size !== 12 + count * record) return false;
    const buffer = Buffer.alloc(entries.length * record);
    writeRecords(buffer, 0, entries, record);
    writeSync(fd, buffer, 0, buffer.length, 12 + count * record);
    const header = Buffer.alloc(4);
    header.writeUInt32LE(count + entries.length, 0);
    writeSync(fd, header, 0, 4, 8);
    return true;
  } finally {
    closeSync(fd);
  }
}

/** The entries a flush writes (in the map's order: oldest first), per `FileCacheOptions.maxEntries`. */
function kept(entries: [string, Float32Array][], used: ReadonlySet<string>, max: number | undefined): [string, Float32Array][] {
  if (max === undefined) return entries.length <= MAX_ENTRIES ? entries : entries.filter(([key]) => used.has(key));
  if (entries.length <= max) return entries;
  // Down to three quarters of the bound, so the appends that follow have room before the next rewrite.
  const target = Math.floor((max * 3) / 4);
  let drop = entries.length - target;
  const out = entries.filter(([key]) => used.has(key) || drop-- <= 0);
  return out.length > target ? out.slice(out.length - target) : out;
}
