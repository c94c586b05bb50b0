import { realpathSync } from "node:fs";
import path from "node:path";
import { interpolate } from "../adapters/shared/env-vars.js";
import { findOnPath } from "../plugins/requirements.js";
import { locateConfig, type AgentToolsConfig, type McpServerEntry } from "./config.js";
import { entryNames } from "./entry-names.js";
import { OWN_PACKAGE, isOwnBin, isOwnPackageFolder } from "./own-bin.js";
import { workingFolderOf } from "../adapters/shared/working-folder.js";

/**
 * A client's file (`.mcp.json`, `claude_desktop_config.json`…) usually registers agent-tools
 * itself; read as this runtime's config, that entry would start a copy of the runtime, which
 * reads the same file and starts another copy, and so on. Such an entry is skipped with one
 * notice when two things are sure: its program is this runtime (own-bin.ts, or the package spec a
 * runner is given), and the copy would read this same file (config.ts's own lookup, run with the
 * child's arguments, environment and folder). Whatever is unsure (a wrapper script, a name not on
 * PATH, a runner option not known here, a package.json script) is kept and stopped by the depth
 * guard (adapters/shared/runtime-depth.ts): a wrong skip drops a user's server silently.
 */

/** Where the child runs and what it is given, as far as the command line tells. */
interface Context {
  /** The folders the command may run in: more than one when a runner may move it, and every one must agree. */
  dirs: readonly string[];
  /** The child's environment as the config lookup and a PATH lookup see it. */
  env: NodeJS.ProcessEnv;
}

/** A command line that starts this runtime. */
interface Match {
  /** What gave it away, as the notice says it: the script, package spec or program word, never the other arguments (they may hold a token). */
  recognised: string;
  /** The words the runtime itself is given (where its `--config` would be). */
  runtimeArgs: readonly string[];
  context: Context;
}

/** Runtimes that run the script named by their first plain argument. */
const SCRIPT_RUNNERS = new Set(["node", "nodejs", "bun", "deno", "tsx"]);
/** Their options whose value is the next word (so that word is not the script). */
const SCRIPT_RUNNER_VALUE_OPTIONS = new Set(["-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions", "--env-file", "--title"]);
/** Words between a script runner and the script: `deno run`, `bun run`, `bun x`. */
const SCRIPT_RUNNER_WORDS = new Set(["run", "x"]);
/** Programs that run the command that follows their NAME=value words. */
const COMMAND_RUNNERS = new Set(["env", "exec"]);
/** Shells run a command line given after `-c` (`/c` for cmd, `-Command` for PowerShell). */
const SHELLS = new Set(["sh", "bash", "zsh", "dash", "cmd", "pwsh", "powershell"]);
const SHELL_COMMAND_FLAGS = new Set(["-c", "/c", "/C", "-Command", "-command"]);
/** This package's bins, which `npx -p agent-tools-runtime NAME` runs. */
const OWN_BIN_NAMES = new Set(["agent-tools", "agent-tools-mcp", "agent-tools-mcp-http", OWN_PACKAGE]);

/**
 * A package runner's options, from its documentation. An option in none of these sets makes the
 * program unknown (its value may be the next word), so the entry is kept. Left out on purpose, as
 * they run the command in folders not known here: npm's `-w`/`--workspace`/`--ws`, pnpm's
 * `-r`/`--filter`/`-w`; and npm's `-c`/`--call`, a command line of its own.
 */
interface RunnerGrammar {
  /** Options whose value is the next word (or follows `=`). */
  valued: ReadonlySet<string>;
  /** Options that take no value. */
  flags: ReadonlySet<string>;
  /** Valued options naming the folder the command runs in (`--prefix`, `-C`, `--dir`, `--cwd`). */
  folder: ReadonlySet<string>;
  /** Valued options naming a package to install (`-p SPEC`). */
  package: ReadonlySet<string>;
}

const NPM: RunnerGrammar = {
  valued: new Set(["--prefix", "-C", "-p", "--package", "--registry", "--cache", "--userconfig", "--globalconfig", "--loglevel", "--node-options", "--script-shell", "--tag", "--before", "--otp", "--scope"]),
  flags: new Set(["-y", "--yes", "--no", "-q", "--quiet", "-s", "--silent", "-d", "--verbose", "--prefer-offline", "--prefer-online", "--offline", "--no-install", "--ignore-existing", "--foreground-scripts"]),
  folder: new Set(["--prefix", "-C"]),
  package: new Set(["-p", "--package"]),
};
const PNPM: RunnerGrammar = {
  valued: new Set(["-C", "--dir", "--package", "--allow-build", "--loglevel", "--reporter"]),
  flags: new Set(["-c", "--shell-mode", "-s", "--silent", "--stream", "--aggregate-output", "--use-stderr", "--report-summary", "--reporter-hide-prefix", "--no-reporter-hide-prefix"]),
  folder: new Set(["-C", "--dir"]),
  package: new Set(["--package"]),
};
const YARN: RunnerGrammar = {
  valued: new Set(["--cwd", "-p", "--package", "--cache-folder", "--modules-folder", "--global-folder", "--link-folder", "--preferred-cache-folder", "--mutex", "--registry", "--network-timeout", "--network-concurrency", "--use-yarnrc"]),
  flags: new Set(["-q", "--quiet", "-s", "--silent", "--verbose", "--offline", "--prefer-offline", "--frozen-lockfile", "--no-progress"]),
  folder: new Set(["--cwd"]),
  package: new Set(["-p", "--package"]),
};
const BUNX: RunnerGrammar = {
  valued: new Set(["-p", "--package"]),
  flags: new Set(["--bun", "--no-install", "--verbose", "--silent"]),
  folder: new Set(),
  package: new Set(["-p", "--package"]),
};

const unquote = (word: string): string => word.trim().replace(/^["']|["']$/g, "");

/** `C:\\x\\node.exe` → `node`: only to recognise runners and shells, never this package's programs. */
const runnerName = (word: string): string =>
  path.basename(unquote(word).replace(/\\/g, "/")).toLowerCase().replace(/\.(exe|cmd)$/, "");

const isPathLike = (word: string): boolean => /[/\\]/.test(word) || word.startsWith(".") || word.startsWith("file:");

/** Whether `test` holds in every folder the command may run in. */
const inEveryDir = (context: Context, test: (dir: string) => boolean): boolean => context.dirs.every(test);

/**
 * Whether a package spec is this package: `agent-tools-runtime`, `agent-tools-runtime@0.1.0`, its
 * packed `agent-tools-runtime-0.1.0.tgz`, or a local folder whose package.json has its name. The
 * scope is part of the name: `@acme/agent-tools-runtime` is someone else's.
 */
function isOwnPackageSpec(spec: string, context: Context): boolean {
  const word = unquote(spec);
  if (/^agent-tools-runtime-\d[\w.-]*\.tgz$/.test(path.basename(word.replace(/\\/g, "/")))) return true;
  if (isPathLike(word)) return inEveryDir(context, (dir) => isOwnPackageFolder(path.resolve(dir, word.replace(/^file:/, ""))));
  const name = /^(@[^/@]+\/)?[^@]+/.exec(word)?.[0];
  return name === OWN_PACKAGE;
}

/** A program word: a path is resolved against the child's folder, a bare name looked up on the child's PATH. */
function ownProgram(words: readonly string[], context: Context): Match | undefined {
  const program = unquote(words[0] as string);
  const runtimeArgs = words.slice(1);
  if (isPathLike(program)) {
    return inEveryDir(context, (dir) => isOwnBin(program, dir)) ? { recognised: `the program ${program}, a bin of ${OWN_PACKAGE}`, runtimeArgs, context } : undefined;
  }
  const found = findOnPath(program, context.env);
  return found !== undefined && isOwnBin(found, path.dirname(found)) ? { recognised: `the program ${program} (${found} on PATH), a bin of ${OWN_PACKAGE}`, runtimeArgs, context } : undefined;
}

interface RunnerOptions {
  /** The index of the first word after the options. */
  next: number;
  packages: string[];
  context: Context;
}

/**
 * The runner's options from `from` on, up to its first plain word (or past `--`); undefined when
 * one is not in its grammar, since its value could be the word taken for the program. A folder
 * option adds that folder to where the command may run (the old one stays: both must agree).
 */
function readRunnerOptions(words: readonly string[], from: number, grammar: RunnerGrammar, context: Context): RunnerOptions | undefined {
  const packages: string[] = [];
  let dirs = context.dirs;
  let at = from;
  for (; at < words.length; at++) {
    const word = words[at] as string;
    if (word === "--") {
      at++;
      break;
    }
    if (!word.startsWith("-") || word === "-") break;
    const equals = word.startsWith("--") ? word.indexOf("=") : -1;
    const name = equals > 0 ? word.slice(0, equals) : word;
    let value: string | undefined;
    if (equals > 0) value = word.slice(equals + 1);
    else if (grammar.valued.has(name)) value = words[++at];
    else if (grammar.flags.has(name)) continue;
    else return undefined;
    if (value === undefined) return undefined;
    if (grammar.package.has(name)) packages.push(value);
    if (grammar.folder.has(name)) dirs = [...new Set([...dirs, ...dirs.map((dir) => path.resolve(dir, unquote(value)))])];
  }
  return { next: at, packages, context: { ...context, dirs } };
}

/** What a package runner runs: `PROGRAM` as a package spec, or with `-p SPEC` one of that package's bins. */
function runnerPackage(words: readonly string[], options: RunnerOptions): Match | undefined {
  const program = words[options.next];
  if (program === undefined) return undefined;
  const runtimeArgs = words.slice(options.next + 1);
  const { context } = options;
  if (options.packages.length > 0) {
    const own = options.packages.find((spec) => isOwnPackageSpec(spec, context));
    return own !== undefined && OWN_BIN_NAMES.has(unquote(program)) ? { recognised: `the package ${unquote(own)} (its bin ${unquote(program)})`, runtimeArgs, context } : undefined;
  }
  return isOwnPackageSpec(program, context) ? { recognised: `the package ${unquote(program)}`, runtimeArgs, context } : undefined;
}

/**
 * `npx [options] SPEC`, `npm [options] exec|x [options] [--] SPEC`, `pnpm dlx`/`pnpx`, `yarn dlx`,
 * `bunx`; `pnpm exec`/`yarn exec CMD` and `yarn node SCRIPT` run a command, looked at as one.
 * `npm run`, `pnpm run`, `yarn SCRIPT` and any other subcommand run what this cannot see (a
 * package.json script): undefined, so the entry is kept.
 */
function packageRunnerStartsThisRuntime(runner: string, rest: readonly string[], context: Context, hops: number): Match | undefined {
  const grammar = runner === "npx" || runner === "npm" ? NPM : runner === "pnpm" || runner === "pnpx" ? PNPM : runner === "yarn" ? YARN : BUNX;
  const global = readRunnerOptions(rest, 0, grammar, context);
  if (global === undefined) return undefined;
  if (runner === "npx" || runner === "pnpx" || runner === "bunx") return runnerPackage(rest, global);
  const subcommand = rest[global.next];
  const after = (): RunnerOptions | undefined => {
    const more = readRunnerOptions(rest, global.next + 1, grammar, global.context);
    return more && { ...more, packages: [...global.packages, ...more.packages] };
  };
  if ((runner === "npm" && (subcommand === "exec" || subcommand === "x")) || ((runner === "pnpm" || runner === "yarn") && subcommand === "dlx")) {
    const options = after();
    return options && runnerPackage(rest, options);
  }
  if ((runner === "pnpm" || runner === "yarn") && subcommand === "exec") {
    const options = after();
    return options && startsThisRuntime(rest.slice(options.next), options.context, hops + 1);
  }
  if (runner === "yarn" && subcommand === "node") return startsThisRuntime(rest.slice(global.next), global.context, hops + 1);
  return undefined;
}

/** `node [options] SCRIPT`: the script is this package's bin. */
function scriptRunnerStartsThisRuntime(rest: readonly string[], context: Context): Match | undefined {
  let at = 0;
  for (; at < rest.length; at++) {
    const word = rest[at] as string;
    if (SCRIPT_RUNNER_VALUE_OPTIONS.has(word)) at++;
    else if (!word.startsWith("-") && !SCRIPT_RUNNER_WORDS.has(word)) break;
  }
  const script = rest[at];
  if (script === undefined || !inEveryDir(context, (dir) => isOwnBin(unquote(script), dir))) return undefined;
  return { recognised: `the script ${unquote(script)}, a bin of ${OWN_PACKAGE}`, runtimeArgs: rest.slice(at + 1), context };
}

/**
 * `env [NAME=value…] COMMAND`: the assignments reach the child. With an option (`-i`, `-u NAME`,
 * `-C DIR`) what the child gets is not followed here: undefined.
 */
function commandRunnerStartsThisRuntime(rest: readonly string[], context: Context, hops: number): Match | undefined {
  const env = { ...context.env };
  for (let at = 0; at < rest.length; at++) {
    const word = rest[at] as string;
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(word);
    if (assignment) env[assignment[1] as string] = unquote(assignment[2] as string);
    else if (word.startsWith("-")) return undefined;
    else return startsThisRuntime(rest.slice(at), { ...context, env }, hops + 1);
  }
  return undefined;
}

/**
 * Whether a command line starts this runtime. Only the program is looked at, not every argument:
 * a filesystem server given the runtime's folder as its root is another server.
 */
function startsThisRuntime(words: readonly string[], context: Context, hops = 0): Match | undefined {
  const [first, ...rest] = words;
  if (first === undefined || hops > 4) return undefined;
  const name = runnerName(first);
  if (SHELLS.has(name)) {
    const at = rest.findIndex((word) => SHELL_COMMAND_FLAGS.has(word));
    const line = at >= 0 ? rest[at + 1] : undefined;
    return line === undefined ? undefined : startsThisRuntime(line.trim().split(/\s+/), context, hops + 1);
  }
  if (["npx", "pnpx", "bunx", "pnpm", "yarn", "npm"].includes(name)) return packageRunnerStartsThisRuntime(name, rest, context, hops);
  if (SCRIPT_RUNNERS.has(name)) return scriptRunnerStartsThisRuntime(rest, context);
  if (COMMAND_RUNNERS.has(name)) return commandRunnerStartsThisRuntime(rest, context, hops);
  return ownProgram(words, context);
}

const realOrResolved = (file: string): string => {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
};

/**
 * What the child's config lookup reads from its environment that it inherits from this runtime's:
 * these are in the safe base of adapters/mcp/child-env.ts (a test holds the two lists together),
 * while XDG_CONFIG_HOME and AGENT_TOOLS_CONFIG are not, so only the entry's own `env` gives them.
 */
export const INHERITED_LOOKUP_VARIABLES = ["HOME", "USERPROFILE", "APPDATA", "PATH", "PATHEXT"] as const;

/**
 * The child's environment as far as this check needs it: the inherited variables above, then the
 * entry's `env` with `${VAR}` resolved on the host, as the adapter does. Undefined when a
 * reference is unset: such a child fails to start, it does not loop.
 */
function childLookupEnv(entry: { env?: Record<string, string> }, hostEnv: NodeJS.ProcessEnv): NodeJS.ProcessEnv | undefined {
  const env: NodeJS.ProcessEnv = {};
  for (const name of INHERITED_LOOKUP_VARIABLES) if (hostEnv[name] !== undefined) env[name] = hostEnv[name];
  try {
    for (const [name, value] of Object.entries(entry.env ?? {})) env[name] = interpolate(value, hostEnv, `env.${name}`);
  } catch {
    return undefined;
  }
  return env;
}

/** The child's own `--config F` / `--config=F` (the last one wins, as for its option parser); "" when it gives none. */
function explicitConfig(runtimeArgs: readonly string[]): string | undefined {
  let named: string | undefined;
  for (let at = 0; at < runtimeArgs.length; at++) {
    const word = unquote(runtimeArgs[at] as string);
    if (word === "--") break;
    if (word === "--config") named = unquote(runtimeArgs[at + 1] ?? "");
    else if (word.startsWith("--config=")) named = word.slice("--config=".length);
  }
  return named;
}

/**
 * Whether the child would read `configFile`: config.ts's lookup (its `--config`, else its
 * AGENT_TOOLS_CONFIG, else `agent-tools.config.json` in its folder, else the user-level file of
 * its HOME) in every folder it may run in. A name that does not resolve (an unset `${VAR}`, a file
 * that does not exist) makes a child that fails to start, not a loop: false.
 */
function readsThisConfig(match: Match, configFile: string, hostEnv: NodeJS.ProcessEnv): boolean {
  const own = realOrResolved(configFile);
  let explicit = explicitConfig(match.runtimeArgs);
  try {
    if (explicit !== undefined) explicit = interpolate(explicit, hostEnv, "--config");
    return inEveryDir(match.context, (dir) => {
      const found = locateConfig(explicit === "" ? undefined : explicit, match.context.env, dir);
      return found !== undefined && realOrResolved(found.file) === own;
    });
  } catch {
    return false;
  }
}

/**
 * What makes the entry start this runtime reading this same config, or undefined when it does not
 * (an HTTP entry is another server's address). A copy that reads another file is a deliberate
 * nesting: kept, and bounded by the depth guard. With no config file (a config given in code)
 * there is no file a copy could read again: nothing is skipped.
 */
function recogniseThisRuntime(entry: McpServerEntry, configFile: string | undefined, hostEnv: NodeJS.ProcessEnv): string | undefined {
  if (!("command" in entry) || configFile === undefined) return undefined;
  const env = childLookupEnv(entry, hostEnv);
  if (env === undefined) return undefined;
  let dir = path.dirname(configFile);
  try {
    // As the adapter starts it (stdio-transport.ts resolveLaunch): the entry's cwd against the config's folder.
    dir = workingFolderOf(entry.cwd, dir, (cwd) => interpolate(cwd, hostEnv, "cwd"));
  } catch {
    return undefined;
  }
  const match = startsThisRuntime([entry.command, ...(entry.args ?? [])], { dirs: [dir], env });
  return match !== undefined && readsThisConfig(match, configFile, hostEnv) ? match.recognised : undefined;
}

/** Whether the entry starts this runtime reading this same config (recogniseThisRuntime). */
export function runsThisRuntime(entry: McpServerEntry, configFile: string | undefined, hostEnv: NodeJS.ProcessEnv = process.env): boolean {
  return recogniseThisRuntime(entry, configFile, hostEnv) !== undefined;
}

/** An entry skipped because it starts this runtime, with what gave it away. */
export interface SelfReference {
  key: string;
  recognised: string;
}

/**
 * The config's entries that start this runtime, decided once per start: the same list leaves them
 * out of the fleet (mcp-servers.ts) and is said in the notices. An entry that is off (`disabled`,
 * or named by `plugins.disable`) starts nothing: it is not reported, so disabling it is one more
 * way to silence the notice.
 */
export function selfReferences(config: AgentToolsConfig, hostEnv: NodeJS.ProcessEnv = process.env): SelfReference[] {
  const disabled = new Set(config.plugins.disable);
  return Object.entries(config.mcpServers).flatMap(([key, entry]) => {
    if (entry.disabled || entryNames(key).some((name) => disabled.has(name))) return [];
    const recognised = recogniseThisRuntime(entry, config.file, hostEnv);
    return recognised === undefined ? [] : [{ key, recognised }];
  });
}

/** One sentence per skipped entry: which, why (the command and what in it is this runtime), and how to silence it. */
export function selfReferenceNotices(config: AgentToolsConfig, skipped: readonly SelfReference[]): string[] {
  return skipped.map(({ key, recognised }) => {
    const command = (config.mcpServers[key] as { command: string }).command;
    return (
      `${config.file ?? "config"}: server entry '${key}' (command '${command}': ${recognised}) runs agent-tools-runtime itself; skipped, ` +
      `as it would start a copy of this server that reads this same config and starts another copy. To silence this, remove '${key}' from the config agent-tools reads or name it in its plugins.disable, ` +
      `or point AGENT_TOOLS_CONFIG (or --config) at a file without it (the client can keep its own entry)`
    );
  });
}
