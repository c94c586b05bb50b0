import path from "node:path";
import type { Bash, Command, IFileSystem, ScriptNode, StatementNode } from "just-bash";
import type { Confirmer } from "../runtime/confirm.js";
import { DeadlineError } from "../runtime/result.js";
import { WriteLog, type LoggedWrite } from "../runtime/write-log.js";
import { describeThrown } from "../runtime/errors.js";
import type { CommandOutput, TextCommand } from "./command.js";
import { EXIT } from "./exit-codes.js";
import { realOrSelf } from "../real-path.js";
import { hideCredentialFiles } from "./hidden-files-fs.js";
import { regularFilesOverlay } from "./regular-files-overlay.js";
import { sameFileOnDisk, type FileIdentity } from "./same-file.js";
import { budgetedFs, DEFAULT_SANDBOX_BYTES, type SandboxAccount } from "./memory-budget.js";
import { chargeCarriedEnv, envBytes } from "./env-budget.js";
import { startQuestionClock } from "./question-clock.js";
import { everyCommand, heldLine, watchThreadHold } from "./thread-hold.js";
import { carriedEnv, SANDBOX_HOME, sandboxEnv } from "./sandbox-env.js";
import { afterStoppedLine, carriedErrexitNote, endedOptions, optionStatements, optionVariables, type ShellOptions } from "./shell-options.js";
import { transientDefinitions, transientNote } from "./transient-state.js";

/**
 * One session's sandbox: a just-bash `Bash` in its `hardened` limit profile with an in-memory
 * filesystem that persists between calls. just-bash resets env and cwd on every `exec`, so the
 * sandbox carries them: each call starts from the variables and directory the previous one
 * ended with. Calls of one session run one at a time, in order, so that carried state is never
 * raced. just-bash is imported here, on first use, so a server that never runs a command line
 * never loads it.
 */

export interface SandboxOptions {
  /** Deadline of one command line, in ms. */
  timeoutMs: number;
  /** When set, this host directory is visible at /workdir, copy-on-write: reads come from disk, writes stay in memory. */
  mountDir?: string;
  /** Paths inside mountDir (relative, "/"-separated) hidden on top of the usual credential files. */
  hiddenPaths?: string[];
  /** Files hidden by what they are on disk, under any path of mountDir (the config file's hard links). */
  hiddenFiles?: FileIdentity[];
  /** Where the sandbox's file bytes are charged (its own cap and the budget of all sandboxes). */
  account?: SandboxAccount;
  /** just-bash's own cap of the in-memory filesystem, the backstop; default 128 MiB. */
  maxFileBytes?: number;
  /** The longest a line may keep the server's thread without a pause, in ms (thread-hold.ts); undefined: no such limit. */
  holdMs?: number;
}

export interface SandboxRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** The working directory after the command line. */
  cwd: string;
  /** Why the command line was stopped, when it was. */
  stopped?: "deadline" | "cancelled" | "limit";
  /** The line was stopped while the user was asked to confirm a write; the question was taken back. */
  questionWithdrawn?: boolean;
  /** A line stopped at its deadline or by a cancel: the writes it had sent to plugins, still running or answered (write-log.ts). */
  writes?: { inFlight: LoggedWrite[]; answered: LoggedWrite[] };
  /** The line defines arrays or functions, which the next call will not have (transient-state.ts). */
  note?: string;
}

export const WORKDIR_MOUNT = "/workdir";
/**
 * The largest /workdir file read: the `hardened` profile's input limit (32 MiB), which a command
 * checks on a file's size first. The overlay's own default (10 MiB) made a file between the two
 * "No such file or directory".
 */
const MOUNT_FILE_READ_BYTES = 32 * 1024 * 1024;

export interface Sandbox {
  readonly createdAt: number;
  readonly creationMs: number;
  readonly cwd: string;
  /** The names every command line can use (built-ins and the text layer's). */
  commandNames(): string[];
  hasCommand(name: string): boolean;
  register(command: TextCommand): void;
  /** `asker`: the confirmer of the request this command line answers, handed to its commands. */
  run(commandLine: string, signal?: AbortSignal, asker?: Confirmer): Promise<SandboxRun>;
  /** `task` in the session's queue: after the command lines (and tasks) sent before it, before those sent after. */
  serial<T>(task: () => Promise<T>): Promise<T>;
  /** The session ended: its file bytes go back to the shared budget. */
  dispose(): void;
}

/**
 * How long one command line may spend, in all, waiting for the user to confirm its writes: its
 * own deadline does not run meanwhile, and just-bash's backstop deadline is this much longer.
 */
export const QUESTION_ALLOWANCE_MS = 10 * 60_000;

type JustBash = typeof import("just-bash");

let justBash: Promise<JustBash> | undefined;
/** The just-bash module, imported once per process on first use. */
export function loadJustBash(): Promise<JustBash> {
  justBash ??= import("just-bash");
  return justBash;
}

/** What the command line running now hands its commands: its confirmer and the log of the writes it sends. */
interface LineHooks {
  confirmer?: Confirmer;
  writeLog?: WriteLog;
  /** The line's own cancellation, whose reason says why it stopped (its deadline, the client's cancel). */
  stop?: AbortSignal;
}

/**
 * just-bash aborts a command's signal with its own "execution aborted" whatever stopped the line;
 * the command gets the line's reason instead, so the calls it makes (and their backends' cancel
 * notices) say the deadline or the client's cancel.
 */
function withLineReason(signal: AbortSignal | undefined, stop: AbortSignal | undefined): AbortSignal | undefined {
  if (!signal || !stop) return signal;
  const controller = new AbortController();
  const abort = (): void => controller.abort(stop.aborted ? stop.reason : signal.reason);
  if (signal.aborted) abort();
  else signal.addEventListener("abort", abort, { once: true });
  return controller.signal;
}

function toBashCommand(jb: JustBash, command: TextCommand, lineNow: () => LineHooks): Command {
  return {
    name: command.name,
    // Text-layer commands are host code (they reach plugins and services); the sandbox's own
    // script never gets more than their stdout.
    trusted: true,
    async execute(args, ctx) {
      try {
        const { confirmer, writeLog, stop } = lineNow();
        const out: Partial<CommandOutput> | undefined = await command.run(args, { stdin: jb.decodeBytesToUtf8(ctx.stdin), cwd: ctx.cwd, signal: withLineReason(ctx.signal, stop), ...(confirmer ? { confirmer } : {}), ...(writeLog ? { writeLog } : {}) });
        // A module may return a sloppy value; the shell needs exactly these three fields.
        return {
          stdout: typeof out?.stdout === "string" ? out.stdout : "",
          stderr: typeof out?.stderr === "string" ? out.stderr : out ? "" : `${command.name}: returned nothing\n`,
          exitCode: Number.isInteger(out?.exitCode) ? (out?.exitCode as number) : out ? EXIT.OK : EXIT.FAILED,
        };
      } catch (error) {
        return { stdout: "", stderr: `${command.name}: ${describeThrown(error)}\n`, exitCode: EXIT.FAILED };
      }
    },
  };
}

/**
 * The `hardened` profile's limits sized for "large result, small answer": a plugin result may be
 * up to 5,000,000 characters (plugin-commands.ts), printed as indented JSON up to 2,000,000
 * characters and compact above (command.ts), so a few hundred thousand lines must pass through jq, grep, sed and awk (hardened stops them at 100,000 lines or
 * elements, about 2–3 MB). Counts and iterations are raised to just-bash's `normal` defaults; the
 * deadline and the memory budget still bound the work. README "The sandbox" lists them.
 */
export const SANDBOX_LIMITS = {
  maxCommandCount: 100_000,
  maxLoopIterations: 100_000,
  maxAwkIterations: 100_000,
  maxSedIterations: 100_000,
  maxJqIterations: 1_000_000,
  maxQueryElements: 1_000_000,
  maxArrayElements: 1_000_000,
  maxWorkUnits: 10_000_000,
  maxStringLength: 32 * 1024 * 1024,
  // hardened's 10 MiB counts every byte a command prints, piped or not: a result at the cap,
  // printed compact (command.ts), is up to 15 MB of UTF-8, and a line may print it more than once.
  maxOutputSize: 64 * 1024 * 1024,
} as const;

/**
 * The command line as the body of one `{ …; }` group. just-bash drops the output of a script's
 * finished statements when a later one is stopped (deadline, cancel) or throws (a write the
 * memory budget refuses), and rejects the whole `exec` for the throw; a group keeps that output,
 * ends with status 1 and a line naming the error, and returns the env and directory it reached.
 * The group is made on the parsed line (a transform plugin, which just-bash runs after parsing,
 * before running), not by writing braces around its text: just-bash parses the user's line alone,
 * so a syntax error names the user's line and column, an unterminated heredoc ends at the end
 * of the line as in plain just-bash, and a stray `}` cannot close the group early.
 */
function asGroup(script: ScriptNode, commandLine: string): ScriptNode {
  const group = { type: "Group", body: script.statements, redirections: [] };
  const pipeline = { type: "Pipeline", commands: [group], negated: false, timed: false, timePosix: false };
  return { ...script, statements: [{ type: "Statement", pipelines: [pipeline], operators: [], background: false, sourceText: commandLine } as unknown as StatementNode] };
}

export async function createSandbox(options: SandboxOptions, commands: readonly TextCommand[]): Promise<Sandbox> {
  const started = performance.now();
  const jb = await loadJustBash();
  // The sandbox's own filesystem (just-bash would make the same one, with the same default
  // layout, given no `fs`), so that its writes can be charged to the memory budget.
  const base = new jb.InMemoryFs(undefined, { maxTotalBytes: options.maxFileBytes ?? DEFAULT_SANDBOX_BYTES });
  let fs: IFileSystem = base;
  // The mount's refused reads of the line that ran (regular-files-overlay.ts), said on its stderr.
  let takeRefusals = (): string[] => [];
  if (options.mountDir) {
    // A mount gets no default layout: make the directories scripts expect. Not /bin or /usr/bin:
    // without command stubs there, just-bash would find no commands on PATH; with no /usr/bin at
    // all it resolves them by name.
    for (const dir of [SANDBOX_HOME, "/tmp"]) await base.mkdir(dir, { recursive: true });
    const mounted = new jb.MountableFs({ base });
    const regular = regularFilesOverlay(jb.OverlayFs, { root: options.mountDir, mountPoint: "/", readOnly: false, maxFileReadSize: MOUNT_FILE_READ_BYTES }, WORKDIR_MOUNT);
    takeRefusals = regular.takeRefusals;
    mounted.mount(WORKDIR_MOUNT, hideCredentialFiles(regular.overlay, options.hiddenPaths ?? [], sameFileOnDisk(options.mountDir, options.hiddenFiles ?? []), path.basename(realOrSelf(path.resolve(options.mountDir)))));
    fs = mounted;
  }
  if (options.account) fs = budgetedFs(fs, options.account, (work) => jb.DefenseInDepthBox.runTrustedAsync(work));
  const builtins = new Set<string>(jb.getCommandNames());
  const own = new Set<string>();
  // The confirmer of the command line running now (runs are queued, one at a time).
  let confirmer: Confirmer | undefined;
  // The writes the command line running now sent, told when it is stopped mid-line.
  let writeLog: WriteLog | undefined;
  let lineStop: AbortSignal | undefined;
  // Called, synchronously, as each command of the running line is charged (thread-hold.ts).
  let lineStep: (() => void) | undefined;
  const lineNow = (): LineHooks => ({ ...(confirmer ? { confirmer } : {}), ...(writeLog ? { writeLog } : {}), ...(lineStop ? { stop: lineStop } : {}) });
  const bash: Bash = new jb.Bash({
    env: sandboxEnv(),
    // No `cwd` here: given one, just-bash skips part of its default layout (/tmp); it starts in $HOME.
    fs,
    executionLimitProfile: "hardened",
    // Our own timer aborts at the deadline (so host-side commands see their signal fire);
    // just-bash's deadline is the backstop. Ours stops while the user is asked to confirm a
    // write (question-clock.ts); just-bash's cannot, so it leaves room for that waiting.
    executionLimits: { ...SANDBOX_LIMITS, maxExecutionTimeMs: options.timeoutMs + QUESTION_ALLOWANCE_MS + 1000 },
    customCommands: commands.map((c) => toBashCommand(jb, c, lineNow)),
    // Off: just-bash's defense-in-depth box guards the process's JavaScript globals (Function,
    // eval, timers, process.*, module loading) against a script reaching them, but the script
    // here runs no JavaScript (no `javascript`, no `python`, no network: a command line is bash,
    // jq, awk, sed… interpreted), and the box acts on the whole process, not this sandbox: on
    // each exec it redefines RegExp.prototype's well-known-symbol methods and puts them back,
    // and V8 leaves its regexp fast paths for good at the first such change. From the first
    // exec on, every regexp split of the runtime, in every session, walked character by
    // character: a 3 MB split 4 ms -> 2 s, a downstream's 30 MB stderr 0.13 s -> 3.6 s of CPU
    // (README, Security model). Pinned by test/sandbox.process-regexp.test.ts.
    defenseInDepth: false,
  });
  everyCommand(bash, () => lineStep?.());
  for (const c of commands) own.add(c.name);
  // Armed for the top-level parse of one command line only: just-bash runs transform plugins
  // for nested scripts too (`bash -c`, `eval`), which stay as written. Runs are queued, so the
  // first transform after arming is the line's own.
  let pendingLine: { text: string; note?: string } | undefined;
  // The shell options the last call ended with (shell-options.ts).
  let shellOptions: ShellOptions = {};
  bash.registerTransformPlugin({
    name: "agent-tools-group",
    transform({ ast }) {
      if (!pendingLine) return { ast };
      const current = pendingLine;
      pendingLine = undefined;
      const note = transientNote(transientDefinitions(ast));
      if (note) current.note = note;
      // A line of comments only has no statements, and a group must have one. A statement that
      // carries a deferred syntax error (`echo a; }`) is left at the top, where just-bash answers
      // it as it does any syntax error (exit 2, `bash: syntax error: …`, nothing kept); in a
      // group it became an exit 1 after the statements before it had run.
      const wrap = ast.statements.length > 0 && !ast.statements.some((s) => s.deferredError);
      if (!wrap) return { ast };
      // The carried shell options, restored ahead of the line's own statements (after the note,
      // which is about what the line itself writes).
      const restore = optionStatements(shellOptions);
      const prefix = restore ? jb.parse(restore).statements : [];
      return { ast: asGroup({ ...ast, statements: [...prefix, ...ast.statements] }, current.text) };
    },
  });

  let env = sandboxEnv();
  // The carried variables are charged to the account like files (env-budget.ts), by what they
  // hold beyond this fixed starting set (which is the server's, and a few hundred bytes).
  let envCharged = envBytes(env);
  let cwd = SANDBOX_HOME;
  let queue: Promise<unknown> = Promise.resolve();

  function serial<T>(task: () => Promise<T>): Promise<T> {
    const next = queue.then(task);
    queue = next.catch(() => undefined);
    return next;
  }

  async function runNow(commandLine: string, signal: AbortSignal | undefined, asker: Confirmer | undefined): Promise<SandboxRun> {
    const controller = new AbortController();
    let stopped: SandboxRun["stopped"];
    const clock = startQuestionClock(
      options.timeoutMs,
      () => {
        stopped ??= "deadline";
        // One of the runtime's errors: a plugin call the line was running passes it on as the
        // reason of its own stop, so the backend's cancel says "deadline", not "the client".
        // Trusted: fired at a step of the line (below), the abort's listeners (host code) run as
        // they do from the timer, outside just-bash's defence in depth.
        jb.DefenseInDepthBox.runTrusted(() => controller.abort(new DeadlineError("UPSTREAM_TIMEOUT", `the command line ran past its deadline of ${options.timeoutMs} ms (AGENT_TOOLS_EXEC_TIMEOUT_MS)`, { timeoutMs: options.timeoutMs })));
      },
      controller.signal,
    );
    confirmer = asker ? clock.confirmer(asker) : undefined;
    const writes = new WriteLog();
    writeLog = writes;
    lineStop = controller.signal;
    const onCancel = (): void => {
      stopped ??= "cancelled";
      controller.abort(new Error("cancelled by the client"));
    };
    // The line's deadline and hold limit, checked at its steps: no timer fires while it runs
    // builtins. The abort is trusted, as the deadline's is.
    const hold = watchThreadHold(options.holdMs);
    let heldMs: number | undefined;
    lineStep = () => {
      if (controller.signal.aborted) return;
      if (!hold.step()) return clock.check();
      heldMs = hold.heldMs;
      stopped ??= "limit";
      const reason = new Error(heldLine(heldMs, options.holdMs));
      jb.DefenseInDepthBox.runTrusted(() => controller.abort(reason));
    };
    if (signal?.aborted) onCancel();
    else signal?.addEventListener("abort", onCancel, { once: true });
    try {
      // rawScript: a heredoc keeps its indentation (YAML written with cat <<EOF stays valid).
      takeRefusals(); // a stopped line's leftovers are not this line's
      const parsed: { text: string; note?: string } = { text: commandLine };
      pendingLine = parsed;
      const startedWith = shellOptions;
      // SHELLOPTS and BASHOPTS go in as they came out, never assigned by a statement (they are
      // readonly): a line that does not run (a syntax error) answers them unchanged.
      const result = await bash.exec(commandLine, { env: { ...env, ...optionVariables(shellOptions) }, replaceEnv: true, cwd, signal: controller.signal, rawScript: true }).finally(() => (pendingLine = undefined));
      let { exitCode, stderr } = result;
      for (const refusal of takeRefusals()) stderr += `agent-tools: ${refusal}\n`;
      if (!stopped) {
        const carried = chargeCarriedEnv(options.account, env, envCharged, carriedEnv(result.env));
        env = carried.env;
        envCharged = carried.bytes;
        cwd = result.env.PWD || cwd;
        shellOptions = endedOptions(result.env, shellOptions);
        if (carried.refusal) {
          stderr += carried.refusal;
          if (exitCode === EXIT.OK) exitCode = EXIT.LIMIT;
        }
        if (result.exitCode === EXIT.DEADLINE && /deadline/.test(result.stderr)) stopped = "deadline";
        else if (result.exitCode === EXIT.LIMIT) stopped = "limit";
      }
      if (stopped) shellOptions = afterStoppedLine(shellOptions);
      const withdrawn = clock.withdrew ? { questionWithdrawn: true } : {};
      // Not for a line that did not parse: set -e stopped nothing there.
      const errexit = !stopped && exitCode !== EXIT.OK && !/syntax error|Parse error/.test(stderr) ? carriedErrexitNote(startedWith) : undefined;
      if (errexit) parsed.note = parsed.note ? `${parsed.note} ${errexit}` : errexit;
      const sentWrites = stopped === "deadline" || stopped === "cancelled" ? { writes: { inFlight: writes.inFlight, answered: writes.answered } } : {};
      if (heldMs !== undefined) {
        stderr += `agent-tools: ${heldLine(heldMs, options.holdMs)}\n`;
        exitCode = EXIT.LIMIT;
      }
      return { exitCode: stopped === "deadline" || stopped === "cancelled" ? EXIT.DEADLINE : exitCode, stdout: result.stdout, stderr, cwd, ...(stopped ? { stopped } : {}), ...withdrawn, ...(parsed.note ? { note: parsed.note } : {}), ...sentWrites };
    } catch (error) {
      // just-bash returns expected failures as values; a throw is a filesystem or internal error.
      shellOptions = afterStoppedLine(shellOptions);
      return { exitCode: EXIT.FAILED, stdout: "", stderr: `agent-tools: the command line failed: ${describeThrown(error)}\n`, cwd, ...(stopped ? { stopped } : {}) };
    } finally {
      lineStep = undefined;
      hold.dispose();
      clock.dispose();
      signal?.removeEventListener("abort", onCancel);
      confirmer = undefined;
      writeLog = undefined;
      lineStop = undefined;
    }
  }

  return {
    createdAt: Date.now(),
    creationMs: performance.now() - started,
    get cwd() {
      return cwd;
    },
    commandNames: () => [...new Set([...builtins, ...own])].sort(),
    hasCommand: (name) => builtins.has(name) || own.has(name),
    register(command) {
      own.add(command.name);
      bash.registerCommand(toBashCommand(jb, command, lineNow));
    },
    dispose() {
      options.account?.close();
    },
    run(commandLine, signal, asker) {
      return serial(() => runNow(commandLine, signal, asker));
    },
    serial,
  };
}
