import type { ToolDescriptor } from "../adapters/types.js";
import { RuntimeError } from "../errors.js";
import type { PluginManifest } from "./manifest.js";
import { sameNameIn } from "../runtime/misdirected.js";

/**
 * A config entry's `includeTools` / `excludeTools` (Gemini CLI's names; Roo Code's `disabledTools`
 * is read as `excludeTools`): the tools of its server the user chose to keep out. They are taken
 * out of the catalog itself (catalog.ts), so discover, search and the facade never see them, and a
 * call that names one is refused by the pipeline with the reason below. As in Gemini CLI,
 * `excludeTools` wins over `includeTools`.
 */

export type ToolFilter = Pick<PluginManifest, "includeTools" | "excludeTools" | "disabledTools" | "entryPath" | "file" | "prefix">;

/** Why the entry keeps `name` out, or undefined when it lets it through. */
export function withheldReason(manifest: ToolFilter, name: string): string | undefined {
  const entry = manifest.entryPath?.join(".") ?? "its config entry";
  // The field the user wrote: Roo Code's `disabledTools` is read as excludeTools, and named as written.
  if (manifest.excludeTools?.includes(name)) return `${entry}.${manifest.disabledTools?.includes(name) ? "disabledTools" : "excludeTools"} lists '${name}'`;
  if (manifest.includeTools && !manifest.includeTools.includes(name)) return `${entry}.includeTools does not list '${name}'`;
  return undefined;
}

/** The tools the entry lets through, and the names of those it keeps out. */
export function filterTools(manifest: ToolFilter, tools: ToolDescriptor[]): { kept: ToolDescriptor[]; withheld: string[] } {
  if (!manifest.includeTools && !manifest.excludeTools) return { kept: tools, withheld: [] };
  const kept: ToolDescriptor[] = [];
  const withheld: string[] = [];
  for (const tool of tools) {
    if (withheldReason(manifest, tool.name)) withheld.push(tool.name);
    else kept.push(tool);
  }
  return { kept, withheld };
}

/**
 * The answer to a call of a tool the entry keeps out (`name`, as the server lists it): FORBIDDEN,
 * as a hidden file of the filesystem plugin is, since it is the user's policy and not a missing
 * tool; the hint says retrying or a near name will not help, and who can change it.
 */
export function withheldToolError(manifest: ToolFilter, name: string): RuntimeError {
  return new RuntimeError("FORBIDDEN", `plugin '${manifest.prefix}' does not serve tool '${name}': ${excludedSentence(manifest, name)}; nothing was run`, { toolName: name, excludedBy: manifest.file }, WITHHELD_HINT);
}

/** What an answer about a tool the entry keeps out says the user can do, and the caller cannot. */
export const WITHHELD_HINT =
  "The user's config keeps this tool out on purpose: do not retry it. Use another tool of this plugin (its _discover tool lists the ones served), or tell the user; only they can allow it, by editing that entry of the config file and restarting the server.";

/** "the config excludes it (mcpServers.local.excludeTools lists 'crash' in /path/config.json)". */
export function excludedSentence(manifest: ToolFilter, name: string): string {
  return `the config excludes it (${withheldReason(manifest, name) ?? "its config entry keeps it out"} in ${manifest.file})`;
}

/**
 * The name among the tools the entry keeps out that `sent` names (case and separators aside, as a
 * call is matched), or undefined. `listedOut`: the server's tools the filter took out of its last
 * listing; before any listing only `excludeTools` can say (an includeTools entry cannot tell a
 * tool kept out from one the server does not have).
 */
export function withheldName(manifest: ToolFilter, sent: string, listedOut: readonly string[] | undefined): string | undefined {
  return sameNameIn(sent, listedOut ?? manifest.excludeTools ?? []);
}
