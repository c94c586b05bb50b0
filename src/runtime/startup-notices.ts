import { existsSync } from "node:fs";
import path from "node:path";
import type { AgentToolsConfig } from "../config/config.js";
import type { LoadedPlugin } from "../plugins/loader.js";
import { describeMissing } from "../plugins/requirements.js";
import { closestNames } from "./similarity.js";
import { isDirectory } from "../is-directory.js";

/**
 * What a start did that the user did not ask for in so many words, each said once on stderr:
 * a config file turning the embedded plugins off, `plugins.disable` names that match nothing,
 * plugin folders that do not exist, and, in one line, the plugins that are not configured.
 */

/** Folders named by AGENT_TOOLS_PLUGINS_DIR or `plugins.dirs` that are not there (the README's placeholder `PLUGINS` included). */
export function missingPluginDirs(pluginsDirEnv: string | undefined, configDirs: readonly string[]): string[] {
  const notices: string[] = [];
  for (const dir of (pluginsDirEnv ?? "").split(path.delimiter).map((s) => s.trim()).filter(Boolean)) {
    if (!isDirectory(path.resolve(dir))) notices.push(`AGENT_TOOLS_PLUGINS_DIR names ${path.resolve(dir)}, which ${existsSync(path.resolve(dir)) ? "is not a folder" : "does not exist"}; no plugins were loaded from it`);
  }
  for (const dir of configDirs) {
    if (!isDirectory(dir)) notices.push(`plugins.dirs names ${dir}, which ${existsSync(dir) ? "is not a folder" : "does not exist"}; no plugins were loaded from it`);
  }
  return notices;
}

/** `plugins.disable` entries that name no plugin (by prefix or name) among those found. */
export function unknownDisabled(disable: readonly string[], known: readonly string[]): string[] {
  return disable
    .filter((name) => !known.includes(name))
    .map((name) => {
      const close = closestNames(name, known, 0.5, 2);
      return `plugins.disable names '${name}', which is no plugin here${close.length ? `; did you mean ${close.map((c) => `'${c}'`).join(" or ")}?` : ` (plugins: ${known.join(", ") || "none"})`}`;
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
