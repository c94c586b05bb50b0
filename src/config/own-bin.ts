import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { readSettingsFileSync } from "../bounded-file.js";

/**
 * Whether a program is this package's: decided by what the file is (its real path is one of the
 * `bin` targets of a package named agent-tools-runtime), never by its name, since `agent-tools`
 * and `agent-tools.js` are common names for other people's servers. Used by self-reference.ts.
 */

export const OWN_PACKAGE = "agent-tools-runtime";

function realFile(file: string): string | undefined {
  try {
    const real = realpathSync(file);
    return statSync(real).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A package.json in a folder the user's config points at: read bounded, since a FIFO there would
 * block loading the config (a plain read waits for a writer) and a device would exhaust memory.
 * One that is not a regular file of at most 4 MiB throws, which the callers take as "not ours".
 */
function readPackageJson(dir: string): { name?: unknown; bin?: unknown } {
  return JSON.parse(readSettingsFileSync(path.join(dir, "package.json"))) as { name?: unknown; bin?: unknown };
}

/** The nearest package.json above `file`, parsed, with its folder; undefined when none or unreadable. */
function nearestPackage(file: string): { dir: string; json: { name?: unknown; bin?: unknown } } | undefined {
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

/** Whether the folder holds a package named agent-tools-runtime (a local `npx --package=./folder`). */
export function isOwnPackageFolder(dir: string): boolean {
  try {
    return readPackageJson(dir).name === OWN_PACKAGE;
  } catch {
    return false;
  }
}

/**
 * Whether `file` (resolved against `dir`; an npm bin symlink is followed) is one of the bins of a
 * package named agent-tools-runtime. This install or a second one: both would loop.
 * `node dist/bin/agent-tools-mcp` also runs the `.js` file, so that is tried too.
 */
export function isOwnBin(file: string, dir: string): boolean {
  const absolute = path.resolve(dir, file);
  const real = realFile(absolute) ?? (path.extname(absolute) === "" ? realFile(`${absolute}.js`) : undefined);
  if (real === undefined) return false;
  const found = nearestPackage(real);
  if (found === undefined || found.json.name !== OWN_PACKAGE) return false;
  const bins = typeof found.json.bin === "string" ? [found.json.bin] : found.json.bin && typeof found.json.bin === "object" ? Object.values(found.json.bin) : [];
  return bins.some((bin) => typeof bin === "string" && realFile(path.resolve(found.dir, bin)) === real);
}
