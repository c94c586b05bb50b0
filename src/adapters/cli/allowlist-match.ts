import path from "node:path";
import { findOnPath } from "../../plugins/requirements.js";

/**
 * The one rule for whether an allowlist admits a program, shared by the cli adapter, the text
 * layer's runner (allowlist.ts) and `agent-tools probe`, which must agree. It imports nothing but
 * findOnPath: probe reports a broken install, so it must load with no dependency installed.
 *
 * An entry is a bare name (`gh`) or a path (`/usr/local/bin/gh`). A bare entry matches the program
 * written bare, or a program path equal to where that name resolves on PATH. A path entry matches
 * the program's resolved absolute path exactly. Symlinks are not followed for matching: a
 * multi-call binary (busybox) behind several names must not let one allowed name admit the others.
 */

export const ALLOWLIST_VARIABLE = "AGENT_CLI_ALLOWLIST";

/** Split an allowlist value ("gh, git jq") into entries. */
export function parseAllowlist(value: string | undefined): string[] {
  return (value ?? "").split(/[\s,]+/).map((entry) => entry.trim()).filter(Boolean);
}

/** Whether an entry or a program is written as a path (it has a slash), not a bare name looked up on PATH. */
export function isPath(entry: string): boolean {
  return entry.includes("/") || entry.includes(path.sep);
}

/**
 * True when `entries` admits `program`, which resolved to the absolute path `resolved`. A
 * relative path entry is resolved against `baseDir` (a manifest's: its plugin folder), as the
 * program is; without one, against the working directory.
 */
export function allowlistAdmits(entries: readonly string[], program: string, resolved: string, env: NodeJS.ProcessEnv, baseDir?: string): boolean {
  for (const entry of entries) {
    if (isPath(entry)) {
      if (path.resolve(baseDir ?? "", entry) === resolved) return true;
    } else if (program === entry || findOnPath(entry, env) === resolved) {
      return true;
    }
  }
  return false;
}

