import { existsSync, readdirSync, realpathSync } from "node:fs";
import path from "node:path";
import { isDirectory } from "../is-directory.js";

/**
 * Where plugins are found without configuration:
 *  1. each folder in $AGENT_TOOLS_PLUGINS_DIR (path-delimited): every sub-folder holding a
 *     plugin.json, or the folder itself when it holds one;
 *  2. folders named in config (`plugins.dirs`), read the same way;
 *  3. `agent-tools-plugin-*` folders beside the runtime's root (where the original runtime's
 *     users keep their own plugins);
 *  4. `node_modules/agent-tools-plugin-*` in the working directory and every parent;
 *  5. the bundled `agent-tools-plugin-*` folders in the runtime root's `plugins/`, last.
 * The order is the precedence. The user's own plugins come before the bundled ones: a bundled
 * plugin whose prefix a user plugin (or an `mcpServers` entry) already has is replaced, with a
 * notice; two of the user's own plugins claiming one prefix is an error (the later is refused).
 */

const PLUGIN_FOLDER_PREFIX = "agent-tools-plugin-";
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

function listSubdirs(dir: string, namePrefix?: string): string[] {
  if (!isDirectory(dir)) return [];
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  return names
    .filter((n) => (namePrefix ? n.startsWith(namePrefix) : !n.startsWith(".")))
    .map((n) => path.join(dir, n))
    .filter((p) => isDirectory(p) && existsSync(path.join(p, MANIFEST_FILE)));
}

/** A folder that is a plugin, or that holds plugins in any sub-folder. */
export function pluginsIn(dir: string): string[] {
  if (existsSync(path.join(dir, MANIFEST_FILE))) return [dir];
  return listSubdirs(dir);
}

/** The runtime's own plugins (`<root>/plugins/agent-tools-plugin-*`). */
function bundledPluginDirs(runtimeRoot: string): string[] {
  return listSubdirs(path.join(runtimeRoot, "plugins"), PLUGIN_FOLDER_PREFIX);
}

/** Whether a plugin folder (or a manifest file in it) is one of the runtime's bundled plugins. */
export function isBundledLocation(location: string, runtimeRoot: string): boolean {
  let bundledRoot = path.join(runtimeRoot, "plugins");
  try {
    bundledRoot = realpathSync(bundledRoot);
  } catch {
    // no plugins/ folder: nothing is bundled there
  }
  const relative = path.relative(bundledRoot, location);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}

/** Absolute plugin folders in precedence order, each real path once. */
export function discoverPluginDirs(options: DiscoveryOptions): string[] {
  const found: string[] = [];
  const explicit = (options.pluginsDirEnv ?? "").split(path.delimiter).map((s) => s.trim()).filter(Boolean);
  for (const dir of explicit) found.push(...pluginsIn(path.resolve(dir)));
  for (const dir of options.extraDirs ?? []) found.push(...pluginsIn(path.resolve(dir)));
  if (!options.skipBundled) found.push(...listSubdirs(path.dirname(options.runtimeRoot), PLUGIN_FOLDER_PREFIX));
  let dir = path.resolve(options.cwd ?? process.cwd());
  for (;;) {
    found.push(...listSubdirs(path.join(dir, "node_modules"), PLUGIN_FOLDER_PREFIX));
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  if (!options.skipBundled) found.push(...bundledPluginDirs(options.runtimeRoot));
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
