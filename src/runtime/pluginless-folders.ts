import { readdirSync } from "node:fs";
import path from "node:path";
import { isDirectory } from "../is-directory.js";
import { MANIFEST_FILE, pluginsIn } from "../plugins/discovery.js";
import type { NamedPluginDir } from "./startup-notices.js";

/**
 * A plugins folder the user named that is there but holds no plugin loads nothing, silently: the
 * manifest may be misnamed (`manifest.json`, `plugin.json.txt` from an editor that added `.txt`).
 * Such a near miss is a problem naming the file and its fix, since the plugin meant is not
 * loaded; a folder with no plugin and no near miss may be empty on purpose (plugins to come), so
 * it is a notice that says what a plugin folder must hold.
 */

/** Names a manifest is misnamed as: `Plugin.json`, `plugin.json.txt`, `plugin.jsonc`, `manifest.json`, `plugins.json`. */
function isNearManifestName(name: string): boolean {
  const folded = name.toLowerCase();
  if (name === MANIFEST_FILE) return false;
  return folded === MANIFEST_FILE || folded.startsWith("plugin.json") || folded === "manifest.json" || folded === "plugins.json";
}

/** Files near plugin.json's name in `dir` and in its sub-folders (where plugins sit), sorted. */
function nearManifests(dir: string): string[] {
  const namesIn = (folder: string): string[] => {
    try {
      return readdirSync(folder).filter((name) => !name.startsWith(".")).sort();
    } catch {
      return [];
    }
  };
  const top = namesIn(dir);
  const folders = [dir, ...top.map((name) => path.join(dir, name)).filter(isDirectory)];
  return folders.flatMap((folder) => namesIn(folder).filter(isNearManifestName).map((name) => path.join(folder, name)));
}

/** The named folders that exist and hold no plugin: a problem per near-miss manifest, else a notice per folder. */
export function pluginlessFolders(named: readonly NamedPluginDir[]): { problems: string[]; notices: string[] } {
  const problems: string[] = [];
  const notices: string[] = [];
  for (const { source, dir } of named) {
    if (!isDirectory(dir) || pluginsIn(dir).length) continue;
    const near = nearManifests(dir);
    for (const file of near) {
      problems.push(`${source} names ${dir}, which holds no plugin: ${file} is not read, as a plugin's manifest must be named ${MANIFEST_FILE}; rename it to ${path.join(path.dirname(file), MANIFEST_FILE)}`);
    }
    if (!near.length) {
      notices.push(`${source} names ${dir}, which holds no plugin, so none was loaded from it: a plugin is a folder holding ${MANIFEST_FILE} (${path.join(dir, "<plugin>", MANIFEST_FILE)}, or ${path.join(dir, MANIFEST_FILE)} when the folder is the plugin)`);
    }
  }
  return { problems, notices };
}
