import path from "node:path";
import type { AgentToolsConfig } from "../config/config.js";
import { unexpandedTilde } from "../config/tilde.js";
import { whyNotAFolder } from "../is-directory.js";
import type { LoadedPlugin } from "../plugins/loader.js";
import { describeMissing } from "../plugins/requirements.js";
import { closestNames } from "./similarity.js";

/**
 * What a start did that the user did not ask for in so many words, each said once on stderr:
 * a config file turning the embedded plugins off, `plugins.disable` names that match nothing,
 * plugin folders that do not exist, and, in one line each, the plugins that are not configured and
 * the entries given a cap and a lock because their server loses writes made at once.
 */

/** A plugins folder the user named: where it was named (`source`), as written, and how to change that. */
export interface NamedPluginDir {
  source: string;
  dir: string;
  written: string | undefined;
  fix: string;
}

/** The folders named by AGENT_TOOLS_PLUGINS_DIR (or --plugins-dir) and `plugins.dirs`, in that order. */
export function namedPluginDirs(pluginsDirEnv: string | undefined, configDirs: readonly string[], configFile?: string): NamedPluginDir[] {
  return [
    ...(pluginsDirEnv ?? "")
      .split(path.delimiter)
      .map((s) => s.trim())
      .filter(Boolean)
      // The CLI's --plugins-dir sets the same variable: the notice names both, since the user may have set either.
      .map((dir) => ({ source: "AGENT_TOOLS_PLUGINS_DIR (or --plugins-dir)", dir: path.resolve(dir), written: dir, fix: "correct the path, or unset AGENT_TOOLS_PLUGINS_DIR / drop --plugins-dir" })),
    ...configDirs.map((dir) => ({ source: "plugins.dirs", dir, written: undefined, fix: `correct or remove it in plugins.dirs${configFile ? ` of ${configFile}` : ""}` })),
  ];
}

/** Folders named by AGENT_TOOLS_PLUGINS_DIR or `plugins.dirs` that are not there (the README's placeholder `PLUGINS` included). */
export function missingPluginDirs(pluginsDirEnv: string | undefined, configDirs: readonly string[], configFile?: string): string[] {
  return missingFolders(namedPluginDirs(pluginsDirEnv, configDirs, configFile));
}

/** The named plugins folders that are not there, each said with its fix. */
export function missingFolders(named: readonly NamedPluginDir[]): string[] {
  return named.flatMap(({ source, dir, written, fix }) => {
    const why = whyNotAFolder(dir);
    if (!why) return [];
    // Not found because no shell expanded the ~ (a client's JSON env): said as every path variable says it.
    const tilde = written ? unexpandedTilde("AGENT_TOOLS_PLUGINS_DIR", written) : undefined;
    if (tilde) return [`${source} names ${written}, which ${tilde.why}; no plugins were loaded from it (${tilde.fix})`];
    return [`${source} names ${dir}, which ${why}; no plugins were loaded from it (${fix})`];
  });
}

/** How many known names a notice lists when none is close to the entry. */
const LISTED_NAMES = 15;

/** The names a plugin folder suggests: `agent-tools-plugin-notes` → notes (and the folder's own name). */
function folderNames(folder: string): string[] {
  const base = path.basename(folder);
  return base.startsWith("agent-tools-plugin-") ? [base.slice("agent-tools-plugin-".length), base] : [base];
}

/**
 * `plugins.disable` entries that name no plugin (by prefix or name) among those that could load
 * (known-plugins.ts): a typo there disables nothing, so the plugin meant stays on. Each names the
 * entry and either the likely names ("did you mean") or, when none is close, the known names:
 * an unrelated name is no help as a "nearest" one.
 *
 * `unloadable`: plugin folders whose manifest did not load (each already a problem of its own).
 * Their names are unknown, so no entry can match them: an entry named like such a folder
 * (`agent-tools-plugin-<name>`) is not called a typo but said to be that plugin, which stays
 * reported until its manifest is fixed; any other entry's notice points at those problems too.
 */
export function unknownDisabled(disable: readonly string[], known: readonly string[], configFile?: string, unloadable: readonly string[] = []): string[] {
  const where = `plugins.disable${configFile ? ` in ${configFile}` : ""}`;
  const sorted = [...new Set(known)].sort();
  const listed = sorted.slice(0, LISTED_NAMES).map((c) => `'${c}'`).join(", ") + (sorted.length > LISTED_NAMES ? ` and ${sorted.length - LISTED_NAMES} more` : "");
  const orFailed = unloadable.length ? "; if it names a plugin that failed to load, see that problem: a plugin whose manifest does not load cannot be disabled by name" : "";
  return disable
    .filter((name) => !known.includes(name))
    .map((name) => {
      const folder = unloadable.find((f) => folderNames(f).includes(name));
      if (folder) {
        return `${where} names '${name}', which is likely the plugin in ${folder}: its manifest does not load (see that problem), so no name can match it and disable cannot turn it off (fix its plugin.json, or remove the folder)`;
      }
      const likely = closestNames(name, known, 0.5, 2);
      const hint = likely.length ? `did you mean ${likely.map((c) => `'${c}'`).join(" or ")}?` : sorted.length ? `no plugin has that name; the plugins' names and prefixes are ${listed}` : "no plugins were found at all";
      return `${where} names '${name}', which matches no plugin's prefix or name, so it disables nothing; ${hint} (correct the name or remove it${orFailed})`;
    });
}

export function embeddedDropped(config: AgentToolsConfig | undefined): string[] {
  if (!config?.file || config.plugins.embedded !== undefined) return [];
  return [`${config.file} is loaded, so the embedded filesystem and memory plugins are off; set "plugins": {"embedded": true} in it to keep them`];
}

/** One line for every plugin that is not configured, instead of one warning each. */
export function notConfiguredLine(plugins: readonly LoadedPlugin[]): string | undefined {
  const idle = plugins.filter((p) => !p.configured);
  if (idle.length === 0) return undefined;
  const parts = idle.map((p) => `${p.manifest.prefix} (${describeMissing(p.missing)})`);
  return `${idle.length} plugin${idle.length > 1 ? "s" : ""} not configured, left out of tools/list (agent_tools_help and search still show them): ${parts.join("; ")}`;
}

/**
 * One line for the entries that got protective defaults they did not set (config/unsafe-servers.ts):
 * their calls are slower one at a time, so the user learns why and how to choose otherwise.
 */
export function protectiveDefaultsLine(plugins: readonly LoadedPlugin[]): string | undefined {
  const given = plugins.flatMap(({ manifest }) => (manifest.protectiveDefaults ? [`config entry '${manifest.name}' runs ${manifest.protectiveDefaults}`] : []));
  if (given.length === 0) return undefined;
  return `${given.join("; ")}. Set maxConcurrentCalls or lockFile in ${given.length > 1 ? "an" : "the"} entry to choose otherwise`;
}
