import { chmodSync, closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync, statSync } from "node:fs";
import { lstat, open, readFile, rename } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { stateHome } from "../paths.js";
import path from "node:path";
import { createFoldersOf, whyNotWritableFile } from "../writable-file.js";
import { unexpandedTilde } from "../config/tilde.js";
import { acquireFileLock } from "../file-lock.js";
import type { Logger } from "../adapters/types.js";
import type { AuditEntry, AuditLog } from "./types.js";

/**
 * The audit log as a JSONL file: one entry per line, appended with O_APPEND in one write each, so
 * concurrent writers on one host never interleave inside a line. Readers tolerate a torn last line.
 *
 * Its size is bounded (AGENT_TOOLS_AUDIT_MAX_BYTES, team.auditMaxBytes): once an append leaves the
 * file at the bound or past it, the file is renamed to `<file>.1` (`.1` to `.2`, …, the oldest
 * past AUDIT_KEPT_FILES dropped) and the next append makes a new one. Several runtimes may append
 * to one file (two client windows, a team's instances on one host): each opens the path for every
 * append, so a rename only sends the appends after it to the new file; the one that crossed the
 * bound rotates under a lock between processes (file-lock.ts), and only if the path is still that
 * same file (another process may have rotated it already). An append that opened the file just
 * before the rename lands in `.1`: no line is lost or written twice. The bound is one of size, not
 * of lines: a file may pass it by the lines appended while it is being rotated.
 */

/** The default bound of the audit file: about 19,000 entries of ~550 bytes. */
export const DEFAULT_AUDIT_MAX_BYTES = 10 * 1024 * 1024;
/** The rotated files kept beside the file (`.1` newest … `.3` oldest): at most 4 × the bound in all. */
export const AUDIT_KEPT_FILES = 3;
/** How long a rotation waits for another process's rotation to end before leaving it to the next append. */
const ROTATE_LOCK_WAIT_MS = 5_000;

/** "1234 bytes now" for the start's line about the audit log, or "none yet". */
export function auditFileSize(file: string): string {
  try {
    return `${statSync(file).size} bytes now`;
  } catch {
    return "none yet";
  }
}

/** `<file>.<n>`: the n-th rotated file, `.1` the newest. */
export function rotatedAuditFile(file: string, n: number): string {
  return `${file}.${n}`;
}

/**
 * `$AGENT_TOOLS_AUDIT_FILE`, else `$XDG_STATE_HOME/agent-tools/audit.jsonl` (~/.local/state/...),
 * by the XDG rule every state file follows (paths.ts stateHome: a relative XDG_STATE_HOME is
 * ignored, not a folder in the project). The folder stays `agent-tools`, not the memory file's
 * `agent-tools-runtime`: moving it would start a new log beside the old one without saying so.
 */
export function defaultAuditFile(env: NodeJS.ProcessEnv): string {
  const explicit = env.AGENT_TOOLS_AUDIT_FILE?.trim();
  if (explicit) return path.resolve(explicit);
  return path.join(stateHome(env), "agent-tools", "audit.jsonl");
}

/**
 * Whether the audit file can be written (writable-file.ts), checked at start so a wrong path stops
 * the server with its name instead of failing every write's record later. `source` names the
 * setting that chose the path (AGENT_TOOLS_AUDIT_FILE, AGENT_TOOLS_AUDIT, ...).
 */
export function auditFileProblem(file: string, source: string, written?: string): string | undefined {
  // Before anything is created: `~/audit.jsonl` unexpanded would make a folder named `~` here.
  const tilde = written ? unexpandedTilde(source, written) : undefined;
  if (tilde) return `the audit log ${written} (from ${source}) ${tilde.why}; ${tilde.fix}, or AGENT_TOOLS_AUDIT=off to keep no audit log`;
  const link = symlinkTarget(file);
  if (link !== undefined) {
    return `the audit log ${file} (from ${source}) is a symbolic link (to ${link}); set ${source} to the real file, or AGENT_TOOLS_AUDIT=off to keep no audit log (a link is not followed: whoever can replace it would choose where the record of every write goes, and which file is made 0600 and appended to)`;
  }
  const why = whyNotWritableFile(file);
  return why ? `the audit log ${file} (from ${source}) ${why}; set ${source} to a file in a folder this process may write, or AGENT_TOOLS_AUDIT=off to keep no audit log` : undefined;
}

/** Where the symbolic link at `file` points (resolved against its folder); undefined when `file` is no link. */
function symlinkTarget(file: string): string | undefined {
  try {
    if (!lstatSync(file).isSymbolicLink()) return undefined;
    return path.resolve(path.dirname(file), readlinkSync(file));
  } catch {
    return undefined; // none yet: created as a regular file
  }
}

/**
 * Appends refuse a symbolic link put in the file's place after the start's check (ELOOP: the entry
 * is not recorded, and the call says so) rather than write through it.
 */
const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

/**
 * The audit file made 0600 when it already exists readable or writable by group or others
 * (appendFile's mode applies only when it creates the file; one made by hand, by a copy, or
 * under another umask keeps its mode): arguments' shapes, identities and sessions are for the
 * operator. A `warning` says it was changed; `refused` says why it could not be (another user's file).
 */
export function tightenAuditFileMode(file: string): { warning?: string; refused?: string } {
  let mode: number;
  try {
    const found = statSync(file);
    if (!found.isFile()) return {};
    mode = found.mode & 0o777;
  } catch {
    return {}; // none yet: appended with mode 0600
  }
  if ((mode & 0o077) === 0) return {};
  const was = mode.toString(8).padStart(4, "0");
  try {
    chmodSync(file, 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return { refused: `the audit log ${file} has mode ${was} (group or others may read it) and could not be made 0600 (${code}); run 'chmod 600 ${file}' as its owner, or set AGENT_TOOLS_AUDIT_FILE to a file of this user` };
  }
  return { warning: `the audit log ${file} had mode ${was} (group or others could read it); it is now 0600` };
}

function parseAuditLines(text: string): AuditEntry[] {
  const entries: AuditEntry[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      entries.push(JSON.parse(line) as AuditEntry);
    } catch {
      // A line being written right now, or a damaged one: skipped, never fatal for the reader.
    }
  }
  return entries;
}

/** Which file is at `file` now (device and inode); undefined when none is. */
function identityOf(file: string): { dev: number; ino: number } | undefined {
  try {
    const { dev, ino } = statSync(file);
    return { dev, ino };
  } catch {
    return undefined;
  }
}

/** How often `follow` looks at the file. */
const FOLLOW_POLL_MS = 300;

/**
 * The file `follow` reads: its descriptor (it outlives a rename), which file it is, and how far it
 * was read. Read with the sync calls: `audit --follow` is a command of its own, reading a few
 * appended lines per poll, and a descriptor opened synchronously fixes "now" at the call.
 */
interface Followed {
  fd: number;
  dev: number;
  ino: number;
  offset: number;
}

/** The file at `file` now, opened at `offset` (undefined: its end); undefined when there is none. */
function openFollowed(file: string, offset?: number): Followed | undefined {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return undefined;
  }
  const { dev, ino, size } = fstatSync(fd);
  return { fd, dev, ino, offset: offset ?? size };
}

/** What was appended to the followed file since the last read (from its start again when it was truncated). */
function readOn(followed: Followed): Buffer {
  const { size } = fstatSync(followed.fd);
  if (size < followed.offset) followed.offset = 0;
  if (size === followed.offset) return Buffer.alloc(0);
  const buffer = Buffer.alloc(size - followed.offset);
  const bytesRead = readSync(followed.fd, buffer, 0, buffer.length, followed.offset);
  followed.offset += bytesRead;
  return buffer.subarray(0, bytesRead);
}

/**
 * Wait `ms`, or less if `signal` aborts; true when following should go on. The timer's own abort
 * listener is removed when it fires, so polling for hours adds none.
 */
async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/** The entries of `file`; none when it does not exist. */
async function readEntries(file: string): Promise<AuditEntry[]> {
  try {
    return parseAuditLines(await readFile(file, "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/**
 * Rotate `file` if it is still the file `appended` (device and inode) an append left at the bound:
 * `.2` → `.3`, `.1` → `.2`, `file` → `.1`, each rename atomic, under the lock beside the file.
 */
async function rotate(file: string, appended: { dev: number; ino: number }): Promise<void> {
  const release = await acquireFileLock(`${file}.lock`, { until: Date.now() + ROTATE_LOCK_WAIT_MS });
  try {
    const now = await lstat(file).catch(() => undefined);
    // Rotated by another process meanwhile (or something else put in its place): not ours to move.
    if (!now || now.dev !== appended.dev || now.ino !== appended.ino) return;
    for (let n = AUDIT_KEPT_FILES; n > 1; n--) {
      await rename(rotatedAuditFile(file, n - 1), rotatedAuditFile(file, n)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
      });
    }
    await rename(file, rotatedAuditFile(file, 1));
  } finally {
    await release();
  }
}

export interface FileAuditOptions {
  /** How often `follow` looks at the file; tests pass a shorter one. */
  pollMs?: number;
  /** The size at which the file is rotated (see above); undefined: never (an external rotation, such as logrotate, does it). */
  maxBytes?: number;
  /** Where a rotation that failed is said (the entry itself was written). */
  log?: Pick<Logger, "warn">;
}

export function createFileAuditLog(file: string, options: FileAuditOptions = {}): AuditLog {
  const pollMs = options.pollMs ?? FOLLOW_POLL_MS;
  const { maxBytes } = options;
  let dirReady = false;
  return {
    where: `file ${file}`,
    async append(entry) {
      if (!dirReady) {
        createFoldersOf(file, 0o700);
        dirReady = true;
      }
      // Opened for each entry, never kept: after another process's rotation the next append makes the new file.
      const handle = await open(file, APPEND_FLAGS, 0o600);
      let after: { size: number; dev: number; ino: number } | undefined;
      try {
        await handle.appendFile(`${JSON.stringify(entry)}\n`);
        if (maxBytes !== undefined) after = await handle.stat();
      } finally {
        await handle.close();
      }
      if (maxBytes === undefined || !after || after.size < maxBytes) return;
      // The entry is in the log: a rotation that fails is said, and the next append tries again.
      await rotate(file, after).catch((error: unknown) => options.log?.warn(`audit: could not rotate ${file} at ${after.size} bytes (the bound is ${maxBytes}): ${(error as Error).message}; entries are still appended to it`));
    },
    async tail(limit) {
      // From the file back through the rotated ones, until there are enough.
      let entries = await readEntries(file);
      for (let n = 1; n <= AUDIT_KEPT_FILES && entries.length < limit; n++) entries = [...(await readEntries(rotatedAuditFile(file, n))), ...entries];
      return entries.slice(-limit);
    },
    async follow(onEntry, signal) {
      // "From now" is the file and its size when follow() is called, read at once: read after an
      // await, an entry appended right after the call could land first and be taken for the past.
      let current = openFollowed(file);
      let carry = "";
      const emit = (buffer: Buffer): void => {
        if (buffer.length === 0) return;
        const text = carry + buffer.toString("utf8");
        const cut = text.lastIndexOf("\n");
        carry = text.slice(cut + 1);
        for (const entry of parseAuditLines(text.slice(0, cut + 1))) onEntry(entry);
      };
      try {
        while (await pause(pollMs, signal)) {
          // The open file first, to its end: after a rotation (mv) it still holds what was
          // appended before the move, which the path no longer reaches.
          if (current) emit(readOn(current));
          const now = identityOf(file);
          if (!now || (current && now.dev === current.dev && now.ino === current.ino)) continue;
          // Another file at the path (rotated, or the first one made since follow began): read from its start.
          if (current) closeSync(current.fd);
          carry = "";
          current = openFollowed(file, 0);
          if (current) emit(readOn(current));
        }
      } finally {
        if (current) closeSync(current.fd);
      }
    },
  };
}
