import { mkdirSync, statSync } from "node:fs";
import { appendFile, open, readFile, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { whyNotWritableFile } from "../writable-file.js";
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
  const why = whyNotWritableFile(file);
  return why ? `the audit log ${file} (from ${source}) ${why}; set ${source} to a file in a folder this process may write, or AGENT_TOOLS_AUDIT=off to keep no audit log` : undefined;
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

function sizeNow(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

export function createFileAuditLog(file: string): AuditLog {
  let dirReady = false;
  return {
    where: `file ${file}`,
    async append(entry) {
      if (!dirReady) {
        mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
        dirReady = true;
      }
      await appendFile(file, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
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
      // "From now" is the size when follow() is called, read at once: read after an await, an entry
      // appended right after the call could land first and be taken for the past (never shown).
      let offset = sizeNow(file);
      let carry = "";
      while (!signal.aborted) {
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, 300);
          signal.addEventListener("abort", () => { clearTimeout(timer); resolve(undefined); }, { once: true });
        });
        const size = await stat(file).then((s) => s.size, () => 0);
        if (size < offset) offset = 0; // rotated or truncated: start over
        if (size === offset) continue;
        const handle = await open(file, "r");
        try {
          const buffer = Buffer.alloc(size - offset);
          await handle.read(buffer, 0, buffer.length, offset);
          offset = size;
          const text = carry + buffer.toString("utf8");
          const cut = text.lastIndexOf("\n");
          carry = text.slice(cut + 1);
          for (const entry of parseAuditLines(text.slice(0, cut + 1))) onEntry(entry);
        } finally {
          await handle.close();
        }
      }
    },
  };
}
