import path from "node:path";
import { requiredReferences } from "../adapters/shared/env-vars.js";
import { confirmGateSettings } from "../plugins/confirm-gate-settings.js";
import type { PluginManifest } from "../plugins/manifest.js";
import { isUserConfigFile, type AgentToolsConfig, type McpServerEntry } from "./config.js";
import { prefixFromKey } from "./entry-names.js";
import { protectiveDefaults } from "./unsafe-servers.js";
import { RUNTIME_FOLDER } from "../adapters/shared/working-folder.js";

/**
 * Each `mcpServers` entry becomes a plugin named by its key, with no code: a manifest whose
 * adapter is the declarative MCP kind. Variables its settings reference without a default become
 * `requires.env`, and a bare command becomes `requires.bins`, so a missing token reads as
 * "not configured: set TEAM_TOKEN" instead of a failed connection.
 */

function requiredVariables(values: Iterable<string>): string[] {
  const names = new Set<string>();
  for (const value of values) for (const name of requiredReferences(value)) names.add(name);
  return [...names];
}

export function manifestFromEntry(
  configFile: string,
  key: string,
  entry: McpServerEntry,
  serversKey: "mcpServers" | "servers" = "mcpServers",
  env: NodeJS.ProcessEnv = process.env,
): PluginManifest {
  const isStdio = "command" in entry;
  const strings = isStdio
    ? [entry.command, ...(entry.args ?? []), ...Object.values(entry.env ?? {}), entry.cwd ?? "", entry.envFile ?? ""]
    : [entry.url, ...Object.values(entry.headers ?? {}), entry.envFile ?? ""];
  const adapter = isStdio
    ? { kind: "mcp", command: entry.command, args: entry.args ?? [], env: entry.env ?? {}, ...(entry.cwd ? { cwd: entry.cwd } : {}) }
    : { kind: "mcp", url: entry.url, headers: entry.headers ?? {}, ...(entry.type === "sse" ? { type: "sse" } : {}) };
  if (entry.timeoutMs) Object.assign(adapter, { timeoutMs: entry.timeoutMs });
  if (entry.idleTimeoutMs) Object.assign(adapter, { idleTimeoutMs: entry.idleTimeoutMs });
  if (entry.maxConcurrentCalls) Object.assign(adapter, { maxConcurrentCalls: entry.maxConcurrentCalls });
  if (entry.lockFile) Object.assign(adapter, { lockFile: entry.lockFile });
  // A server known to lose writes made at once gets a cap and a lock unless the entry chose its own (unsafe-servers.ts).
  const unsafe = protectiveDefaults(entry, configFile, env);
  if (unsafe) Object.assign(adapter, unsafe.fields);
  const bins = isStdio && !entry.command.includes("/") && !entry.command.includes("${") ? [entry.command] : [];
  const manifest: PluginManifest = {
    file: configFile,
    dir: path.dirname(configFile),
    form: "config",
    name: key,
    description: entry.description ?? (isStdio ? `MCP server '${key}' (${path.basename(entry.command)} over stdio)` : `MCP server '${key}' over HTTP`),
    prefix: prefixFromKey(key),
    adapter,
    readonlyTools: entry.readonlyTools ?? [],
    skills: [],
    requireConfirm: entry.requireConfirm ?? true,
    requires: { env: requiredVariables(strings), bins },
    raw: { ...entry, name: key, prefix: prefixFromKey(key) },
    entryPath: [serversKey, key],
  };
  if (unsafe) manifest.protectiveDefaults = unsafe.said;
  if (entry.discoverHint) manifest.discoverHint = entry.discoverHint;
  if (entry.confirm) manifest.confirm = entry.confirm;
  // The confirm gate's own overrides, read as plugin.json's are: a third-party server's read-only labels need not be taken on its word.
  Object.assign(manifest, confirmGateSettings(entry));
  if (entry.includeTools) manifest.includeTools = entry.includeTools;
  if (entry.excludeTools) manifest.excludeTools = entry.excludeTools;
  if (entry.disabledTools) manifest.disabledTools = entry.disabledTools;
  return manifest;
}

/**
 * The config's entries as plugins, but for `skipped`: the keys of the entries that start this
 * runtime itself (self-reference.ts's selfReferences, decided once per start and said in its notices).
 */
export function manifestsFromConfig(config: AgentToolsConfig, skipped: ReadonlySet<string>, env: NodeJS.ProcessEnv = process.env): PluginManifest[] {
  const file = config.file ?? path.resolve("agent-tools.config.json");
  return Object.entries(config.mcpServers)
    .filter(([key, entry]) => !entry.disabled && !skipped.has(key))
    .map(([key, entry]) => manifestFromEntry(file, key, withDefaultFolder(config, entry, env), config.serversKey, env));
}

/**
 * An entry of the user-level config file without a `cwd` starts in the runtime's working folder
 * (the project the client started it in), as the clients whose files it mirrors start theirs: the
 * file is shared by every project, and its folder (~/.config/agent-tools-runtime) is nobody's
 * project; `server-filesystem .` there would serve the config file itself. A project's or a named
 * file keeps its folder as the default, where config-relative paths were written for it.
 */
function withDefaultFolder(config: AgentToolsConfig, entry: McpServerEntry, env: NodeJS.ProcessEnv): McpServerEntry {
  return isUserConfigFile(config.file, env) && "command" in entry && entry.cwd === undefined ? { ...entry, cwd: RUNTIME_FOLDER } : entry;
}
