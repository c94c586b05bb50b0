import path from "node:path";
import type { AgentToolsConfig, McpServerEntry } from "./config.js";

/**
 * A client's file (`.mcp.json`, `claude_desktop_config.json`…) usually registers agent-tools
 * itself; read as this runtime's config, that entry would start a copy of the runtime, which
 * reads the same file and starts another copy, and so on. Such an entry is recognised by the
 * programs it names and skipped with one notice. What this cannot see (a wrapper script hiding
 * the path) is stopped by the depth guard (adapters/shared/runtime-depth.ts).
 */

/** This package's bins (package.json `bin`), and the package's own name, which `npx` runs. */
const OWN_PROGRAMS = new Set(["agent-tools", "agent-tools-mcp", "agent-tools-mcp-http", "agent-tools-runtime"]);

/** Programs that run the program named by their first plain argument: a runtime, a package runner, `env`, `exec`. */
const LAUNCHERS = new Set(["node", "nodejs", "bun", "deno", "tsx", "npx", "pnpx", "bunx", "pnpm", "yarn", "npm", "env", "exec"]);
/** Shells run a command line given after `-c` (`/c` for cmd, `-Command` for PowerShell). */
const SHELLS = new Set(["sh", "bash", "zsh", "dash", "cmd", "pwsh", "powershell"]);
const SHELL_COMMAND_FLAGS = new Set(["-c", "/c", "/C", "-Command", "-command"]);
/** Words between a package runner and the program: `pnpm dlx`, `npm exec`, `bunx x`. */
const RUNNER_WORDS = new Set(["dlx", "exec", "x"]);

/** `…/dist/bin/agent-tools-mcp.js` → `agent-tools-mcp`; `agent-tools-runtime@0.1.0` → `agent-tools-runtime`. */
function programName(word: string): string {
  const name = path.basename(word.trim().replace(/^["']|["']$/g, "").replace(/\\/g, "/")).toLowerCase();
  if (/^agent-tools-runtime-\d[\w.-]*\.tgz$/.test(name)) return "agent-tools-runtime";
  return name.replace(/@[^@/]*$/, "").replace(/\.(c|m)?js$|\.cmd$|\.exe$|\.ps1$/, "");
}

/**
 * Whether a command line starts this runtime: its program is one of this package's, or a launcher
 * whose program (or `npx --package`) is. Only the program is looked at, not every argument: a
 * filesystem server given the runtime's folder as its root is another server.
 */
function startsThisRuntime(words: readonly string[], hops = 0): boolean {
  const [first, ...rest] = words;
  if (first === undefined || hops > 4) return false;
  const name = programName(first);
  if (OWN_PROGRAMS.has(name)) return true;
  if (SHELLS.has(name)) {
    const at = rest.findIndex((word) => SHELL_COMMAND_FLAGS.has(word));
    const line = at >= 0 ? rest[at + 1] : undefined;
    return line !== undefined && startsThisRuntime(line.trim().split(/\s+/), hops + 1);
  }
  if (!LAUNCHERS.has(name)) return false;
  let at = 0;
  for (; at < rest.length; at++) {
    const word = rest[at] as string;
    const named = word.startsWith("--package=") ? word.slice("--package=".length) : word === "-p" || word === "--package" ? rest[++at] : undefined;
    if (named !== undefined && OWN_PROGRAMS.has(programName(named))) return true;
    // Options, `env`'s NAME=value words and a runner's subcommand come before the program.
    if (named === undefined && !word.startsWith("-") && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word) && !RUNNER_WORDS.has(word)) break;
  }
  return startsThisRuntime(rest.slice(at), hops + 1);
}

/** Whether the entry starts this runtime (an HTTP entry is another server's address). */
export function runsThisRuntime(entry: McpServerEntry): boolean {
  return "command" in entry && startsThisRuntime([entry.command, ...(entry.args ?? [])]);
}

/** The keys of the config's entries that start this runtime. */
export function selfReferencingKeys(config: AgentToolsConfig): string[] {
  return Object.entries(config.mcpServers)
    .filter(([, entry]) => !entry.disabled && runsThisRuntime(entry))
    .map(([key]) => key);
}

/** One sentence per skipped entry: which, why, and how to silence it. */
export function selfReferenceNotices(config: AgentToolsConfig): string[] {
  return selfReferencingKeys(config).map((key) => {
    // The command only: arguments may hold a literal token.
    const command = (config.mcpServers[key] as { command: string }).command;
    return (
      `${config.file ?? "config"}: server entry '${key}' (command '${command}') runs agent-tools-runtime itself; skipped, ` +
      `as it would start a copy of this server that reads this same config and starts another copy. To silence this, remove '${key}' from the config agent-tools reads, ` +
      `or point AGENT_TOOLS_CONFIG (or --config) at a file without it (the client can keep its own entry)`
    );
  });
}
