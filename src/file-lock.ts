import { mkdir, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { readBoundedFile, type FileBound } from "./bounded-file.js";
import { listen, unlisten, type Cancellation } from "./cancel.js";
import { replaceFile } from "./replace-file.js";

/**
 * An advisory lock between processes, held around work on a file that several processes share
 * (two runtimes started by two client windows, both calling a server that rewrites one file).
 *
 * It is proper-lockfile's: the lock is a folder made with mkdir (atomic on every local file
 * system), its mtime refreshed while held. A holder that died (SIGKILL, a crash, a machine that
 * slept) stops refreshing it, and its lock is taken over once older than its stale age
 * (LOCK_STALE_MS unless the caller says otherwise): a crashed runtime never blocks the others for
 * longer. A holder that exits normally, or on a signal, removes it (proper-lockfile's exit hook).
 * Used by an mcp block's lockFile (adapters/mcp/call-gate.ts) and by the OAuth token store's
 * refresh (adapters/mcp/oauth-token-store.ts).
 *
 * Waiting is this module's own loop rather than proper-lockfile's retries: the wait ends at the
 * caller's deadline or cancellation, which its retry options cannot say.
 *
 * proper-lockfile records no holder, so a wait that ran out could name the lock but not the
 * process to look at. The holder (pid, host name, since when) is written to `<lock>.holder` once
 * the lock is taken and removed before it is let go. Beside the lock, not in it: proper-lockfile
 * removes its folder with rmdir, which fails on a folder that holds a file (the lock could then
 * never be let go nor taken over). The record is a courtesy: one that is missing, unreadable, or
 * left by an earlier holder (it names another folder, or a process of this host that is gone) is
 * not named, and the lock works the same without it (a runtime of an older version, or any other
 * proper-lockfile user, takes it without a record).
 */

/** How long a lock that is not refreshed is still honoured (refreshed every quarter of it while held), by default. */
export const LOCK_STALE_MS = 10_000;

/** The longest pause between two tries: a lock held for a few ms (a memory write) is seen free soon after. */
const MOST_PAUSE_MS = 200;

/** Who holds a lock, as its holder recorded it. */
export interface LockHolder {
  pid: number;
  host: string;
  /** Epoch ms when it took the lock. */
  since: number;
}

/** The wait for the lock ran out before another process let it go. */
export class FileLockBusyError extends Error {
  constructor(
    readonly lockFile: string,
    readonly waitedMs: number,
    /** The holding process, when it recorded itself. */
    readonly holder?: LockHolder,
  ) {
    super(`${lockFile} stayed locked by another process${holder ? ` (${holderWords(holder)})` : ""} for the ${waitedMs} ms this call could wait`);
    this.name = "FileLockBusyError";
  }

  /** " (pid 1234 on host x, holding it since 12:03:04)" to put after "another process", or "" when it is not known. */
  get byWhom(): string {
    return this.holder ? ` (${holderWords(this.holder)})` : "";
  }

  /** How to free the lock, for a hint: the holder's process to look at when known, else any other runtime. */
  removeAdvice(what: string): string {
    const { holder, lockFile } = this;
    if (!holder) return `with no other ${what} running, remove the folder ${lockFile}`;
    return `the holder is pid ${holder.pid} on host ${holder.host}; if that process is gone (or hung), remove the folder ${lockFile}`;
  }
}

/** "pid 1234 on host x, holding it since 12:03:04" (local time). */
function holderWords(holder: LockHolder): string {
  return `pid ${holder.pid} on host ${holder.host}, holding it since ${new Date(holder.since).toTimeString().slice(0, 8)}`;
}

/** Where the holder of `lockFile` records itself. */
export function holderFile(lockFile: string): string {
  return `${lockFile}.holder`;
}

/** A record is a line of JSON: anything past this is no record. */
const HOLDER_FILE: FileBound = {
  limit: 4096,
  kind: "lock holder record",
  notRegularFix: () => "remove it",
  tooLargeFix: () => "Remove it",
};

/**
 * What the record says, and which lock folder it was written for (its inode): a record left by a
 * holder that died before removing it names a folder that is gone.
 */
interface HolderRecord extends LockHolder {
  lock: number;
}

/** Record this process as the holder of the lock it just took (best effort: the lock holds without it). */
async function recordHolder(lockFile: string): Promise<HolderRecord | undefined> {
  try {
    const record: HolderRecord = { pid: process.pid, host: os.hostname(), since: Date.now(), lock: (await stat(lockFile)).ino };
    await replaceFile(holderFile(lockFile), `${JSON.stringify(record)}\n`);
    return record;
  } catch {
    return undefined;
  }
}

/** The holder of `lockFile` as recorded, when the record is this lock's and its process may be alive; undefined otherwise. */
export async function readHolder(lockFile: string): Promise<LockHolder | undefined> {
  try {
    const [bytes, lock] = await Promise.all([readBoundedFile(holderFile(lockFile), HOLDER_FILE), stat(lockFile)]);
    const record = JSON.parse(bytes.toString("utf8")) as Partial<HolderRecord>;
    const { pid, host, since } = record;
    if (!Number.isInteger(pid) || typeof host !== "string" || !Number.isFinite(since) || record.lock !== lock.ino) return undefined;
    if (host === os.hostname() && !alive(pid as number)) return undefined;
    return { pid: pid as number, host, since: since as number };
  } catch {
    return undefined;
  }
}

/** Whether a process of this host with that pid exists (one of another user's answers EPERM: it exists). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Remove this process's record, unless another process has replaced it (it took the lock over from this one). */
async function forgetHolder(lockFile: string, mine: HolderRecord): Promise<void> {
  try {
    const record = JSON.parse((await readBoundedFile(holderFile(lockFile), HOLDER_FILE)).toString("utf8")) as Partial<HolderRecord>;
    if (record.pid === mine.pid && record.since === mine.since && record.host === mine.host) await rm(holderFile(lockFile), { force: true });
  } catch {
    // Missing or unreadable: nothing of this process's to remove.
  }
}

export interface FileLockWait {
  /** Epoch ms: past it, stop waiting and throw FileLockBusyError. */
  until: number;
  /** The caller's cancellation: the wait stops with its reason. */
  cancel?: Cancellation;
  /** Told when the lock was taken over while held (this process stalled past the stale age). */
  onCompromised?: (error: Error) => void;
  /**
   * The lock's stale age in ms, default LOCK_STALE_MS. Every process taking one lock must use the
   * same: a holder refreshes it every quarter of its own, which must stay under the waiters'.
   */
  staleMs?: number;
}

/** A pause of `ms` that ends early, rejecting with its reason, when `cancel` fires. */
function pause(ms: number, cancel: Cancellation | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(cancel?.reason);
    };
    const timer = setTimeout(() => {
      if (cancel) unlisten(cancel, onAbort);
      resolve();
    }, ms);
    if (cancel) listen(cancel, onAbort);
  });
}

/**
 * Take the lock `lockFile` (its folder is made when missing), waiting while another process holds
 * it; resolves to the function that lets it go. A cancel that fires while the lock is being taken
 * lets it go again and rejects: the caller gave up, and must not run what the lock guards.
 */
export async function acquireFileLock(lockFile: string, wait: FileLockWait): Promise<() => Promise<void>> {
  // Loaded on the first lock: proper-lockfile brings graceful-fs, which patches fs at import.
  const { default: lockfile } = await import("proper-lockfile");
  await mkdir(path.dirname(lockFile), { recursive: true });
  const began = Date.now();
  const stale = wait.staleMs ?? LOCK_STALE_MS;
  let pauseMs = 10;
  for (;;) {
    if (wait.cancel?.aborted) throw wait.cancel.reason;
    let release: () => Promise<void>;
    try {
      release = await lockfile.lock(lockFile, {
        lockfilePath: lockFile,
        realpath: false,
        stale,
        update: stale / 4,
        retries: 0,
        // Its default throws out of a timer, which would end the process.
        onCompromised: wait.onCompromised ?? (() => undefined),
      });
    } catch (error) {
      if ((error as { code?: unknown }).code !== "ELOCKED") throw error;
      const left = wait.until - Date.now();
      if (left <= 0) throw new FileLockBusyError(lockFile, Date.now() - began, await readHolder(lockFile));
      await pause(Math.min(pauseMs, left), wait.cancel);
      pauseMs = Math.min(pauseMs * 2, MOST_PAUSE_MS);
      continue;
    }
    const record = await recordHolder(lockFile);
    const letGo = async (): Promise<void> => {
      if (record) await forgetHolder(lockFile, record);
      await release();
    };
    if (wait.cancel?.aborted) {
      await letGo().catch(() => undefined);
      throw wait.cancel.reason;
    }
    return letGo;
  }
}
