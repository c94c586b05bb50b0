import type { PluginLoadFailure } from "../plugins/loader.js";
import type { BrokenRelatedLink } from "../plugins/related.js";
import { mayUsePlugin, seesWholeFleet, type Identity } from "./access.js";

/**
 * What is wrong with the fleet, as one ordered list of sentences: the one list that
 * `agent-tools validate` (the host's own CLI: no identity, so everything), `agent_tools_help`
 * and `status` show, so a new kind of problem cannot reach one and not the others.
 *
 * Who sees what: the config's own problems (a plugin folder that is not there, a
 * `plugins.disable` name that matches nothing, MCP servers the depth guard did not start) and a
 * plugin folder that failed to load name host paths and plugins, so only a caller that may use
 * every plugin sees them. A failed skill or a broken related link belongs to one plugin: shown to
 * the callers that may use that plugin (and, for a link, the plugin it points at).
 */
export interface FleetProblemSources {
  missingPluginDirs: readonly string[];
  unknownDisabled: readonly string[];
  /**
   * Bad AGENT_TOOLS_* values (env-settings.ts), MCP servers not started (too deep a chain of
   * runtimes, runtime-depth.ts), and an AGENT_TOOLS_FS_ROOT or AGENT_TOOLS_MEMORY_FILE the embedded
   * default cannot use (config/defaults.ts). An entry that starts this runtime itself is not here:
   * it is a notice (self-reference.ts), as the file lists it on purpose.
   */
  configProblems: readonly string[];
  failures: readonly PluginLoadFailure[];
  brokenLinks: readonly BrokenRelatedLink[];
  /** What is wrong with a plugin's tool list as its server gave it (catalog.ts: a name listed twice); shown to the callers of that plugin. */
  catalogProblems?: readonly { prefix: string; lines: readonly string[] }[];
}

/**
 * The fleet's problems a caller may see; with `only`, those of that one plugin (per-plugin help):
 * its load failure, its tool list's, and its broken related links, none of the config's own.
 */
export function fleetProblems(sources: FleetProblemSources, identity: Identity | undefined, only?: string): string[] {
  const wholeFleet = seesWholeFleet(identity);
  const mayUse = (prefix: string | undefined) => (only === undefined || prefix === only) && (wholeFleet || (prefix !== undefined && mayUsePlugin(identity, prefix)));
  return [
    ...(wholeFleet && only === undefined ? [...sources.missingPluginDirs, ...sources.unknownDisabled, ...sources.configProblems] : []),
    // A manifest's several problems are one entry each (a reader fixes them line by line).
    ...sources.failures.filter((f) => mayUse(f.prefix)).flatMap((f) => f.lines ?? [f.error]),
    ...(sources.catalogProblems ?? []).filter((p) => mayUse(p.prefix)).flatMap((p) => capped(p.prefix, p.lines)),
    // The reason of a broken link names the plugin it points at (and that plugin's skills): both ends must be the caller's.
    ...sources.brokenLinks.filter((l) => mayUse(l.from.split(":")[0]) && (only === undefined ? mayUse(l.target.split(":")[0]) : wholeFleet || mayUsePlugin(identity, l.target.split(":")[0] ?? ""))).map((l) => `skill ${l.from}: related link '${l.target}' does not resolve (${l.reason})`),
  ];
}

/** Lines of one plugin's tool-list problems help shows; a server with hundreds of bad tools would fill every answer. */
export const PROBLEM_LINES_PER_PLUGIN = 10;

/** A plugin's problem lines, the first PROBLEM_LINES_PER_PLUGIN of them and a count of the rest. */
function capped(prefix: string, lines: readonly string[]): readonly string[] {
  if (lines.length <= PROBLEM_LINES_PER_PLUGIN) return lines;
  const rest = lines.length - PROBLEM_LINES_PER_PLUGIN + 1;
  return [...lines.slice(0, PROBLEM_LINES_PER_PLUGIN - 1), `plugin '${prefix}': ${rest} more problems with its tool list (the runtime's log, stderr, says each when the list is read)`];
}
