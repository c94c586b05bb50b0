import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { readSettingsFileSync } from "../bounded-file.js";

/**
 * Which npm package a file on disk belongs to, decided by the package.json above it, never by the
 * file's name: an entry's program is told apart by what it is (own-bin.ts: this runtime's bins;
 * unsafe-servers.ts: a server that loses writes made at once).
 */

/** The real path of `file` when it is a regular file (an npm bin symlink followed); undefined otherwise. */
export function realFile(file: string): string | undefined {
  try {
    const real = realpathSync(file);
    return statSync(real).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
}

export interface PackageJsonFields {
  name?: unknown;
  bin?: unknown;
}

/**
 * A package.json in a folder the user's config points at: read bounded, since a FIFO there would
 * block loading the config (a plain read waits for a writer) and a device would exhaust memory.
 * One that is not a regular file of at most 4 MiB throws, which the callers take as "not this package".
 */
export function readPackageJson(dir: string): PackageJsonFields {
  return JSON.parse(readSettingsFileSync(path.join(dir, "package.json"))) as PackageJsonFields;
}

/** The nearest package.json above `file`, parsed, with its folder; undefined when none or unreadable. */
export function nearestPackage(file: string): { dir: string; json: PackageJsonFields } | undefined {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    try {
      return { dir, json: readPackageJson(dir) };
    } catch (error) {
      // A folder without package.json: look further up. One that is not JSON (or not a regular file) ends the walk, as for npm.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" && (error as NodeJS.ErrnoException).code !== "ENOTDIR") return undefined;
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}
