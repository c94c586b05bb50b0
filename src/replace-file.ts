import { randomBytes } from "node:crypto";
import { renameSync, rmSync, writeFileSync } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import path from "node:path";
import { createFoldersOf } from "./writable-file.js";

/**
 * Replacing a file whole: written to a temporary beside it (the same folder, so the rename stays
 * on one file system), then renamed over it, so a reader or a crash never sees half a file. The
 * one way every store writes its files (the catalog cache, the OAuth token store, the embeddings
 * cache files). The temporary is created exclusively (`wx`): whatever is at its path (a FIFO, on
 * which an open for writing waits for a reader; a link to another file) is never written through.
 * It is removed when the write or the rename fails, so no half-written temporary is left behind.
 */

export interface ReplaceOptions {
  /** The file's mode (0600 where it holds secrets); the platform's default (umask applied) when not given. */
  mode?: number;
  /** The mode of a folder made for it; the platform's default when not given. */
  dirMode?: number;
  /**
   * A fixed temporary path, for a store that adopts a complete temporary a crash left (the OAuth
   * token store's `.next`; its writers hold a lock, so one name serves). Whatever is there is
   * removed first. Default: a name no other writer uses (`.<name>.<pid>.<random>.tmp`).
   */
  temp?: string;
}

/** A temporary path beside `file` that no other process or write uses: pid and random bytes. */
function uniqueTemp(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
}

/** `replaceFile` for the main thread's synchronous writers (the embeddings cache files). */
export function replaceFileSync(file: string, data: string | Uint8Array, options: ReplaceOptions = {}): void {
  createFoldersOf(file, options.dirMode);
  const temp = options.temp ?? uniqueTemp(file);
  if (options.temp) rmSync(temp, { force: true });
  try {
    writeFileSync(temp, data, { flag: "wx", ...(options.mode === undefined ? {} : { mode: options.mode }) });
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * Replace `file` with `data`. `durable`: the temporary is fsynced before the rename and the folder
 * after it, so the new file survives a power loss too (a store whose loss cannot be rebuilt, such as
 * rotated OAuth tokens); a cache that is rebuilt on a miss does without the cost.
 */
export async function replaceFile(file: string, data: string | Uint8Array, options: ReplaceOptions & { durable?: boolean } = {}): Promise<void> {
  // Made one at a time (synchronously: a few stat calls), never by a recursive mkdir, which loops for ever under /proc.
  createFoldersOf(file, options.dirMode);
  const temp = options.temp ?? uniqueTemp(file);
  if (options.temp) await rm(temp, { force: true });
  try {
    const handle = await open(temp, "wx", options.mode);
    try {
      await handle.writeFile(data);
      if (options.durable) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
  if (options.durable) await syncFolder(path.dirname(file));
}

/** fsync a folder, so a rename in it survives a crash; not every platform can, and then the file itself is safe. */
async function syncFolder(dir: string): Promise<void> {
  try {
    const handle = await open(dir, "r");
    await handle.sync().finally(() => handle.close());
  } catch {
    // not every platform can fsync a directory
  }
}
