import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import path from "node:path";

/**
 * Where plugins are found without configuration:
 *  1. each folder in $AGENT_TOOLS_PLUGINS_DIR (path-delimited): every sub-folder holding a
 *     plugin.json, or the folder itself when it holds one;
 *  2. folders named in config (`plugins.dirs`), read the same way;
 *  3. `agent-tools-plugin-*` folders in the runtime root's `plugins/` and beside the root;
 *  4. `node_modules/agent-tools-plugin-*` in the working directory and every parent.
 * The order is the precedence: when two plugins claim one prefix, the later one is refused.
 */

export const PLUGIN_FOLDER_PREFIX = "agent-tools-plugin-";
export const MANIFEST_FILE = "plugin.json";

export interface DiscoveryOptions {
  /** The runtime's own package root. */
  runtimeRoot: string;
  /** Where `node_modules` lookup starts; default process.cwd(). */
  cwd?: string;
  /** $AGENT_TOOLS_PLUGINS_DIR, already read from the environment. */
  pluginsDirEnv?: string | undefined;
  /** Extra folders (config `plugins.dirs`), absolute. */
  extraDirs?: string[];
  /** Skip the runtime's bundled plugins/ and its siblings (tests, isolated setups). */
  skipBundled?: boolean;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function listSubdirs(dir: string, namePrefix?: string): string[] {
  if (!isDir(dir)) return [];
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  return names
    .filter((n) => (namePrefix ? n.startsWith(namePrefix) : !n.startsWith(".")))
    .map((n) => path.join(dir, n))
    .filter((p) => isDir(p) && existsSync(path.join(p, MANIFEST_FILE)));
}

/** A folder that is a plugin, or that holds plugins in any sub-folder. */
function pluginsIn(dir: string): string[] {
  if (existsSync(path.join(dir, MANIFEST_FILE))) return [dir];
  return listSubdirs(dir);
}

/** Absolute plugin folders in precedence order, each real path once. */
export function discoverPluginDirs(options: DiscoveryOptions): string[] {
  const found: string[] = [];
  const explicit = (options.pluginsDirEnv ?? "").split(path.delimiter).map((s) => s.trim()).filter(Boolean);
  for (const dir of explicit) found.push(...pluginsIn(path.resolve(dir)));
  for (const dir of options.extraDirs ?? []) found.push(...pluginsIn(path.resolve(dir)));
  if (!options.skipBundled) {
    found.push(...listSubdirs(path.join(options.runtimeRoot, "plugins"), PLUGIN_FOLDER_PREFIX));
    found.push(...listSubdirs(path.dirname(options.runtimeRoot), PLUGIN_FOLDER_PREFIX));
  }
  let dir = path.resolve(options.cwd ?? process.cwd());
  for (;;) {
    found.push(...listSubdirs(path.join(dir, "node_modules"), PLUGIN_FOLDER_PREFIX));
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  const seen = new Set<string>();
  const unique: string[] = [];
  for (const p of found) {
    let real: string;
    try {
      real = realpathSync(p);
    } catch {
      continue;
    }
    if (seen.has(real)) continue;
    seen.add(real);
    unique.push(real);
  }
  return unique;
}
