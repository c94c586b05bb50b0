import { realpathSync } from "node:fs";
import path from "node:path";
import type { AgentToolsConfig, McpServerEntry } from "./config.js";
import { entryNames } from "./entry-names.js";
import { OWN_PACKAGE, isOwnBin, isOwnPackageFolder, onPath } from "./own-bin.js";

/**
 * A client's file (`.mcp.json`, `claude_desktop_config.json`…) usually registers agent-tools
 * itself; read as this runtime's config, that entry would start a copy of the runtime, which
 * reads the same file and starts another copy, and so on. Such an entry is recognised by what its
 * program is (own-bin.ts, or the package spec given to npx) and skipped with one notice. What
 * this cannot see or resolve (a wrapper script, a name not on PATH) is left in and stopped by the
 * depth guard (adapters/shared/runtime-depth.ts): a wrong skip drops a user's server silently.
 */

/**
 * What makes a command line this runtime, as the notice says it (undefined: it is not): the
 * script, package spec or program word that was recognised, so the user can find the entry. Never
 * the other arguments, which may hold a literal token.
 */
type Recognised = string | undefined;

/** Where the child would run: paths in its command line are relative to this. */
interface Context {
  dir: string;
  searchPath: string | undefined;
}

/** Runtimes that run the script named by their first plain argument. */
const SCRIPT_RUNNERS = new Set(["node", "nodejs", "bun", "deno", "tsx"]);
/** Their options whose value is the next word (so that word is not the script). */
const SCRIPT_RUNNER_VALUE_OPTIONS = new Set(["-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions", "--env-file", "--title"]);
/** Package runners: the program is a package spec (or `--package`'s), fetched or installed. */
const PACKAGE_RUNNERS = new Set(["npx", "pnpx", "bunx", "pnpm", "yarn", "npm"]);
/** Programs that run the command that follows their options and NAME=value words. */
const COMMAND_RUNNERS = new Set(["env", "exec"]);
/** Shells run a command line given after `-c` (`/c` for cmd, `-Command` for PowerShell). */
const SHELLS = new Set(["sh", "bash", "zsh", "dash", "cmd", "pwsh", "powershell"]);
const SHELL_COMMAND_FLAGS = new Set(["-c", "/c", "/C", "-Command", "-command"]);
/** Words between a runner and what it runs: `pnpm dlx`, `npm exec`, `bunx x`, `deno run`. */
const RUNNER_WORDS = new Set(["dlx", "exec", "x", "run"]);
/** This package's bins, which `npx -p agent-tools-runtime NAME` runs. */
const OWN_BIN_NAMES = new Set(["agent-tools", "agent-tools-mcp", "agent-tools-mcp-http", OWN_PACKAGE]);

const unquote = (word: string): string => word.trim().replace(/^["']|["']$/g, "");

/** `C:\\x\\node.exe` → `node`: only to recognise runners and shells, never this package's programs. */
const runnerName = (word: string): string =>
  path.basename(unquote(word).replace(/\\/g, "/")).toLowerCase().replace(/\.(exe|cmd)$/, "");

const isPathLike = (word: string): boolean => /[/\\]/.test(word) || word.startsWith(".") || word.startsWith("file:");

/**
 * Whether a package spec is this package: `agent-tools-runtime`, `agent-tools-runtime@0.1.0`, its
 * packed `agent-tools-runtime-0.1.0.tgz`, or a local folder whose package.json has its name. The
 * scope is part of the name: `@acme/agent-tools-runtime` is someone else's.
 */
function isOwnPackageSpec(spec: string, context: Context): boolean {
  const word = unquote(spec);
  if (/^agent-tools-runtime-\d[\w.-]*\.tgz$/.test(path.basename(word.replace(/\\/g, "/")))) return true;
  if (isPathLike(word)) return isOwnPackageFolder(path.resolve(context.dir, word.replace(/^file:/, "")));
  const name = /^(@[^/@]+\/)?[^@]+/.exec(word)?.[0];
  return name === OWN_PACKAGE;
}

/** A program word: a path is resolved against the child's folder, a bare name looked up on PATH. */
function ownProgram(word: string, context: Context): Recognised {
  const program = unquote(word);
  if (isPathLike(program)) return isOwnBin(program, context.dir) ? `the program ${program}, a bin of ${OWN_PACKAGE}` : undefined;
  const found = onPath(program, context.searchPath);
  return found !== undefined && isOwnBin(found, context.dir) ? `the program ${program} (${found} on PATH), a bin of ${OWN_PACKAGE}` : undefined;
}

/** `npx [-y] [-p SPEC]… PROGRAM`, `pnpm dlx SPEC`, `npm exec -- SPEC`. */
function packageRunnerStartsThisRuntime(rest: readonly string[], context: Context): Recognised {
  const packages: string[] = [];
  let at = 0;
  for (; at < rest.length; at++) {
    const word = rest[at] as string;
    if (word.startsWith("--package=")) packages.push(word.slice("--package=".length));
    else if (word === "-p" || word === "--package") packages.push(rest[++at] ?? "");
    else if (!word.startsWith("-") && !RUNNER_WORDS.has(word)) break;
  }
  const program = rest[at];
  if (program === undefined) return undefined;
  if (packages.length > 0) {
    const own = packages.find((spec) => isOwnPackageSpec(spec, context));
    return own !== undefined && OWN_BIN_NAMES.has(unquote(program)) ? `the package ${unquote(own)} (its bin ${unquote(program)})` : undefined;
  }
  return isOwnPackageSpec(program, context) ? `the package ${unquote(program)}` : undefined;
}

/** `node [options] SCRIPT`: the script is this package's bin. */
function scriptRunnerStartsThisRuntime(rest: readonly string[], context: Context): Recognised {
  let at = 0;
  for (; at < rest.length; at++) {
    const word = rest[at] as string;
    if (SCRIPT_RUNNER_VALUE_OPTIONS.has(word)) at++;
    else if (!word.startsWith("-") && !RUNNER_WORDS.has(word)) break;
  }
  const script = rest[at];
  return script !== undefined && isOwnBin(unquote(script), context.dir) ? `the script ${unquote(script)}, a bin of ${OWN_PACKAGE}` : undefined;
}

/**
 * Whether a command line starts this runtime. Only the program is looked at, not every argument:
 * a filesystem server given the runtime's folder as its root is another server.
 */
function startsThisRuntime(words: readonly string[], context: Context, hops = 0): Recognised {
  const [first, ...rest] = words;
  if (first === undefined || hops > 4) return undefined;
  const name = runnerName(first);
  if (SHELLS.has(name)) {
    const at = rest.findIndex((word) => SHELL_COMMAND_FLAGS.has(word));
    const line = at >= 0 ? rest[at + 1] : undefined;
    return line === undefined ? undefined : startsThisRuntime(line.trim().split(/\s+/), context, hops + 1);
  }
  if (PACKAGE_RUNNERS.has(name)) return packageRunnerStartsThisRuntime(rest, context);
  if (SCRIPT_RUNNERS.has(name)) return scriptRunnerStartsThisRuntime(rest, context);
  if (COMMAND_RUNNERS.has(name)) {
    const at = rest.findIndex((word) => !word.startsWith("-") && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
    return at >= 0 ? startsThisRuntime(rest.slice(at), context, hops + 1) : undefined;
  }
  return ownProgram(first, context);
}

const realOrResolved = (file: string): string => {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
};

/**
 * The config file the child names itself (`--config F`, `--config=F`, else its env's
 * AGENT_TOOLS_CONFIG, as config.ts reads them), resolved against the child's folder;
 * undefined when it names none and so reads what this runtime reads.
 */
function namedConfig(entry: { args?: string[]; env?: Record<string, string> }, dir: string): string | undefined {
  const args = entry.args ?? [];
  let named: string | undefined;
  for (let at = 0; at < args.length; at++) {
    const word = args[at] as string;
    if (word === "--config") named = args[at + 1];
    else if (word.startsWith("--config=")) named = word.slice("--config=".length);
  }
  named ??= entry.env?.AGENT_TOOLS_CONFIG;
  return named === undefined || named === "" ? undefined : path.resolve(dir, unquote(named));
}

/**
 * What makes the entry start this runtime reading this same config, or undefined when it does not
 * (an HTTP entry is another server's address). A copy given another config on purpose is a
 * deliberate nesting: kept, and bounded by the depth guard.
 */
function recogniseThisRuntime(entry: McpServerEntry, configFile: string | undefined): Recognised {
  if (!("command" in entry)) return undefined;
  const configDir = configFile === undefined ? process.cwd() : path.dirname(configFile);
  const context: Context = {
    dir: entry.cwd === undefined ? configDir : path.resolve(configDir, entry.cwd),
    searchPath: entry.env?.PATH ?? process.env.PATH,
  };
  const recognised = startsThisRuntime([entry.command, ...(entry.args ?? [])], context);
  if (recognised === undefined) return undefined;
  const named = namedConfig(entry, context.dir);
  return named === undefined || configFile === undefined || realOrResolved(named) === realOrResolved(configFile) ? recognised : undefined;
}

/** Whether the entry starts this runtime reading this same config (recogniseThisRuntime). */
export function runsThisRuntime(entry: McpServerEntry, configFile: string | undefined): boolean {
  return recogniseThisRuntime(entry, configFile) !== undefined;
}

/**
 * The config's entries that start this runtime, with what gave each away. An entry that is off
 * (`disabled`, or named by `plugins.disable`) starts nothing: it is not reported, so disabling it
 * is one more way to silence the notice.
 */
function selfReferences(config: AgentToolsConfig): { key: string; recognised: string }[] {
  const disabled = new Set(config.plugins.disable);
  return Object.entries(config.mcpServers).flatMap(([key, entry]) => {
    if (entry.disabled || entryNames(key).some((name) => disabled.has(name))) return [];
    const recognised = recogniseThisRuntime(entry, config.file);
    return recognised === undefined ? [] : [{ key, recognised }];
  });
}

/** One sentence per skipped entry: which, why (the command and what in it is this runtime), and how to silence it. */
export function selfReferenceNotices(config: AgentToolsConfig): string[] {
  return selfReferences(config).map(({ key, recognised }) => {
    const command = (config.mcpServers[key] as { command: string }).command;
    return (
      `${config.file ?? "config"}: server entry '${key}' (command '${command}': ${recognised}) runs agent-tools-runtime itself; skipped, ` +
      `as it would start a copy of this server that reads this same config and starts another copy. To silence this, remove '${key}' from the config agent-tools reads or name it in its plugins.disable, ` +
      `or point AGENT_TOOLS_CONFIG (or --config) at a file without it (the client can keep its own entry)`
    );
  });
}
