import { parseArgs } from "node:util";
import { packageJson } from "../paths.js";
import { sendStrayStdoutToStderr, writeStdout } from "../stdout-guard.js";

/**
 * The `agent-tools` command. Reports go to stdout as JSON except under `mcp`, where stdout is the
 * protocol. Each command's modules are imported only when it runs, so `probe` works even when
 * the runtime's own dependencies are missing — which is what it is there to report.
 */

/**
 * Every option once: how it parses, its words and what it does. The parser's options, the options
 * that take a value (commandIndex) and each command's help are all read from here.
 */
const OPTION_HELP = {
  config: {
    type: "string",
    words: "--config FILE",
    does: "the config file (else $AGENT_TOOLS_CONFIG, else ./agent-tools.config.json, else the\nuser-level file: $XDG_CONFIG_HOME/agent-tools-runtime/config.json on Linux)",
  },
  "plugins-dir": { type: "string", words: "--plugins-dir DIR", does: "load plugins from DIR (like AGENT_TOOLS_PLUGINS_DIR)" },
  host: { type: "string", words: "--host HOST", does: "the address to bind (like AGENT_TOOLS_HTTP_HOST)" },
  port: { type: "string", words: "--port PORT", does: "the port (like AGENT_TOOLS_HTTP_PORT; 0 picks a free one)" },
  json: { type: "boolean", words: "--json", does: "the report as JSON instead of a table" },
  tools: { type: "string", words: "--tools FILE", does: "a tools.json to count instead of the configured fleet" },
  queries: { type: "string", words: "--queries FILE", does: "the queries (queries.jsonl)" },
  limit: { type: "string", words: "--limit N", does: "the last N entries (default 100)" },
  engine: { type: "string", words: "--engine E", does: "the ranking engine (an unknown name is refused with the list)" },
  follow: { type: "boolean", short: "f", words: "-f, --follow", does: "keep printing new entries" },
  help: { type: "boolean", short: "h", words: "-h, --help", does: "print help and exit" },
  version: { type: "boolean", short: "v", words: "-v, --version", does: "print the version and exit" },
} as const;

type OptionName = keyof typeof OPTION_HELP;

/** The parser's view of OPTION_HELP (each option's type literal kept, so the parsed values are typed). */
const PARSE_OPTIONS = Object.fromEntries(
  Object.entries(OPTION_HELP).map(([name, option]) => [name, { type: option.type, ...("short" in option ? { short: option.short } : {}) }]),
) as { [K in OptionName]: { type: (typeof OPTION_HELP)[K]["type"]; short?: string } };
/** Every option's spellings (`--name`, and `-x` for one with a short form) → the option. */
const OPTION_WORDS = new Map<string, OptionName>(
  (Object.keys(OPTION_HELP) as OptionName[]).flatMap((name): [string, OptionName][] => {
    const short = (OPTION_HELP[name] as { short?: string }).short;
    return [[`--${name}`, name], ...(short ? [[`-${short}`, name] as [string, OptionName]] : [])];
  }),
);
/** A command's options; a string replaces the option's usual wording for that command. */
type CommandOptions = Partial<Record<OptionName, true | string>>;

const SERVER_OPTIONS: CommandOptions = { config: true, "plugins-dir": true };

/**
 * Each command: its synopsis, what it does and the options it takes (the help text of
 * `agent-tools CMD --help`); `bin`: the program that runs only this command; `loadsPlugins`: its
 * stdout is its answer (JSON-RPC or JSON) and it runs plugin code, whose stray output is sent to
 * stderr before any of it loads (stdout-guard.ts).
 */
const COMMANDS: Readonly<Record<string, { synopsis: string; does: string; options?: CommandOptions; bin?: string; maxWords?: number; loadsPlugins?: true }>> = {
  mcp: { synopsis: "mcp", does: "serve the MCP facade over stdio", options: SERVER_OPTIONS, bin: "agent-tools-mcp", loadsPlugins: true },
  http: { synopsis: "http [--host HOST] [--port PORT]", does: "serve the MCP facade over Streamable HTTP at http://127.0.0.1:8321/mcp", options: { ...SERVER_OPTIONS, host: true, port: true }, bin: "agent-tools-mcp-http" },
  probe: { synopsis: "probe", does: "preflight report as JSON; exit 0 ready, 1 installable, 2 blocked" },
  validate: { synopsis: "validate", does: "load every plugin and the config file and check them all; exit 1 on problems", options: SERVER_OPTIONS, loadsPlugins: true },
  status: { synopsis: "status", does: "the text layer: READY, or what is missing and the problems found, the config file read, commands, modules (one JSON answer)", options: SERVER_OPTIONS, loadsPlugins: true },
  list: { synopsis: "list", does: "the text layer's commands (one JSON answer)", options: SERVER_OPTIONS, loadsPlugins: true },
  load: { synopsis: "load MODULE", does: "load a text module from commands/ in a one-off session (one JSON answer)", options: SERVER_OPTIONS, loadsPlugins: true, maxWords: Infinity },
  exec: {
    maxWords: Infinity,
    synopsis: "exec [options] [--] COMMAND…",
    does: "run a command line in a one-off sandbox (one JSON answer; exit = its exit code).\nOptions go before the command: the words from its first one on are the command line, verbatim",
    options: SERVER_OPTIONS,
    loadsPlugins: true,
  },
  serve: { synopsis: "serve", does: 'JSON lines on stdin ({"action":"exec","command":"…"}) → one JSON answer per line', options: SERVER_OPTIONS, loadsPlugins: true },
  tokens: { synopsis: "tokens [--json] [--tools FILE]", does: "tools/list tokens (o200k) of the fleet: both facade modes, flat, per plugin", options: { ...SERVER_OPTIONS, json: true, tools: true }, loadsPlugins: true },
  audit: { synopsis: "audit [--limit N] [--follow]", does: "print the audit log of writes, one JSON line each (Redis stream or JSONL file)", options: { config: true, limit: "the last N entries, a positive whole number (default 100)", follow: true } },
  "hash-token": { synopsis: "hash-token [TOKEN]", does: "the SHA-256 a team identity's tokenSha256 holds; without TOKEN, a new random token and its hash", maxWords: 1 },
  cache: { synopsis: "cache [clear]", does: "where the plugin catalog cache lives and what it holds; `clear` empties it", maxWords: 1 },
  "search-bench": {
    synopsis: "search-bench --tools FILE --queries FILE [--limit N] [--engine E]",
    does: "rank the queries against the tools through agent_tools_search's code path",
    options: { tools: "the tools (tools.json)", queries: true, limit: "hits per query, 1 to 50 (default 10)", engine: true },
  },
  version: { synopsis: "version", does: "print the version (also -v, --version)" },
  help: { synopsis: "help [COMMAND]", does: "this text, or one command's (also -h, --help)", maxWords: 1 },
};

/** What an option does for a command: the command's own wording, else the usual one. */
function optionDoes(options: CommandOptions | undefined, name: OptionName): string {
  const given = options?.[name];
  return typeof given === "string" ? given : OPTION_HELP[name].does;
}

/** A help text's continued lines, indented under the column where its first line's text starts. */
function indentContinued(text: string): string {
  return text.replace(/\n/g, `\n${" ".repeat(22)}`);
}

/** The options block of a help text: each option's words, then what it does (continued lines indented under it). */
function optionsText(options: CommandOptions): string {
  const lines = (Object.keys(options) as OptionName[]).map((name) => `  ${OPTION_HELP[name].words.padEnd(20)}${indentContinued(optionDoes(options, name))}`);
  return `options:\n${lines.join("\n")}\n`;
}

/** What a command does, saying which other program (or command) is the same. */
function describeCommand(command: string, bin: string): string {
  const entry = COMMANDS[command];
  if (!entry) return "";
  if (!entry.bin) return entry.does;
  return `${entry.does} (the same as ${bin === entry.bin ? `agent-tools ${command}` : entry.bin})`;
}

const USAGE = `usage: agent-tools <command> [options]   (agent-tools-runtime is the same program)

commands:
${Object.entries(COMMANDS)
  .map(([command, { synopsis }]) => `  ${synopsis.length > 19 ? `${synopsis}\n${" ".repeat(22)}` : synopsis.padEnd(20)}${indentContinued(describeCommand(command, "agent-tools"))}`)
  .join("\n")}

${optionsText({ ...SERVER_OPTIONS, host: `http: ${OPTION_HELP.host.does}`, port: `http: ${OPTION_HELP.port.does}`, help: true, version: true })}`;

/** The help of one command; `bin` names the program it was asked of (agent-tools-mcp names no command). */
function commandUsage(command: string, bin = "agent-tools"): string {
  const entry = COMMANDS[command];
  if (!entry) return USAGE;
  const synopsis = bin === "agent-tools" ? `agent-tools ${entry.synopsis}` : `${bin}${entry.synopsis.replace(/^\S+/, "")}`;
  // A program of its own (agent-tools-mcp) also answers -v; a command's -v is the program's.
  const options: CommandOptions = { ...entry.options, help: true, ...(bin === entry.bin ? { version: true } : {}) };
  // A synopsis that places its options itself (exec: before the command line) gets no trailing "[options]".
  return `usage: ${synopsis}${entry.synopsis.includes("[options]") ? "" : " [options]"}\n\n${describeCommand(command, bin)}\n\n${optionsText(options)}`;
}

/** "; did you mean 'X'?" with the candidate closest to `word` (written as `show` writes it) when a typo is likely, else "". */
async function didYouMean(word: string, candidates: readonly string[], show = (candidate: string) => candidate): Promise<string> {
  const { closestNames } = await import("../runtime/similarity.js");
  const [close] = closestNames(word, candidates, 0.5, 1);
  return close === undefined ? "" : `; did you mean '${show(close)}'?`;
}

/** A word that is no command, with the closest one when a typo is likely, then the usage that lists them all. */
async function unknownCommand(word: string): Promise<string> {
  return `unknown command '${word}'${await didYouMean(word, Object.keys(COMMANDS))}\n\n${USAGE}`;
}

/**
 * What parseArgs refused, in this program's words: an unknown option with the nearest real one,
 * an option whose value is missing or starts with '-' with what the option takes. `args`: the
 * words parsed; `command`: the command they name, for its wording of an option.
 */
async function optionProblem(error: Error & { code?: string }, args: readonly string[], command: string | undefined): Promise<string> {
  // Node names a short-and-long option as '-f, --follow': the long form is kept.
  const named = /^(?:Unknown option|Option) '(?:-\w, )?(-{1,2}[^' ]+)/.exec(error.message)?.[1];
  const name = named ? OPTION_WORDS.get(named) : undefined;
  // Node reads '-f=2' as the one-letter options -f, -= and -2, and names '-=': the word typed is what is wrong.
  const glued = error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ? args.find((arg) => /^-[^-=]+=/.test(arg)) : undefined;
  if (glued) {
    const short = glued.slice(0, 2);
    const option = OPTION_WORDS.get(short);
    // Every one-letter option is a switch (-f, -h, -v): none takes a value.
    return option
      ? `'${glued}': ${short} takes no value (${optionTakes(option, command)}); write ${short} alone`
      : `unknown option '${glued}': '${short}' is no option of this program, and a one-letter option takes no '=' value`;
  }
  if (error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && named) {
    // Names compared without their dashes (shared dashes would make '--bogus' look like '--tools');
    // a one-letter option is too short to guess from.
    const near = named.startsWith("--") ? await didYouMean(named.slice(2), Object.keys(OPTION_HELP), (option) => `--${option}`) : "";
    return `unknown option '${named}'${near}`;
  }
  if (error.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && name && named) {
    const option = OPTION_HELP[name];
    const takes = optionTakes(name, command);
    if (option.type === "boolean") return `${named} takes no value (${takes}); write it alone`;
    const next = args[args.indexOf(named) + 1];
    return next === undefined
      ? `${named} needs a value after it (${takes})`
      : `${named} needs a value after it (${takes}); '${next}' reads as an option (a value that starts with '-' is written --${name}=${next})`;
  }
  return error.message.replace(/\. To specify a positional.*$/s, "");
}

/** An option as the usage says it, with what it does for `command` ("-f, --follow: keep printing new entries"). */
function optionTakes(name: OptionName, command: string | undefined): string {
  return `${OPTION_HELP[name].words}: ${optionDoes(command ? COMMANDS[command]?.options : undefined, name).replace(/\s*\n\s*/g, " ")}`;
}

async function readConfig(explicit: string | undefined) {
  const { loadConfig } = await import("../config/config.js");
  return loadConfig(explicit);
}

/**
 * The config for a command whose answer is JSON on stdout; a config that does not load (ConfigError)
 * still gets that answer, built by `answer` from the problems, so a script parsing stdout reads the
 * problem instead of failing on empty output. The problems go to stderr too; undefined means exit 1.
 */
async function readConfigOrAnswer(explicit: string | undefined, bin: string, answer: (problems: string[]) => unknown) {
  try {
    return { config: await readConfig(explicit) };
  } catch (error) {
    if (!(error instanceof Error) || error.name !== "ConfigError") throw error;
    print(answer(error.message.split("\n")));
    process.stderr.write(`${bin}: ${error.message}\n`);
    return undefined;
  }
}

function print(value: unknown): void {
  writeStdout(`${JSON.stringify(value, null, 2)}\n`);
}

/** Options that take a value: the word after them is not the command. */
const VALUE_OPTIONS = new Set(Object.entries(OPTION_HELP).flatMap(([name, option]) => (option.type === "string" ? [`--${name}`] : [])));

/** Where the command word is: the first word that is neither an option nor an option's value. */
function commandIndex(argv: readonly string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (VALUE_OPTIONS.has(word)) i += 1;
    else if (!word.startsWith("-")) return i;
  }
  return -1;
}

/** How to run `command` in messages: its own program when the user runs that one, else `agent-tools command`. */
function commandName(command: string, bin: string): string {
  const own = COMMANDS[command]?.bin;
  return own && bin === own ? own : `agent-tools ${command}`;
}

/**
 * An option the command does not take, or words it does not read, said with what to use instead;
 * undefined when all apply. parseArgs knows every command's options at once, so without this
 * `agent-tools-mcp --port 5` would serve stdio as if the port had been heard.
 */
function misplacedWords(command: string, values: Record<string, unknown>, words: readonly string[], bin: string): string | undefined {
  const entry = COMMANDS[command] as { options?: CommandOptions; maxWords?: number };
  const here = commandName(command, bin);
  for (const name of Object.keys(values) as OptionName[]) {
    if (values[name] === undefined || name === "help" || name === "version" || entry.options?.[name]) continue;
    const takers = Object.entries(COMMANDS).flatMap(([other, { options, bin: own }]) => (options?.[name] ? [own ? `${own} (agent-tools ${other})` : `agent-tools ${other}`] : []));
    const named = takers.length > 3 ? `${takers.slice(0, 3).join(", ")} and ${takers.length - 3} other commands` : takers.join(", ");
    return `--${name} does not apply to ${here}${takers.length ? `; it is for ${named}` : ""} (${here} --help lists its options)`;
  }
  if (words.length > (entry.maxWords ?? 0)) {
    const stray = words.slice(entry.maxWords ?? 0);
    return `${here} takes ${entry.maxWords ? `at most ${entry.maxWords} word` : "no words"} after it; '${stray.join(" ")}' is not read (${here} --help lists its usage)`;
  }
  return undefined;
}

/** A server's V8 optimizing compiler held until the process has done enough work (tier-hold.ts). */
async function holdOptimizingCompilerForServer(): Promise<void> {
  const [{ holdOptimizingCompiler }, { createLogger }] = await Promise.all([import("../tier-hold.js"), import("../log.js")]);
  holdOptimizingCompiler(process.env, process.execArgv, { log: createLogger() });
}

/** `bin`: the program's name in messages (agent-tools-mcp and agent-tools-mcp-http pass theirs). */
export async function main(argv: string[], bin = "agent-tools"): Promise<number> {
  // `exec` takes the rest of the line verbatim: its words (`--confirm`, `-r`) are the shell's.
  const execAt = commandIndex(argv) === argv.indexOf("exec") ? argv.indexOf("exec") : -1;
  let execWords: string[] = [];
  let ownArgs = argv;
  if (execAt >= 0) {
    const { splitExecWords } = await import("./exec-words.js");
    const split = splitExecWords(argv.slice(execAt + 1), argv.slice(0, execAt));
    if (!split.ok) {
      process.stderr.write(`${bin} exec: ${split.message}\n`);
      return 2;
    }
    execWords = split.words;
    ownArgs = [...argv.slice(0, execAt + 1), ...split.options];
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: ownArgs,
      allowPositionals: true,
      options: PARSE_OPTIONS,
    });
  } catch (error) {
    // Unknown options and missing values are usage errors (exit 2), said before anything starts,
    // with the usage of the command they were given to (all commands' when none is named).
    const command = ownArgs[commandIndex(ownArgs)];
    process.stderr.write(`${bin}: ${await optionProblem(error as Error, ownArgs, command)}\n\n${commandUsage(command ?? "", bin)}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const command = positionals[0] ?? (values.help ? "help" : "mcp");
  if (values.version) {
    // `--version extra` names a word nothing reads: refused like any command's stray words.
    const stray = COMMANDS[command] ? misplacedWords(command, {}, positionals.slice(1), bin) : `--version takes no words; '${positionals.join(" ")}' is not read`;
    if (stray) {
      process.stderr.write(`${bin}: ${stray}\n`);
      return 2;
    }
    process.stdout.write(`${packageJson().version}\n`);
    return 0;
  }
  // `help`, `--help` anywhere (and `exec --help`) print the command's usage: nothing is served, bound or read.
  if (values.help || command === "help" || (command === "exec" && (execWords[0] === "--help" || execWords[0] === "-h"))) {
    // `help validate extra` names one command too many: refused like any command's stray words (the
    // options next to a help are not checked: `--help` with any of them still prints the usage).
    // (`audit -h extra` likewise: the words a command does not read are refused with or without --help.)
    const stray = COMMANDS[command] && command !== "exec" ? misplacedWords(command, {}, positionals.slice(1), bin) : undefined;
    if (stray) {
      process.stderr.write(`${bin}: ${stray}\n`);
      return 2;
    }
    // `help nosuch` and `nosuch --help` ask for a usage that does not exist: refused like the
    // unknown command itself, rather than answered with the general usage and exit 0.
    const topic = command === "help" ? positionals[1] : command;
    if (topic !== undefined && !COMMANDS[topic]) {
      process.stderr.write(`${command === "help" ? `${bin} help` : bin}: ${await unknownCommand(topic)}`);
      return 2;
    }
    process.stdout.write(commandUsage(topic ?? "", bin));
    return 0;
  }
  const misplaced = COMMANDS[command] ? misplacedWords(command, values, positionals.slice(1), bin) : undefined;
  if (misplaced) {
    process.stderr.write(`${bin}: ${misplaced}\n`);
    return 2;
  }
  // `--config=` or `--config ""` is a value left out (a variable that was not set), not a request
  // for the usual lookup: refused rather than read as if the option were not there.
  const emptyOption = (Object.keys(values) as OptionName[]).find((name) => values[name] === "");
  if (emptyOption) {
    process.stderr.write(`${bin}: --${emptyOption} is empty; give it a value (${OPTION_HELP[emptyOption].words}) or leave it out\n`);
    return 2;
  }
  if (values.port !== undefined && !/^\d{1,5}$/.test(values.port)) {
    process.stderr.write(`${bin}: --port must be a whole number from 0 to 65535 (got '${values.port}'); 0 picks a free port\n`);
    return 2;
  }
  if (values.port !== undefined && Number(values.port) > 65535) {
    process.stderr.write(`${bin}: --port must be at most 65535 (got ${values.port})\n`);
    return 2;
  }
  if (values["plugins-dir"]) process.env.AGENT_TOOLS_PLUGINS_DIR = values["plugins-dir"];
  // From here on stdout carries only the command's answer: a plugin's console.log goes to stderr.
  if (COMMANDS[command]?.loadsPlugins) sendStrayStdoutToStderr();
  switch (command) {
    case "mcp": {
      // Before the start's work: that is what would grow V8's young generation (lean-heap.ts).
      (await import("../lean-heap.js")).keepYoungGenerationSmall();
      await holdOptimizingCompilerForServer();
      const { createRuntime } = await import("../runtime/runtime.js");
      const { serveStdio } = await import("../transports/stdio.js");
      const runtime = await createRuntime({ config: await readConfig(values.config) });
      (await import("../transports/stray-errors.js")).keepServingThroughStrayErrors(runtime);
      await serveStdio(runtime);
      return -1; // keep running
    }
    case "http": {
      const { resolveHttpOptions } = await import("../transports/http/options.js");
      await holdOptimizingCompilerForServer();
      const config = await readConfig(values.config);
      // Refuse a bad bind before any downstream server is started.
      const options = resolveHttpOptions(
        { ...process.env, ...(values.host ? { AGENT_TOOLS_HTTP_HOST: values.host } : {}), ...(values.port ? { AGENT_TOOLS_HTTP_PORT: values.port } : {}) },
        config.http,
        Boolean(config.team?.identities?.length || config.team?.jwt),
      );
      const { createRuntime } = await import("../runtime/runtime.js");
      const { serveHttp } = await import("../transports/http.js");
      const { createGateway } = await import("../gateway/gateway.js");
      // The gateway first: the runtime keeps its jobs and tokens in the gateway's shared state.
      const gateway = await createGateway({ env: process.env, config, log: (await import("../log.js")).createLogger(), singleToken: options.token, http: options });
      const runtime = await createRuntime({ config, state: gateway.state, observers: gateway.observers, ...(gateway.tracing ? { tracing: gateway.tracing } : {}) });
      const { identityPluginNotices } = await import("../gateway/identity-notices.js");
      for (const notice of identityPluginNotices(config.team?.identities, runtime.plugins.map((p) => p.manifest.prefix))) runtime.log.warn(notice);
      (await import("../transports/stray-errors.js")).keepServingThroughStrayErrors(runtime);
      await serveHttp(runtime, options, gateway);
      return -1; // keep running
    }
    case "probe": {
      const { probe, probeExitCode } = await import("./probe.js");
      const report = probe();
      print(report);
      return probeExitCode(report.status);
    }
    case "validate": {
      const { validatePlugins } = await import("./validate.js");
      const read = await readConfigOrAnswer(values.config, bin, (problems) => ({ ok: false, plugins: [], problems }));
      if (!read) return 1;
      const report = await validatePlugins({ config: read.config });
      print(report);
      if (!report.ok) for (const problem of report.problems) process.stderr.write(`agent-tools validate: ${problem}\n`);
      for (const notice of report.notices ?? []) process.stderr.write(`agent-tools validate: note: ${notice}\n`);
      return report.ok ? 0 : 1;
    }
    case "status":
    case "list":
    case "load":
    case "exec": {
      const { runTextAction, notRunAnswer } = await import("./text.js");
      const words = command === "exec" ? execWords : positionals.slice(1);
      // Each promises one JSON answer, a config that does not load included (and a state setting a
      // server would refuse, runTextAction): status reports it as its NOT READY answer, the others
      // answer the line they did not run and the problems.
      const read = await readConfigOrAnswer(values.config, bin, (problems) => notRunAnswer(command, words, problems));
      if (!read) return 1;
      return runTextAction(command, words, read.config);
    }
    case "serve": {
      const { serveText } = await import("./text.js");
      return serveText(await readConfig(values.config));
    }
    case "tokens": {
      const { tokensReport, formatTokensReport } = await import("./tokens.js");
      const { createRuntime } = await import("../runtime/runtime.js");
      const { oneOffCommandLogger } = await import("../log.js");
      let runtime;
      if (values.tools) {
        const { readTools } = await import("./retrieval-data.js");
        const { inMemoryManifests, inMemoryAdapterKind, IN_MEMORY_KIND } = await import("./in-memory-fleet.js");
        const path = await import("node:path");
        const tools = readTools(values.tools, path.basename(values.tools).replace(/\..*$/, ""));
        runtime = await createRuntime({ manifests: inMemoryManifests(tools, values.tools), adapterKinds: { [IN_MEMORY_KIND]: inMemoryAdapterKind }, log: oneOffCommandLogger() });
      } else {
        // Only --json promises JSON on stdout; the table's reader gets the problem on stderr.
        const read = values.json ? await readConfigOrAnswer(values.config, bin, (problems) => ({ ok: false, problems })) : { config: await readConfig(values.config) };
        if (!read) return 1;
        runtime = await createRuntime({ config: read.config, log: oneOffCommandLogger() });
      }
      try {
        const report = await tokensReport(runtime);
        if (values.json) print(report);
        else writeStdout(formatTokensReport(report));
      } finally {
        await runtime.close();
      }
      return 0;
    }
    case "search-bench": {
      const { isSearchEngineName, SEARCH_ENGINES } = await import("../runtime/search/index.js");
      if (!values.tools || !values.queries) {
        process.stderr.write("agent-tools search-bench: needs --tools FILE (tools.json) and --queries FILE (queries.jsonl)\n");
        return 2;
      }
      const limit = values.limit === undefined ? 10 : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 50) {
        process.stderr.write(`agent-tools search-bench: --limit must be a whole number from 1 to 50 (got '${values.limit}')\n`);
        return 2;
      }
      if (values.engine !== undefined && !isSearchEngineName(values.engine)) {
        process.stderr.write(`agent-tools search-bench: --engine must be one of ${SEARCH_ENGINES.join(", ")} (got '${values.engine}')\n`);
        return 2;
      }
      const [{ searchBench }, { DatasetError }] = await Promise.all([import("./search-bench.js"), import("./retrieval-data.js")]);
      try {
        await searchBench({ tools: values.tools, queries: values.queries, limit, ...(values.engine ? { engine: values.engine } : {}) });
      } catch (error) {
        // A --tools or --queries file that is missing, malformed or empty is a wrong argument, like a wrong --limit.
        if (!(error instanceof DatasetError)) throw error;
        process.stderr.write(`agent-tools search-bench: ${error.message}\n`);
        return 2;
      }
      return 0;
    }
    case "audit": {
      const { auditCommand } = await import("./team.js");
      const limit = values.limit === undefined ? 100 : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1) {
        process.stderr.write(`agent-tools audit: --limit must be a positive whole number (got '${values.limit}')\n`);
        return 2;
      }
      return auditCommand(await readConfig(values.config), { limit, follow: values.follow === true });
    }
    case "hash-token": {
      const { hashTokenCommand } = await import("./team.js");
      return hashTokenCommand(positionals[1]);
    }
    case "cache": {
      const { cacheCommand } = await import("./cache.js");
      return cacheCommand(positionals.slice(1), process.env, print);
    }
    case "version":
      process.stdout.write(`${packageJson().version}\n`);
      return 0;
    default:
      process.stderr.write(`${bin}: ${await unknownCommand(command)}`);
      return 2;
  }
}
