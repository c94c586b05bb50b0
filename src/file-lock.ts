import { mkdir } from "node:fs/promises";
import path from "node:path";
import { listen, unlisten, type Cancellation } from "./cancel.js";

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
 * caller's deadline or cancellation, which its retry options cannot say. The lock does not record
 * who holds it, so a wait that runs out can name the lock, not the holding process.
 */

/** How long a lock that is not refreshed is still honoured (refreshed every quarter of it while held), by default. */
export const LOCK_STALE_MS = 10_000;

/** The longest pause between two tries: a lock held for a few ms (a memory write) is seen free soon after. */
const MOST_PAUSE_MS = 200;

/** The wait for the lock ran out before another process let it go. */
export class FileLockBusyError extends Error {
  constructor(
    readonly lockFile: string,
    readonly waitedMs: number,
  ) {
    super(`${lockFile} stayed locked by another process for the ${waitedMs} ms this call could wait`);
    this.name = "FileLockBusyError";
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
 * it; resolves to the function that lets it go.
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
    try {
      return await lockfile.lock(lockFile, {
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
    }
    const left = wait.until - Date.now();
    if (left <= 0) throw new FileLockBusyError(lockFile, Date.now() - began);
    await pause(Math.min(pauseMs, left), wait.cancel);
    pauseMs = Math.min(pauseMs * 2, MOST_PAUSE_MS);
  }
}
