import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

/**
 * npm 11.16+ warns after `npm ci` about each dependency whose install script package.json's
 * `allowScripts` does not cover, and a later npm blocks those scripts. Every package the lockfile
 * marks `hasInstallScript` must therefore have a decision there (true: run it; false: skip it), so
 * a new dependency that brings a script fails here instead of warning on every install; and every
 * entry must still name such a package, so the field does not keep stale decisions. The lockfile,
 * not node_modules, is the reference: an optional package whose script failed (@mongodb-js/zstd
 * without access to github.com) is absent from node_modules, and `npm install-scripts prune` would
 * drop its entry although the next machine installs it.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const readJson = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), "utf8")) as Record<string, unknown>;

/** The package name of an `allowScripts` key: `esbuild`, `esbuild@0.28.2`, `@scope/pkg@^1`. */
function nameOfKey(key: string): string {
  const at = key.indexOf("@", 1);
  return at === -1 ? key : key.slice(0, at);
}

/** The names of the lockfile's packages that have an install script (a nested copy counts too). */
function packagesWithInstallScripts(): Set<string> {
  const lock = readJson("package-lock.json") as { packages: Record<string, { hasInstallScript?: boolean }> };
  const names = new Set<string>();
  for (const [location, entry] of Object.entries(lock.packages)) {
    if (entry.hasInstallScript && location) names.add(location.slice(location.lastIndexOf("node_modules/") + "node_modules/".length));
  }
  return names;
}

describe("allowScripts in package.json", () => {
  const allowScripts = (readJson("package.json").allowScripts ?? {}) as Record<string, unknown>;
  const decided = new Set(Object.keys(allowScripts).map(nameOfKey));
  const withScripts = packagesWithInstallScripts();

  it("decides every locked package that has an install script", () => {
    assert.ok(withScripts.size > 0, "the lockfile marks no package hasInstallScript: has its format changed?");
    const undecided = [...withScripts].filter((name) => !decided.has(name));
    assert.deepEqual(
      undecided,
      [],
      `no allowScripts decision for ${undecided.join(", ")}: read what its install script does, then add "<pkg>": true (run it) or false (skip it) to allowScripts in package.json (npm install-scripts approve/deny <pkg> writes it when the package is installed) and say why in README "Set up"`,
    );
  });

  it("names only packages that are locked with an install script, each decided by a boolean", () => {
    const stale = [...decided].filter((name) => !withScripts.has(name));
    assert.deepEqual(stale, [], `allowScripts names ${stale.join(", ")}, which no locked package with an install script is: remove it`);
    for (const [key, value] of Object.entries(allowScripts)) assert.equal(typeof value, "boolean", `allowScripts["${key}"] is ${JSON.stringify(value)}: use true or false`);
  });
});
