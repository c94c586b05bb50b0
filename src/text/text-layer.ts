import { realpathSync } from "node:fs";
import path from "node:path";
import { RUNTIME_ROOT } from "../paths.js";
import { describeThrown, RuntimeError } from "../runtime/errors.js";
import type { Runtime } from "../runtime/runtime.js";
import type { Session } from "../runtime/session.js";
import type { Confirmer } from "../runtime/confirm.js";
import { capStreams, type ExecAnswer } from "./answer.js";
import { joinedJsonStdout } from "./joined-json.js";
import { missingCommandLines, withoutBrowserAdvice } from "./missing-command.js";
import type { TextCommand } from "./command.js";
import { EXIT, EXIT_TABLE } from "./exit-codes.js";
import type { ModuleSetup, TextModule } from "./module-contract.js";
import { moduleLib, outputHelpers } from "./module-lib.js";
import { availableModuleFiles, importTextModule, ModuleLoadError, resolveModulePath } from "./module-loader.js";
import { pluginCommand, pluginUsageLines } from "./plugin-commands.js";
import { modulePlugin } from "./module-plugins.js";
import { pluginCommandName } from "./reserved-names.js";
import { shellCommandNames } from "./exec-command-name.js";
import { mayUsePlugin, seesWholeFleet } from "../runtime/access.js";
import { DEFAULT_SANDBOX_BYTES, DEFAULT_SANDBOXES_BUDGET_BYTES, MIB, SandboxMemoryBudget } from "./memory-budget.js";
import { inMiB } from "../byte-size.js";
import { fileIdentity, type FileIdentity } from "./same-file.js";
import { createSandbox, loadJustBash, SANDBOX_LIMITS, WORKDIR_MOUNT, type Sandbox } from "./sandbox.js";
import { isOffValue, isOnValue } from "../env-switch.js";
import { positiveInt, positiveMs } from "../positive-int.js";
import { closestNames } from "../runtime/similarity.js";
import { unsafeRoot } from "../adapters/filesystem/guard.js";
import { stoppedLineWritesNote } from "../runtime/stopped-run.js";

/**
 * The text layer of one runtime: `agent_tools_exec` behind a function. Per session it keeps a
 * sandbox (created on the first command line, not before), the modules loaded into it, and
 * frees both when the session ends. `status`, `list` and `load MODULE` are answered here; any
 * other line runs in the sandbox.
 */

export interface TextLayerOptions {
  /** Deadline of one command line; default 30 s (AGENT_TOOLS_EXEC_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Cap of stdout and of stderr in an answer, in characters; default 50,000 (AGENT_TOOLS_EXEC_MAX_OUTPUT_CHARS). */
  maxOutputChars?: number;
  /** Host directory shown at /workdir copy-on-write; default off (AGENT_TOOLS_EXEC_MOUNT_CWD=1 mounts the cwd). */
  mountDir?: string;
  /** Where `load` finds modules; default <runtime root>/commands. */
  commandsDir?: string;
  /** The host environment modules read their settings from; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Bytes of files all sandboxes together may hold; default 512 MiB (AGENT_TOOLS_EXEC_MEMORY_BUDGET_MB). */
  memoryBudgetBytes?: number;
  /** Bytes of files one sandbox may hold; default 128 MiB (AGENT_TOOLS_EXEC_SANDBOX_MEMORY_MB). */
  sandboxMemoryBytes?: number;
  /** The longest a line may keep the server's thread without a pause, ms (thread-hold.ts); default 500; null: no such limit (AGENT_TOOLS_EXEC_HOLD_MS). */
  holdMs?: number | null;
}

export interface ExecOptions {
  signal?: AbortSignal;
  /** Asks the agent's user to confirm a write (the facade's, when the client can ask): the command line's calls use it. */
  confirmer?: Confirmer;
}

export interface TextLayer {
  readonly options: Readonly<Required<Omit<TextLayerOptions, "mountDir" | "env">>> & { mountDir?: string };
  /** The budget the sandboxes' files are charged to (its `used` is what they hold now). */
  readonly memory: SandboxMemoryBudget;
  /** `command`: the tool argument as sent; anything but a string (or nothing) is refused with a message naming what it was. */
  exec(session: Session, command: unknown, options?: ExecOptions): Promise<ExecAnswer>;
}

interface LoadedModule {
  file: string;
  module: TextModule;
  setup: ModuleSetup;
}

interface SessionText {
  sandbox?: Promise<Sandbox>;
  modules: Map<string, LoadedModule>;
}

const EXTENSION_KEY = "agent-tools:text-layer";
const DEFAULT_TIMEOUT_MS = 30_000;
/**
 * Half a second: what one line may cost every other session at a time. A loop of builtins runs
 * about 4,000 commands in it at load ~15 on 2 cores (110 µs each), many more on a quiet machine.
 */
const DEFAULT_HOLD_MS = 500;
const DEFAULT_MAX_OUTPUT_CHARS = 50_000;
const COMMAND_ECHO_CHARS = 300;
/** just-bash's own cap sits above the account's, by the default layout's few files, so the account's clearer error comes first. */
const LAYOUT_SLACK_BYTES = 4 * MIB;

export function textLayerOptionsFromEnv(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): TextLayerOptions {
  const options: TextLayerOptions = {};
  const timeoutMs = positiveMs(env.AGENT_TOOLS_EXEC_TIMEOUT_MS);
  if (timeoutMs) options.timeoutMs = timeoutMs;
  const maxOutputChars = positiveInt(env.AGENT_TOOLS_EXEC_MAX_OUTPUT_CHARS);
  if (maxOutputChars) options.maxOutputChars = maxOutputChars;
  if (isOnValue(env.AGENT_TOOLS_EXEC_MOUNT_CWD)) options.mountDir = cwd;
  const budgetMb = positiveInt(env.AGENT_TOOLS_EXEC_MEMORY_BUDGET_MB);
  if (budgetMb) options.memoryBudgetBytes = budgetMb * MIB;
  const sandboxMb = positiveInt(env.AGENT_TOOLS_EXEC_SANDBOX_MEMORY_MB);
  if (sandboxMb) options.sandboxMemoryBytes = sandboxMb * MIB;
  const holdMs = positiveInt(env.AGENT_TOOLS_EXEC_HOLD_MS);
  if (holdMs) options.holdMs = holdMs;
  else if (isOffValue(env.AGENT_TOOLS_EXEC_HOLD_MS)) options.holdMs = null;
  return options;
}

function hostEnvCopy(env: NodeJS.ProcessEnv): Readonly<Record<string, string | undefined>> {
  return Object.freeze({ ...env });
}

/** Words of `load …`, `status`, `list`: only those exact forms are answered outside the shell. */
/**
 * Where `list` points for the shell's own commands. `help` is the shell's and lists only its
 * builtins (cd, export…); every command, the plugins' included, is a file in /usr/bin (sandbox-env.ts's PATH).
 */
/**
 * Every plugin command's usage, said once in `list` and `status` (it was repeated per plugin:
 * ~35 tokens each, 2,100 of status's 4,030 with 50 plugins).
 */
const PLUGIN_USAGE = `${pluginUsageLines("PLUGIN", true).join(" | ")} (PLUGIN: a command of kind "plugin"; skill: one listed in its skills)`;
/** How many plugin commands the answer to a mistyped one names (the nearest first); `list` has them all. */
const NEAREST_SHOWN = 5;
const BUILTINS_HINT = "the shell's own commands (ls, cat, grep, sed, awk, jq, sort, head, …): `ls /usr/bin` lists every command, the plugins' included; `help` lists the shell's builtins (cd, export, …)";

function builtinOf(command: string): { name: "status" | "list" } | { name: "load"; spec: string } | { name: "misused"; message: string } | undefined {
  if (command === "status" || command === "list") return { name: command };
  // One module word (quoted or not) and nothing else: a flag, a pipe or more words are refused below.
  const load = /^load(?:\s+("[^"]*"|'[^']*'|[^\s|;&<>()'"-][^\s|;&<>()'"]*))?\s*$/.exec(command);
  if (load) return { name: "load", spec: (load[1] ?? "").trim().replace(/^(['"])(.*)\1$/s, "$2") };
  // `list | jq .`, `status --verbose`, `STATUS`: answered by the shell, they were "command not
  // found" (or exit 0 with nothing, piped); they are no sandbox commands, and that is said.
  const misused = /^(status|list|load)(?=$|[\s|;&<>()])(.*)$/is.exec(command);
  if (!misused) return undefined;
  const word = (misused[1] ?? "").toLowerCase();
  const rest = (misused[2] ?? "").trim();
  const flag = /^-{1,2}[^\s|;&]*/.exec(rest)?.[0];
  const got = word !== misused[1] ? `'${misused[1]}' must be written in lower case: send \`${word}\`` : flag ? `${word} takes no flags (got '${flag}')` : `${word} takes no other words here (got '${rest.length > 40 ? `${rest.slice(0, 39)}…` : rest}')`;
  const usage = word === "load" ? "send `load MODULE` alone" : `send \`${word}\` alone; its report is the answer's \`result\` (JSON), which is not piped into the sandbox`;
  return { name: "misused", message: `${got}: \`status\`, \`list\` and \`load MODULE\` are answered by agent_tools_exec itself, only as the whole command, not as commands of a shell line; ${usage}` };
}

/**
 * What to do when a sandbox limit stopped the line. just-bash's own line names the limit and says
 * "increase executionLimits.…", which only the server's code could do: that is said, with what the
 * agent can do instead for the kind of limit hit.
 */
function limitAdvice(stderr: string): string {
  const settable = /increase executionLimits\.\w+/.test(stderr) ? " (the limits are fixed by the server; \"increase executionLimits…\" above is not something a command line can do)" : "";
  let instead = "make loops finite and outputs smaller";
  if (/line limit|element limit|result limit|array/i.test(stderr)) instead = "the input had too many lines or elements for that command: ask the tool for fewer items (a filter, a page size, a limit), or cut the result down with jq first (e.g. jq -c '.result.items[] | {id, title}') and then grep or sort its lines";
  else if (/without a pause/.test(stderr)) instead = "the line ran shell commands one after another for too long (a loop of builtins, many small commands): do the work in one command over the whole input (seq, awk, jq, sed), or split it over several calls";
  else if (/too many commands|iteration/i.test(stderr)) instead = "the line ran too many commands or loop iterations: do the work in one jq, awk or sed over the whole input instead of a shell loop per line, or ask the tool for fewer items";
  else if (/output size/i.test(stderr)) instead = `the line printed more than ${inMiB(SANDBOX_LIMITS.maxOutputSize)} in all (what goes through pipes or into files counts too): ask the tool for less, and filter right after the command (jq, grep, head)`;
  else if (/input size limit exceeded/i.test(stderr)) {
    // Checked on the size a file has on disk before it is read: a large file in /workdir stops `head -c 10` too.
    const bytes = Number(/input size limit exceeded \((\d+) bytes\)/i.exec(stderr)?.[1]);
    const limit = Number.isFinite(bytes) ? inMiB(bytes) : "its limit";
    instead = `a command's input was larger than the sandbox reads (${limit}; a file counts by its size on disk, so a larger file cannot be read in the sandbox at all, not even its first bytes): read a part of it with the filesystem plugin's tools (outside the sandbox), or ask for a smaller file`;
  } else if (/string length/i.test(stderr)) instead = "a value was too long: keep large data in files and filter it (jq, grep) rather than in variables";
  return `agent-tools: a sandbox limit stopped the command line${settable}: ${instead}; the limits are listed under README "The sandbox"\n`;
}

/**
 * The folder /workdir shows, or why the one asked for is refused: the root of the disk, the home
 * folder, a shared temp folder, a system or kernel folder (the embedded filesystem plugin's rule,
 * `unsafeRoot`). Clients start servers in odd places (Claude Desktop in `/`), and a mount there
 * showed the server's own environment (/proc/<pid>/environ), /etc/shadow and every credential in
 * the home folder; in /tmp, other processes' temp files and sockets.
 */
function mountPlaceOf(mountDir: string | undefined): { dir?: string; refused?: string } {
  if (!mountDir) return {};
  const dir = path.resolve(mountDir);
  const unsafe = unsafeRoot(dir);
  if (!unsafe) return { dir };
  return {
    refused: `${WORKDIR_MOUNT} is off: AGENT_TOOLS_EXEC_MOUNT_CWD is on, but the working directory ${unsafe}, and the sandbox never mounts the whole disk, the home folder, a shared temp folder or a system folder; start the server in the project folder (the client's working directory setting for it, or \`cd <project> && agent-tools serve\`)`,
  };
}

export function createTextLayer(runtime: Runtime, options: TextLayerOptions = {}): TextLayer {
  const mountPlace = mountPlaceOf(options.mountDir);
  const settings = {
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxOutputChars: options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS,
    commandsDir: path.resolve(options.commandsDir ?? path.join(RUNTIME_ROOT, "commands")),
    memoryBudgetBytes: options.memoryBudgetBytes ?? DEFAULT_SANDBOXES_BUDGET_BYTES,
    sandboxMemoryBytes: options.sandboxMemoryBytes ?? DEFAULT_SANDBOX_BYTES,
    holdMs: options.holdMs === undefined ? DEFAULT_HOLD_MS : options.holdMs,
    ...(mountPlace.dir ? { mountDir: mountPlace.dir } : {}),
  };
  if (mountPlace.refused) runtime.log.warn(`text layer: ${mountPlace.refused}`);
  const hostEnv = hostEnvCopy(options.env ?? process.env);
  const memory = new SandboxMemoryBudget({ totalBytes: settings.memoryBudgetBytes, perSandboxBytes: settings.sandboxMemoryBytes });

  function stateOf(session: Session): SessionText {
    let state = session.extensions.get(EXTENSION_KEY) as SessionText | undefined;
    if (!state) {
      const created: SessionText = { modules: new Map() };
      state = created;
      session.extensions.set(EXTENSION_KEY, created);
      session.disposers.push(async () => {
        session.extensions.delete(EXTENSION_KEY);
        const modules = [...created.modules.values()];
        created.modules.clear();
        const sandbox = created.sandbox;
        delete created.sandbox;
        await sandbox?.then((s) => s.dispose()).catch(() => undefined);
        await Promise.allSettled(modules.map(async (m) => m.setup.close?.()));
      });
    }
    return state;
  }

  let commandNames: Promise<Map<string, string>> | undefined;
  /** Plugin prefix → its command name. A plugin named like a shell word or command (`local`, `sort`) must not hide it, nor be hidden. */
  function pluginCommandNames(): Promise<Map<string, string>> {
    commandNames ??= shellCommandNames().then((builtins) => new Map(runtime.plugins.map((p) => [p.manifest.prefix, pluginCommandName(p.manifest.prefix, builtins)])));
    return commandNames;
  }

  async function sandboxOf(session: Session, state: SessionText): Promise<Sandbox> {
    state.sandbox ??= (async () => {
      const names = await pluginCommandNames();
      const commands: TextCommand[] = [];
      // Only the plugins this session's identity may use become commands: another one is not
      // shown at all (README "Identities"), so its name answers "command not found" like any
      // unknown word, and neither /usr/bin nor `help` lists it.
      // A next step another answer names (a redirect to another plugin) is written with that plugin's command.
      const commandOf = (prefix: string): string => names.get(prefix) ?? prefix;
      for (const [prefix, name] of names) if (mayUsePlugin(session.identity, prefix)) commands.push(pluginCommand(runtime, session, prefix, name, commandOf));
      return createSandbox({ timeoutMs: settings.timeoutMs, ...(settings.holdMs !== null ? { holdMs: settings.holdMs } : {}), account: memory.open(session.identity?.name ?? "", session), maxFileBytes: settings.sandboxMemoryBytes + LAYOUT_SLACK_BYTES, ...(settings.mountDir ? { mountDir: settings.mountDir, hiddenPaths: configInside(settings.mountDir), hiddenFiles: configIdentities() } : {}) }, commands);
    })();
    try {
      return await state.sandbox;
    } catch (error) {
      delete state.sandbox; // a failed creation is retried by the next call
      throw error;
    }
  }

  /**
   * The config file, when it sits inside the mounted directory under another name: hidden too, with
   * the env files its entries name. The file the runtime actually loaded (whatever named it:
   * --config, AGENT_TOOLS_CONFIG or the default) is the one that counts; AGENT_TOOLS_CONFIG is
   * kept as well, resolved as the loader does.
   */
  function configFiles(): string[] {
    return [...runtime.secretFiles, hostEnv.AGENT_TOOLS_CONFIG ? path.resolve(hostEnv.AGENT_TOOLS_CONFIG) : undefined].filter((f): f is string => !!f);
  }

  /** The config file as it is on disk: a hard link to it made in the mounted directory is hidden too (its path says nothing). */
  function configIdentities(): FileIdentity[] {
    return configFiles()
      .map(fileIdentity)
      .filter((f): f is FileIdentity => !!f);
  }

  function configInside(dir: string): string[] {
    const files = configFiles();
    // Compared as real paths: a setting that names the file through a symlink (projlink/conf/team.json
    // with projlink → the mounted directory) is the same file the sandbox shows at /workdir/conf/team.json.
    // Symlinks inside the mount need nothing: the sandbox does not follow them (OverlayFs allowSymlinks off).
    const roots = [...new Set([dir, realOrSame(dir)])];
    const inside = new Set<string>();
    for (const file of files) {
      for (const spelled of new Set([file, realOrSame(file)])) {
        for (const root of roots) {
          const relative = path.relative(root, spelled);
          if (relative && !relative.startsWith("..") && !path.isAbsolute(relative)) inside.add(relative.split(path.sep).join("/"));
        }
      }
    }
    return [...inside];
  }

  function moduleRoot(file: string): string {
    return path.relative(path.dirname(settings.commandsDir), file).split(path.sep).join("/");
  }

  /**
   * Why a module failed to import or set up, its credentials masked: a module's own error may
   * quote a secret it read from the host's environment, and this text goes to the model.
   */
  function loadFailure(error: unknown): string {
    return runtime.redact(describeThrown(error));
  }

  function variableReport(module: TextModule): Array<Record<string, unknown>> {
    return module.variables.map((v) => ({ name: v.name, set: !!hostEnv[v.name], ...(v.required ? { required: true } : {}), ...(v.secret ? { secret: true } : {}), description: v.description }));
  }

  function missingOf(module: TextModule): string[] {
    const unset = module.variables.filter((v) => v.required && !hostEnv[v.name]).map((v) => v.name);
    let extra: string[] = [];
    try {
      extra = module.missing?.(hostEnv) ?? [];
    } catch {
      extra = [];
    }
    return [...new Set([...unset, ...extra])];
  }

  async function availableModules(state: SessionText): Promise<Array<Record<string, unknown>>> {
    const report: Array<Record<string, unknown>> = [];
    for (const file of availableModuleFiles(settings.commandsDir)) {
      const full = path.join(settings.commandsDir, file);
      try {
        const module = await importTextModule(full, `commands/${file}`);
        const missing = missingOf(module);
        report.push({
          module: `commands/${file}`,
          name: module.name,
          description: module.description,
          loaded: state.modules.has(module.name),
          commands: module.commands,
          variables: variableReport(module),
          ...(missing.length ? { missing: `set ${missing.join(", ")} in the server's environment` } : {}),
        });
      } catch (error) {
        report.push({ module: `commands/${file}`, problem: loadFailure(error) });
      }
    }
    return report;
  }

  /**
   * The session's commands. Every plugin command has the same usage (PLUGIN_USAGE, said once
   * beside the list), so a plugin's entry is its name, its plugin when that differs, and its skills.
   * `withMissing`: each command's missing settings; status leaves them out, as its top-level
   * `missing` already names them.
   */
  async function commandList(session: Session, state: SessionText, withMissing: boolean): Promise<Array<Record<string, unknown>>> {
    const list: Array<Record<string, unknown>> = [];
    const names = await pluginCommandNames().catch(() => new Map<string, string>());
    for (const plugin of runtime.summaries()) {
      if (!mayUsePlugin(session.identity, plugin.prefix)) continue;
      const name = names.get(plugin.prefix) ?? pluginCommandName(plugin.prefix, new Set());
      list.push({
        name,
        kind: "plugin",
        ...(name === plugin.prefix ? {} : { plugin: plugin.prefix }),
        ...(withMissing && !plugin.configured ? { missing: plugin.missing ?? "requirements missing" } : {}),
        ...(plugin.skills.length ? { skills: plugin.skills } : {}),
      });
    }
    for (const loaded of state.modules.values()) {
      const missing = missingOf(loaded.module);
      for (const command of loaded.setup.commands) {
        list.push({ name: command.name, kind: "module", module: moduleRoot(loaded.file), usage: command.usage, summary: command.summary, ...(withMissing && missing.length ? { missing: `set ${missing.join(", ")}` } : {}) });
      }
    }
    return list;
  }

  /**
   * A word the shell did not find, used as plugins are (`WORD call …`, `WORD discover …`, `WORD
   * skill …`): the plugin commands this session has, the nearest first. The shell's own line
   * ("nope: command not found") does not say that plugins are commands, or which.
   */
  async function unknownPluginHint(session: Session, state: SessionText, command: string, stderr: string): Promise<string> {
    const asPlugin = new Set([...command.matchAll(/(?:^|[|;&(])\s*([^\s|;&()]+)\s+(?:call|discover|skill)\b/g)].map((m) => m[1]));
    const used = [...stderr.matchAll(/(?:^|\n)(?:bash: )?([^\s:]+): command not found/g)].map((m) => m[1] as string).find((word) => asPlugin.has(word));
    if (!used) return "";
    const plugins = (await commandList(session, state, false)).filter((c) => c.kind === "plugin").map((c) => String(c.name));
    if (plugins.length === 0) return `agent-tools: '${used}' is no plugin command: this session has none (\`list\` shows what it has)\n`;
    // The nearest few, not every plugin command: a fleet of 50 made this line 214 tokens.
    const near = closestNames(used, plugins, 0.4, NEAREST_SHOWN);
    const shown = [...near, ...plugins.filter((p) => !near.includes(p))].slice(0, NEAREST_SHOWN);
    const rest = plugins.length - shown.length;
    const which = rest > 0 ? `the nearest plugin commands are: ${shown.join(", ")} and ${rest} more (\`list\` shows them all)` : `the plugin commands are: ${shown.join(", ")} (\`list\` shows them)`;
    return `agent-tools: '${used}' is no plugin command here; ${which}\n`;
  }

  /** A typed tool's name or a language runtime the shell did not find: what to write here instead (missing-command.ts). */
  async function missingCommandHints(session: Session, stderr: string): Promise<string> {
    const names = await pluginCommandNames().catch(() => new Map<string, string>());
    return missingCommandLines(stderr, (prefix) => (mayUsePlugin(session.identity, prefix) ? names.get(prefix) : undefined));
  }

  function answer(command: string, exitCode: number, fields: Partial<ExecAnswer> = {}): ExecAnswer {
    // The command is echoed so an answer can be told from another, not to be re-read: a long
    // script (a heredoc) is shown by its start only.
    const echoed = command.length > COMMAND_ECHO_CHARS ? `${command.slice(0, COMMAND_ECHO_CHARS - 1)}…` : command;
    return { ok: exitCode === 0, command: echoed, exitCode, stdout: "", stderr: "", ...fields };
  }

  async function status(session: Session, state: SessionText, command: string): Promise<ExecAnswer> {
    const missing: string[] = [];
    let shell: string;
    try {
      await loadJustBash();
      shell = "available";
    } catch (error) {
      shell = `unavailable: ${describeThrown(error)}`;
      missing.push(`the just-bash package (${describeThrown(error)}); run npm install`);
    }
    // The same list as help's and validate's, cut to what this session's identity may see.
    const problems = [...runtime.problems(session), ...(mountPlace.refused ? [mountPlace.refused] : [])];
    for (const plugin of runtime.summaries()) {
      if (!plugin.configured && mayUsePlugin(session.identity, plugin.prefix)) missing.push(`plugin '${plugin.prefix}': ${plugin.missing ?? "requirements missing"}`);
    }
    for (const loaded of state.modules.values()) {
      const vars = missingOf(loaded.module);
      if (vars.length) missing.push(`module '${loaded.module.name}': set ${vars.join(", ")}`);
    }
    const sandbox = state.sandbox ? await state.sandbox.catch(() => undefined) : undefined;
    const result = {
      status: shell !== "available" ? "NOT READY" : missing.length ? "READY (with missing pieces)" : problems.length ? "READY (with problems)" : "READY",
      ...(missing.length ? { missing } : {}),
      ...(problems.length ? { problems } : {}),
      ...(seesWholeFleet(session.identity) ? { config: runtime.configSource } : {}),
      sandbox: {
        shell: `just-bash (${shell})`,
        created: !!sandbox,
        ...(sandbox ? { cwd: sandbox.cwd } : {}),
        profile: "hardened",
        timeoutMs: settings.timeoutMs,
        holdMs: settings.holdMs ?? "off",
        maxOutputChars: settings.maxOutputChars,
        memory: `files: ${Math.round(memory.used / MIB)} of ${Math.round(settings.memoryBudgetBytes / MIB)} MiB used by all sandboxes together; at most ${Math.round(settings.sandboxMemoryBytes / MIB)} MiB in this one`,
        workdir: settings.mountDir
          ? `${WORKDIR_MOUNT}: ${settings.mountDir}, copy-on-write (writes stay in memory)`
          : (mountPlace.refused ?? "off (AGENT_TOOLS_EXEC_MOUNT_CWD=1 shows the server's working directory at /workdir)"),
      },
      pluginUsage: PLUGIN_USAGE,
      commands: await commandList(session, state, false),
      modules: await availableModules(state),
      exitCodes: Object.fromEntries(EXIT_TABLE.map((e) => [String(e.code), e.meaning])),
      session: session.id,
    };
    return answer(command, EXIT.OK, { result });
  }

  async function load(session: Session, state: SessionText, command: string, spec: string): Promise<ExecAnswer> {
    try {
      const file = resolveModulePath(spec, settings.commandsDir);
      const shown = moduleRoot(file);
      const module = await importTextModule(file, shown);
      const sandbox = await sandboxOf(session, state);
      // In the session's order, like its command lines: a load sent while a line runs waits for it,
      // so its commands do not appear in the middle of that line (README: calls run one after the other).
      return await sandbox.serial(() => install(session, state, sandbox, command, file, shown, module));
    } catch (error) {
      return loadRefusal(command, error);
    }
  }

  function loadRefusal(command: string, error: unknown): ExecAnswer {
    if (error instanceof ModuleLoadError) return answer(command, error.exitCode, { stderr: `${runtime.redact(error.message)}\n` });
    return answer(command, EXIT.LOAD_FAILED, { stderr: `load: ${loadFailure(error)}\n` });
  }

  /** A module's setup and its commands' registration, run in the sandbox's queue. */
  async function install(session: Session, state: SessionText, sandbox: Sandbox, command: string, file: string, shown: string, module: TextModule): Promise<ExecAnswer> {
    try {
      const already = state.modules.get(module.name);
      if (already) return answer(command, EXIT.OK, { result: { module: shown, loaded: module.name, commands: already.setup.commands.map((c) => c.name), note: "already loaded in this session" } });
      const setup = await module.setup({ env: hostEnv, log: runtime.log, lib: moduleLib, output: outputHelpers, exit: EXIT, sessionId: session.id, plugin: (spec) => modulePlugin(runtime, session, spec) });
      const commands = Array.isArray(setup?.commands) ? setup.commands : [];
      const names = commands.map((c) => c?.name);
      const declared = [...module.commands].sort().join(",");
      if (names.some((n) => typeof n !== "string") || [...names].sort().join(",") !== declared) {
        await setup?.close?.();
        throw new ModuleLoadError(EXIT.LOAD_FAILED, `load: ${shown}: setup() returned commands [${names.join(", ")}] but the module declares [${module.commands.join(", ")}]`);
      }
      const clash = commands.find((c) => sandbox.hasCommand(c.name));
      if (clash) {
        await setup.close?.();
        throw new ModuleLoadError(EXIT.LOAD_FAILED, `load: ${shown}: command '${clash.name}' already exists in this sandbox`);
      }
      for (const c of commands) sandbox.register(c);
      state.modules.set(module.name, { file, module, setup });
      const missing = missingOf(module);
      return answer(command, EXIT.OK, {
        stdout: commands.map((c) => `${c.usage}\n    ${c.summary}\n`).join(""),
        result: { module: shown, loaded: module.name, commands: names, ...(missing.length ? { missing: `set ${missing.join(", ")} in the server's environment; the commands answer NOT_CONFIGURED until then` } : {}) },
      });
    } catch (error) {
      return loadRefusal(command, error);
    }
  }

  return {
    options: settings,
    memory,
    async exec(session, rawCommand, execOptions = {}) {
      if (rawCommand !== undefined && rawCommand !== null && typeof rawCommand !== "string") {
        // An array of words or an object was answered "'command' is empty", which it was not.
        // Nothing ran, so there is no stderr: the answer's `error` says it (stderr said it again).
        const kind = Array.isArray(rawCommand) ? "an array" : typeof rawCommand === "object" ? "an object" : `a ${typeof rawCommand}`;
        const error = new RuntimeError("ARG_VALIDATION_FAILED", `'command' must be one string, a shell command line, not ${kind}: send e.g. {"command": "notes call list_notes | jq length"}`, {
          errors: [{ path: "/command", message: "must be a string" }],
        });
        return answer("", EXIT.USAGE, { error: error.toPayload() });
      }
      const command = typeof rawCommand === "string" ? rawCommand.trim() : "";
      if (!command) {
        const error = new RuntimeError("EMPTY_COMMAND", "'command' is empty: send `status`, `list`, `load MODULE` or a shell command line");
        return answer("", EXIT.USAGE, { error: error.toPayload() });
      }
      const state = stateOf(session);
      const builtin = builtinOf(command);
      if (builtin?.name === "status") return status(session, state, command);
      if (builtin?.name === "list") {
        return answer(command, EXIT.OK, { result: { pluginUsage: PLUGIN_USAGE, commands: await commandList(session, state, true), builtins: BUILTINS_HINT } });
      }
      if (builtin?.name === "load") return load(session, state, command, builtin.spec);
      if (builtin?.name === "misused") return answer(command, EXIT.USAGE, { stderr: `agent-tools: ${builtin.message}\n` });
      let sandbox: Sandbox;
      try {
        sandbox = await sandboxOf(session, state);
      } catch (error) {
        return answer(command, EXIT.FAILED, { stderr: `agent-tools: the sandbox could not be created: ${describeThrown(error)}\n` });
      }
      const run = await sandbox.run(command, execOptions.signal, execOptions.confirmer);
      let stderr = withoutBrowserAdvice(run.stderr);
      if (run.exitCode === EXIT.NOT_FOUND) stderr += await unknownPluginHint(session, state, command, stderr);
      if (stderr.includes(": command not found")) stderr += await missingCommandHints(session, stderr);
      if (run.stopped === "deadline") stderr += `agent-tools: the command line ran past its deadline of ${settings.timeoutMs} ms and was stopped (AGENT_TOOLS_EXEC_TIMEOUT_MS); the session keeps its files, env and cwd from before it\n`;
      else if (run.stopped === "cancelled") stderr += "agent-tools: the client cancelled the request; the command line was stopped\n";
      else if (run.stopped === "limit") stderr += limitAdvice(stderr);
      // Writes the stopped line had sent may have changed data: named, with the look-first wording of a stopped write.
      const writesNote = run.writes && stoppedLineWritesNote(run.stopped === "deadline" ? "ran past its deadline" : "was cancelled", run.writes);
      if (writesNote) stderr += `agent-tools: ${writesNote}\n`;
      if (run.questionWithdrawn) stderr += "agent-tools: the user was still being asked to confirm a write when the line stopped; the question was withdrawn and that write was not made\n";
      // One JSON document is shown on one line (joined-json.ts), before the cap: it may then fit whole.
      return capStreams(answer(command, run.exitCode, { stdout: joinedJsonStdout(run.stdout), stderr, cwd: run.cwd, ...(run.stopped ? { stopped: run.stopped } : {}), ...(run.note ? { note: run.note } : {}) }), settings.maxOutputChars);
    },
  };
}

const memo = new WeakMap<Runtime, TextLayer>();

/** The text layer of a runtime, made once (options from the environment) and kept with it. */
export function textLayerFor(runtime: Runtime, options?: TextLayerOptions): TextLayer {
  let layer = memo.get(runtime);
  if (!layer) {
    layer = createTextLayer(runtime, options ?? textLayerOptionsFromEnv());
    memo.set(runtime, layer);
  }
  return layer;
}

/** The real path of `file` (symlinks resolved), or `file` itself when it cannot be resolved (it does not exist). */
function realOrSame(file: string): string {
  try {
    return realpathSync.native(file);
  } catch {
    return file;
  }
}
