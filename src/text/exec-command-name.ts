import { pluginCommandName } from "./reserved-names.js";
import { loadJustBash } from "./sandbox.js";

/**
 * The command a plugin has in agent_tools_exec, for every answer that names one (the sandbox's
 * commands, a cut result's note, a next step written as a command line): its prefix, or
 * `plugin-<prefix>` when the prefix is a shell word or one of just-bash's own commands
 * (reserved-names.ts decides; this only supplies just-bash's names, loaded once).
 */

let shellCommands: Promise<ReadonlySet<string>> | undefined;

/** just-bash's own command names (`sort`, `grep`): a plugin command must not hide one. */
export function shellCommandNames(): Promise<ReadonlySet<string>> {
  shellCommands ??= loadJustBash().then((jb) => new Set<string>(jb.getCommandNames()));
  return shellCommands;
}

/** The command name of the plugin with this prefix inside agent_tools_exec. */
export async function execCommandName(prefix: string): Promise<string> {
  return pluginCommandName(prefix, await shellCommandNames());
}
