import path from "node:path";
import type { AgentToolsConfig } from "../config/config.js";
import { EMBEDDED_PLUGIN_NAMES } from "../config/defaults.js";
import { entryNames } from "../config/entry-names.js";
import { discoverPluginDirs, MANIFEST_FILE } from "../plugins/discovery.js";
import { readManifest } from "../plugins/manifest.js";

/**
 * Every plugin name a `plugins.disable` entry may rightly name: not only the plugins loaded in
 * this run, but every plugin that could load on this host — every plugin folder found (bundled
 * ones too, even under AGENT_TOOLS_NO_BUNDLED_PLUGINS=1), the embedded filesystem and memory
 * plugins (off while a config file is loaded), and every mcpServers entry, `disabled` ones
 * included. A name that is off for another reason is not a typo: it disables what it says.
 *
 * Reads manifests, so the runtime asks only when some entry is not among the loaded names.
 */
export async function pluginNamesThatCouldLoad(options: {
  loaded: readonly string[];
  runtimeRoot: string;
  cwd: string;
  pluginsDirEnv: string | undefined;
  extraDirs: readonly string[];
  config: AgentToolsConfig | undefined;
}): Promise<string[]> {
  const dirs = discoverPluginDirs({ runtimeRoot: options.runtimeRoot, cwd: options.cwd, pluginsDirEnv: options.pluginsDirEnv, extraDirs: [...options.extraDirs], skipBundled: false });
  const fromFolders = await Promise.all(
    dirs.map((dir) =>
      readManifest(path.join(dir, MANIFEST_FILE)).then(
        (manifest) => [manifest.prefix, manifest.name],
        // A manifest that does not load is a problem of its own (validate says it); it names nothing here.
        () => [],
      ),
    ),
  );
  const fromConfig = Object.keys(options.config?.mcpServers ?? {}).flatMap(entryNames);
  return [...new Set([...options.loaded, ...fromFolders.flat(), ...EMBEDDED_PLUGIN_NAMES, ...fromConfig])];
}
