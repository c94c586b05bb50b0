import { readFileSync } from "node:fs";
import path from "node:path";
import { RUNTIME_ROOT } from "../paths.js";
import { sha256Hex } from "../sha256.js";

/**
 * The bundled plugins' manifests are checked when the runtime is built (scripts/checked-manifests.ts
 * writes the SHA-256 of every plugin.json that passed to dist/checked-manifests.json); a start
 * that reads the very same text skips checking it again, so it never loads the precompiled
 * validators (~330 KB of code, about 1.4 MiB of idle memory). Only files in the runtime's own
 * plugins/ folder are looked up; any other manifest (a user's plugin) and an edited bundled one are
 * checked as always.
 */
export const CHECKED_MANIFESTS_FILE = "checked-manifests.json";

export function manifestDigest(text: string): string {
  return sha256Hex(text);
}

let known: Set<string> | undefined;

/** True when `file` is a bundled plugin.json whose exact text passed the checks of the build that is running. */
export function checkedAtBuild(file: string, text: string): boolean {
  // Running the sources (tsx): the schemas may have changed since the last build's record.
  if (import.meta.url.endsWith(".ts")) return false;
  if (!path.resolve(file).startsWith(path.join(RUNTIME_ROOT, "plugins") + path.sep)) return false;
  known ??= readRecord();
  return known.has(manifestDigest(text));
}

function readRecord(): Set<string> {
  try {
    const record = JSON.parse(readFileSync(path.join(RUNTIME_ROOT, "dist", CHECKED_MANIFESTS_FILE), "utf8")) as { sha256?: unknown };
    return new Set(Array.isArray(record.sha256) ? record.sha256.filter((d): d is string => typeof d === "string") : []);
  } catch {
    // No record (a build without it, an unreadable file): every manifest is checked.
    return new Set();
  }
}
