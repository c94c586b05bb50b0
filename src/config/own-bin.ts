import path from "node:path";
import { nearestPackage, readPackageJson, realFile } from "./nearest-package.js";

/**
 * Whether a program is this package's: decided by what the file is (its real path is one of the
 * `bin` targets of a package named agent-tools-runtime), never by its name, since `agent-tools`
 * and `agent-tools.js` are common names for other people's servers. Used by self-reference.ts.
 */

export const OWN_PACKAGE = "agent-tools-runtime";

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
