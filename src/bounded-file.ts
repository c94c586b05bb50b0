import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { open } from "node:fs/promises";
import { inMiB } from "./byte-size.js";

/**
 * Read a small file a user placed (config.json, an envFile, a plugin.json, a skill module) without trusting its path.
 * `readFileSync` on `/dev/zero` or a huge file grows a buffer until the process dies (bad_alloc),
 * and on a FIFO with no writer it blocks forever. So: open non-blocking (a FIFO opens at once),
 * ask the open descriptor (not the path, which can change in between) what it is, refuse anything
 * but a regular file, refuse one over `limit`, and read at most `limit` bytes even if it grows.
 */

/** The most a settings file may hold: far above any real config or manifest (they are a few KiB). */
export const SETTINGS_FILE_LIMIT = 4 * 1024 * 1024;

/**
 * What a kind of file may be, and the words of its refusal: the fix differs (a settings file is
 * one the user names; a skill is one found in a folder).
 */
export interface FileBound {
  limit: number;
  /** The kind, in "over the 4 MiB limit for a settings file". */
  kind: string;
  /** After "not a regular file; ", given the limit in words ("4 MiB"). */
  notRegularFix(limit: string): string;
  /** After "nothing was read. ", given the limit in words. */
  tooLargeFix(limit: string): string;
}

export const SETTINGS_FILE: FileBound = {
  limit: SETTINGS_FILE_LIMIT,
  kind: "settings file",
  notRegularFix: (limit) => `name a regular file of at most ${limit} instead`,
  tooLargeFix: (limit) => `Name the right file, or cut it down below ${limit}`,
};

/** What the file is, or why it is too big; `problem` reads after the file's name ("is a FIFO, …"). */
export class FileShapeError extends Error {
  override readonly name = "FileShapeError";
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file} ${problem}`);
  }
}

/** The problem to put after a file's name, for a caller whose error already names the file. */
export function readProblem(error: unknown): string {
  return error instanceof FileShapeError ? error.problem : `cannot be read: ${(error as Error).message}`;
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isSocket()) return "a socket";
  return "not a regular file";
}

function shapeProblem(file: string, stats: Stats, bound: FileBound): FileShapeError | undefined {
  if (!stats.isFile()) {
    return new FileShapeError(file, `is ${kindOf(stats)}, not a regular file; ${bound.notRegularFix(inMiB(bound.limit))}`);
  }
  if (stats.size > bound.limit) return tooLarge(file, `is ${stats.size} bytes`, bound);
  return undefined;
}

function tooLarge(file: string, size: string, bound: FileBound): FileShapeError {
  return new FileShapeError(file, `${size}, over the ${inMiB(bound.limit)} (${bound.limit}-byte) limit for a ${bound.kind}; nothing was read. ${bound.tooLargeFix(inMiB(bound.limit))}`);
}

const CHUNK = 64 * 1024;

/**
 * The bytes read so far, in chunks (memory follows the file, not the limit), and the limit kept
 * while reading: a file's stat size can be stale or 0 (a file that grows, one under /proc).
 */
class Chunks {
  private readonly chunks: Buffer[] = [];
  private total = 0;
  private current: Buffer | undefined;

  constructor(
    private readonly file: string,
    private readonly bound: FileBound,
  ) {}

  next(): Buffer {
    this.current = Buffer.allocUnsafe(CHUNK);
    return this.current;
  }

  /** Keep `n` bytes of the last chunk; false at the end of the file. Throws past the limit. */
  take(n: number): boolean {
    if (n <= 0 || !this.current) return false;
    this.chunks.push(this.current.subarray(0, n));
    this.total += n;
    if (this.total > this.bound.limit) throw tooLarge(this.file, "grew past the limit while it was read", this.bound);
    return true;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks, this.total);
  }
}

// O_NONBLOCK: opening a FIFO must not wait for a writer (absent on Windows, where FIFOs are not files).
const FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** An open descriptor of `file` if it is a regular file within `bound` (closed and FileShapeError thrown otherwise). */
function openCheckedSync(file: string, bound: FileBound): number {
  const fd = openSync(file, FLAGS);
  try {
    const refused = shapeProblem(file, fstatSync(fd), bound);
    if (refused) throw refused;
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Read `file`'s bytes if it is a regular file within `bound`; otherwise throw FileShapeError. */
export function readBoundedFileSync(file: string, bound: FileBound): Buffer {
  const fd = openCheckedSync(file, bound);
  try {
    const chunks = new Chunks(file, bound);
    while (chunks.take(readSync(fd, chunks.next(), 0, CHUNK, null)));
    return chunks.bytes();
  } finally {
    closeSync(fd);
  }
}

/**
 * Throw FileShapeError unless `file` is a regular file within `bound`, reading none of it: for
 * a file something else reads next (a module `import()` reads; on a FIFO it waits forever). Its
 * path is read again then, so this guards against a mistake, not against a swap in between.
 */
export function checkBoundedFileSync(file: string, bound: FileBound): void {
  closeSync(openCheckedSync(file, bound));
}

/** Read `file` as UTF-8 text if it is a regular file of at most `limit` bytes; otherwise throw FileShapeError. */
export function readSettingsFileSync(file: string, limit: number = SETTINGS_FILE_LIMIT): string {
  return readBoundedFileSync(file, { ...SETTINGS_FILE, limit }).toString("utf8");
}

/** readBoundedFileSync, without blocking the event loop (nor a thread of libuv's pool, as readFile on a FIFO does). */
export async function readBoundedFile(file: string, bound: FileBound): Promise<Buffer> {
  return (await readBoundedFileWithStats(file, bound)).bytes;
}

/** readBoundedFile, with the open file's stats (its identity as it was read, not the path's a moment later). */
export async function readBoundedFileWithStats(file: string, bound: FileBound): Promise<{ bytes: Buffer; stats: Stats }> {
  const handle = await open(file, FLAGS);
  try {
    const stats = await handle.stat();
    const refused = shapeProblem(file, stats, bound);
    if (refused) throw refused;
    const chunks = new Chunks(file, bound);
    while (chunks.take((await handle.read(chunks.next(), 0, CHUNK, null)).bytesRead));
    return { bytes: chunks.bytes(), stats };
  } finally {
    await handle.close();
  }
}

/** readSettingsFileSync, without blocking the event loop. */
export async function readSettingsFile(file: string, limit: number = SETTINGS_FILE_LIMIT): Promise<string> {
  return (await readBoundedFile(file, { ...SETTINGS_FILE, limit })).toString("utf8");
}
