import path from "node:path";
import { isOffValue } from "../../env-switch.js";
import { isDirectory } from "../../is-directory.js";
import { settingAt, settingsAt, type Logger, type SettingsLocation } from "../types.js";
import type { Redactor } from "../shared/redact.js";
import { buildChildEnv } from "./child-env.js";
import { resolveChildValue } from "../shared/child-variable.js";
import { resolveAddress } from "../shared/env-vars.js";
import { DEPTH_REFUSAL_HINT, depthRefusal } from "../shared/runtime-depth.js";
import { ToolCallLane } from "./call-lane.js";
import { GroupStdioTransport, describeExit } from "./group-stdio-transport.js";
import { LenientClient } from "./lenient-handshake.js";
import type { OpenedTransport, TransportOpener } from "./connection.js";
import { ExitedWhileStarting, McpAdapterError, ProbeAnsweredLate, UnsupportedServerVersion, errorMessage, isRequestTimeout, isUnsupportedProtocolVersion } from "./errors.js";
import type { McpStdioSpec } from "./spec.js";
import { StderrTail } from "./stderr-tail.js";
import { refusedUnsent } from "../../batched-writes.js";
import { namesRuntimeFolder } from "../shared/working-folder.js";

/**
 * Opens a stdio MCP server in its own process group (group-stdio-transport.ts): the child gets a
 * minimal safe environment plus the declared `env`, its stderr is captured (the last 40 lines
 * kept, each line logged at debug level, redacted), and its group is tracked so neither it nor
 * anything it started outlives the runtime.
 */

export interface StdioOpenerOptions {
  name: string;
  hostEnv: NodeJS.ProcessEnv;
  /** Relative `cwd` and relative command paths resolve against it; it is the default cwd when it exists. */
  baseDir?: string;
  redactor: Redactor;
  log: Logger;
  /** How long a child's group may take to exit after its stdin is closed before SIGTERM to the group, then as long again before SIGKILL. Default 2000. */
  killGraceMs?: number;
  stderrLines?: number;
  /** Where the server's settings are written, for hints that say what to change. */
  settings?: SettingsLocation;
}

/** How long a server that failed to start is waited for to exit, for its exit code and last stderr lines. */
const EXIT_WAIT_MS = 1_000;

/** `AGENT_TOOLS_CALL_LANE=off` (or `0`, `false`): every tools/call goes through the SDK Client (call-lane.ts). */
const CALL_LANE_ENV = "AGENT_TOOLS_CALL_LANE";

interface ResolvedLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string | undefined;
}

export function resolveLaunch(spec: McpStdioSpec, options: StdioOpenerOptions): ResolvedLaunch {
  const { hostEnv, redactor } = options;
  const refusal = depthRefusal(hostEnv);
  if (refusal) throw new McpAdapterError("NOT_CONFIGURED", `MCP server '${options.name}' was not started: ${refusal}`, { hint: DEPTH_REFUSAL_HINT });
  // The program and folder are paths, not credentials: masking them would scrub paths out of errors.
  let command = resolveAddress(spec.command, hostEnv, "adapter.command", redactor);
  // A path in an argument (a script's) is shown; any other value a `${VAR}` gives is masked.
  const args = spec.args.map((arg, i) => resolveChildValue(arg, hostEnv, `adapter.args[${i}]`, redactor));
  const env = buildChildEnv(spec.env, hostEnv, redactor);
  // `cwd: "@runtime"` is this runtime's own working folder; no cwd is the plugin's (or config file's) folder.
  let cwd = namesRuntimeFolder(spec.cwd) ? process.cwd() : spec.cwd === undefined ? undefined : resolveAddress(spec.cwd, hostEnv, "adapter.cwd", redactor);
  if (cwd !== undefined && options.baseDir && !path.isAbsolute(cwd)) cwd = path.resolve(options.baseDir, cwd);
  if (cwd === undefined && options.baseDir !== undefined && isDirectory(options.baseDir)) cwd = options.baseDir;
  if (cwd !== undefined && !isDirectory(cwd)) {
    const setting = settingAt(options.settings, "cwd");
    throw new McpAdapterError("NOT_CONFIGURED", redactor.redact(`MCP server '${options.name}' could not be started: its working folder '${cwd}' (${setting}) is not a directory`), {
      hint: `Create that folder, or correct ${setting}${options.baseDir ? ` (a relative path is read from ${options.baseDir})` : ""}, then restart the agent-tools server. Not something tool arguments can fix.`,
    });
  }
  // "./server.js" or "bin/server" is relative to the plugin folder; a bare name is looked up on PATH.
  if (options.baseDir && !path.isAbsolute(command) && /[\\/]/.test(command)) command = path.resolve(options.baseDir, command);
  return { command, args, env, cwd };
}

/** The command could not be run at all: not found (ENOENT) or not executable (EACCES); the hint says how to fix each. */
function notStartable(errno: "ENOENT" | "EACCES", command: string, spec: McpStdioSpec, options: StdioOpenerOptions): McpAdapterError {
  const setting = settingAt(options.settings, "command");
  const found = errno === "ENOENT";
  const message = `MCP server '${options.name}' could not be started: command '${command}' (${setting}) ${found ? "was not found" : "is not executable"} (${errno})`;
  const hint = found
    ? `Install the program, or correct ${setting}: a bare name is looked up on ${spec.env.PATH !== undefined ? `the PATH ${settingAt(options.settings, "env.PATH")} sets` : "the PATH of the agent-tools server"}, a path${options.baseDir ? ` is read from ${options.baseDir} when relative` : " must exist"}. Then restart the agent-tools server. Not something tool arguments can fix.`
    : `Make the file executable (chmod +x '${command}'), or set ${setting} to the program that runs it (node, python3, sh) with the file as the first of its args. Then call again. Not something tool arguments can fix.`;
  return new McpAdapterError("NOT_CONFIGURED", options.redactor.redact(message), { hint: options.redactor.redact(hint) });
}

/** How a server that closed its stdout and ran on ended, in a message ("MCP server 'x' <this> during tools/call …"). */
const STDOUT_CLOSED = "closed its stdout while its process kept running (no answer can arrive without it: the runtime stopped the server, and the next call starts it again)";

/** How much of each non-JSON stdout line an error quotes. */
const STRAY_LINE_CHARS = 200;

/** The non-JSON lines a server wrote to stdout, quoted for an error: masked, then cut (a credential cut in two would not be found whole). */
function strayLinesText(lines: readonly string[], redactor: Redactor): string {
  return lines
    .map((line) => {
      const masked = redactor.redact(line);
      return JSON.stringify(masked.length > STRAY_LINE_CHARS ? `${masked.slice(0, STRAY_LINE_CHARS)}…` : masked);
    })
    .join(", ");
}

/** A server that logs to stdout: its command or its settings must change, not the call. */
function strayStdoutHint(options: StdioOpenerOptions): string {
  return `An MCP stdio server must write only JSON-RPC to stdout; this one writes its logs there, so its answers are not found among them (or it never answers). Make it log to stderr (a flag or variable of the server's own, such as a quiet or log-level setting, in ${settingsAt(options.settings, ["args", "env"], " or ")}), or wrap ${settingAt(options.settings, "command")} in a script that does; then call again. Tool arguments cannot fix this.`;
}

/** A server that runs but never answers the handshake: what to check, in its config entry. */
function silentStartHint(options: StdioOpenerOptions): string {
  return `The server's process runs but did not answer the MCP handshake. Run its command by hand: a program that is not an MCP stdio server, or one waiting for input or a login, never answers; one that is only slow to start needs a larger ${settingAt(options.settings, "timeoutMs")}. Then call again. Tool arguments cannot fix this.`;
}

/** A server that answered the handshake with an id of its own making: its bug, not its config's. */
function misansweredHint(): string {
  return "The server answered the MCP handshake, but not with the id of the request (JSON-RPC requires an answer to carry its request's id), so the answer could not be used: a bug in the server. Update it or report it to its maintainers. Tool arguments cannot fix this.";
}

/** What became of an era probe given up as unanswered (probe-silence.ts), for a failed start's message; "" when none was. */
function probeGivenUpText(transport: GroupStdioTransport): string {
  const given = transport.probeGivenUp;
  if (!given) return "";
  const late = given.late === "discover" ? ", and then answered it as a 2026-07-28 server (it is slow to start: its next start waits for the probe as long as its timeoutMs)" : given.late === "error" ? ", and then answered it with an error" : "";
  return `; no answer to the era probe (server/discover) within ${given.afterMs} ms while its process ran quiet, so it was taken for a 2025-era server and sent initialize${late}`;
}

export function createStdioOpener(spec: McpStdioSpec, options: StdioOpenerOptions): TransportOpener {
  const graceMs = options.killGraceMs ?? 2_000;
  // Set once the server answered an era probe given up as unanswered with a discover result: a
  // slow 2026-07-28 server, whose later starts wait for the probe the SDK's whole timeout.
  let patientProbe = false;
  return async (makeClient, requestOptions) => {
    const launch = resolveLaunch(spec, options);
    const tail = new StderrTail(options.stderrLines ?? 40, undefined, (text) => options.redactor.redact(text));
    const transport = new GroupStdioTransport({ ...launch, cwd: launch.cwd ?? process.cwd(), graceMs, probeSilence: !patientProbe });
    // An oversized line no call can be told about: only the log says it was lost (the head it quotes is the server's output: masked).
    transport.onSkippedLine = (description) => options.log.warn(options.redactor.redact(`MCP server '${options.name}': ${description}`));
    transport.stderr.on("data", (chunk: Buffer) => {
      for (const line of tail.push(chunk)) if (line.trim()) options.log.debug(`[${options.name} stderr] ${line}`);
    });
    const close = (): Promise<void> => transport.close();
    const client = makeClient();
    // The connection closed while this start is under way: end it now, not after its handshake.
    const abandon = (): void => void transport.abandon();
    requestOptions.closing?.addEventListener("abort", abandon, { once: true });
    try {
      if (requestOptions.closing?.aborted) throw new Error("the connection was closed before the server was started");
      await client.connect(transport, requestOptions);
    } catch (error) {
      await close();
      const errno = (error as NodeJS.ErrnoException).code;
      if (errno === "ENOENT" || errno === "EACCES") throw notStartable(errno, launch.command, spec, options);
      if (requestOptions.signal?.aborted || requestOptions.closing?.aborted) throw error;
      // A slow 2026-07-28 server taken for a 2025-era one (it refused the initialize sent meanwhile):
      // its next start waits for the probe, and connection.ts makes that start at once.
      if (transport.probeGivenUp?.late === "discover") {
        patientProbe = true;
        throw new ProbeAnsweredLate(options.redactor.redact(`MCP server '${options.name}' failed to start (${errorMessage(error)})${probeGivenUpText(transport)}`));
      }
      // The server answered the handshake that it does not serve its protocol version (-32022): said
      // as it is, so a connect with a kept verdict that no longer holds negotiates again (connection.ts).
      if (isUnsupportedProtocolVersion(error)) throw error;
      // The runtime's own client refused the version the server answered initialize with, and closed
      // its stdin: the server's exit that follows is not why (connection.ts words it, as over HTTP).
      if (error instanceof UnsupportedServerVersion) throw error;
      // A server that exits at once (a bad argument, a missing variable) fails the handshake with
      // whatever the write or read met (EPIPE, "Connection closed"): its exit code and its last
      // stderr lines, read to the end once its pipes closed, are what say why.
      const exit = await transport.exitStatus(EXIT_WAIT_MS);
      await new Promise((resolve) => setImmediate(resolve));
      const stderr = tail.text().trim();
      const stray = strayLinesText(transport.strayStdout, options.redactor);
      const detail = `${probeGivenUpText(transport)}${stray ? `; it wrote lines to stdout that are not JSON-RPC (stdout carries only JSON-RPC; logs go to stderr): ${stray}` : ""}${stderr ? `; its last stderr lines:\n${stderr}` : exit ? "; it wrote nothing to stderr" : ""}`;
      if (transport.stdoutClosedWhileRunning) {
        throw new McpAdapterError("UPSTREAM_ERROR", options.redactor.redact(`MCP server '${options.name}' closed its stdout before it finished starting, while its process kept running; stdout carries its MCP answers, so none could arrive, and it was stopped${detail}`), {
          hint: `An MCP stdio server must keep stdout open for its JSON-RPC answers: run its command by hand to see why it closes it (a wrapper that redirects or closes stdout, a program that is not an MCP stdio server), and fix ${settingsAt(options.settings, ["command", "args"])}. Then call again. Tool arguments cannot fix this.`,
        });
      }
      if (isRequestTimeout(error)) {
        // Not a timeout of the call: the server did not start, which no other arguments change.
        const within = requestOptions.timeout !== undefined ? `within ${requestOptions.timeout} ms` : "in time";
        const misanswered = client instanceof LenientClient ? client.strayHandshakeAnswer() : undefined;
        const hint = misanswered ? misansweredHint() : stray ? strayStdoutHint(options) : silentStartHint(options);
        throw new McpAdapterError("UPSTREAM_ERROR", options.redactor.redact(`MCP server '${options.name}' did not finish starting ${within}${misanswered ? `: ${misanswered}` : ""}${detail}`), { hint });
      }
      if (exit) {
        // A handshake write the closed pipe refused (NotSent: EPIPE) and one whose answer never came
        // ("Connection closed") say the same of a process that exited: one wording, whichever side
        // noticed first (the EPIPE form is longer and pushed the stderr reason out of one-line summaries).
        // The NotSent is looked for below what the SDK wrapped it in, too.
        const met = refusedUnsent(error, { depth: 4 }) ? "Connection closed" : errorMessage(error);
        const message = options.redactor.redact(`MCP server '${options.name}' ${describeExit(exit)} before it finished starting (${met})${detail}`);
        const hint = `The server stopped by itself while starting: ${stderr ? "what it wrote to stderr (in `message`) says why; run its command by hand to see it whole" : "run its command by hand to see why"}. Fix its arguments or its variables (${settingsAt(options.settings, ["args", "env"])}), then call again. Tool arguments cannot fix this.`;
        // Exited having answered nothing: marked so, as such an exit tells nothing of the handshake it was sent.
        if (!transport.wroteToStdout) throw new ExitedWhileStarting(message, { hint });
        throw new McpAdapterError("UPSTREAM_ERROR", message, { hint });
      }
      throw new McpAdapterError("UPSTREAM_ERROR", options.redactor.redact(`MCP server '${options.name}' failed to start (${errorMessage(error)})${detail}`));
    } finally {
      requestOptions.closing?.removeEventListener("abort", abandon);
    }
    const given = transport.probeGivenUp;
    if (given) options.log.debug(`MCP server '${options.name}': no answer to the era probe (server/discover) within ${given.afterMs} ms of quiet; taken for a 2025-era server (initialize)`);
    const laneOn = !isOffValue(options.hostEnv[CALL_LANE_ENV]);
    const opened: OpenedTransport = {
      kind: "stdio",
      ...(laneOn && client instanceof LenientClient ? { lane: new ToolCallLane(transport, client) } : {}),
      ...(transport.pid !== undefined ? { pid: transport.pid } : {}),
      diagnostics: () => tail.text(),
      ended: () => (transport.stdoutClosedWhileRunning ? STDOUT_CLOSED : transport.leaderExit ? describeExit(transport.leaderExit) : undefined),
      close,
    };
    return { client, opened };
  };
}
