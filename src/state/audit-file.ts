import { chmodSync, closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync, statSync } from "node:fs";
import { appendFile, readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import os from "node:os";
import path from "node:path";
import { createFoldersOf, whyNotWritableFile } from "../writable-file.js";
import { unexpandedTilde } from "../config/tilde.js";
import type { AuditEntry, AuditLog } from "./types.js";

/**
 * The audit log as a JSONL file: one entry per line, appended with O_APPEND in one write each, so
 * concurrent writers on one host never interleave inside a line. Readers tolerate a torn last line.
 */

/** `$AGENT_TOOLS_AUDIT_FILE`, else `$XDG_STATE_HOME/agent-tools/audit.jsonl` (~/.local/state/...). */
export function defaultAuditFile(env: NodeJS.ProcessEnv): string {
  const explicit = env.AGENT_TOOLS_AUDIT_FILE?.trim();
  if (explicit) return path.resolve(explicit);
  const stateHome = env.XDG_STATE_HOME?.trim() || path.join(env.HOME || os.homedir(), ".local", "state");
  return path.join(stateHome, "agent-tools", "audit.jsonl");
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

/** How often `follow` looks at the file; tests pass a shorter one. */
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

export function createFileAuditLog(file: string, options: { pollMs?: number } = {}): AuditLog {
  const pollMs = options.pollMs ?? FOLLOW_POLL_MS;
  let dirReady = false;
  return {
    where: `file ${file}`,
    async append(entry) {
      if (!dirReady) {
        createFoldersOf(file, 0o700);
        dirReady = true;
      }
      await appendFile(file, `${JSON.stringify(entry)}\n`, { mode: 0o600, flag: APPEND_FLAGS });
    },
    async tail(limit) {
      let text: string;
      try {
        text = await readFile(file, "utf8");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
        throw error;
      }
      return parseAuditLines(text).slice(-limit);
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
