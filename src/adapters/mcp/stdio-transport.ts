import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { Logger } from "../types.js";
import type { Redactor } from "../shared/redact.js";
import { buildChildEnv, resolveSecretAware } from "./child-env.js";
import { isAlive, trackChild, untrackChild, waitForExit } from "./child-registry.js";
import type { OpenedTransport, TransportOpener } from "./connection.js";
import { McpAdapterError, errorMessage } from "./errors.js";
import type { McpStdioSpec } from "./spec.js";
import { StderrTail } from "./stderr-tail.js";

/**
 * Opens a stdio MCP server with the SDK's StdioClientTransport: the child gets a minimal safe
 * environment plus the declared `env`, its stderr is captured (the last 40 lines kept, each line
 * logged at debug level, redacted), and it is tracked so no child outlives the runtime.
 */

export interface StdioOpenerOptions {
  name: string;
  hostEnv: NodeJS.ProcessEnv;
  /** Relative `cwd` and relative command paths resolve against it; it is the default cwd when it exists. */
  baseDir?: string;
  redactor: Redactor;
  log: Logger;
  /** How long a child may take to exit after its stdin is closed before SIGTERM, then SIGKILL. Default 2000. */
  killGraceMs?: number;
  stderrLines?: number;
}

function isDirectory(dir: string | undefined): dir is string {
  try {
    return dir !== undefined && existsSync(dir) && statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

interface ResolvedLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string | undefined;
}

export function resolveLaunch(spec: McpStdioSpec, options: StdioOpenerOptions): ResolvedLaunch {
  const { hostEnv, redactor } = options;
  let command = resolveSecretAware(spec.command, hostEnv, "adapter.command", redactor);
  const args = spec.args.map((arg, i) => resolveSecretAware(arg, hostEnv, `adapter.args[${i}]`, redactor));
  const env = buildChildEnv(spec.env, hostEnv, redactor);
  let cwd = spec.cwd === undefined ? undefined : resolveSecretAware(spec.cwd, hostEnv, "adapter.cwd", redactor);
  if (cwd !== undefined && options.baseDir && !path.isAbsolute(cwd)) cwd = path.resolve(options.baseDir, cwd);
  if (cwd === undefined && isDirectory(options.baseDir)) cwd = options.baseDir;
  if (cwd !== undefined && !isDirectory(cwd)) throw new McpAdapterError("NOT_CONFIGURED", `adapter.cwd '${cwd}' is not a directory`);
  // "./server.js" or "bin/server" is relative to the plugin folder; a bare name is looked up on PATH.
  if (options.baseDir && !path.isAbsolute(command) && /[\\/]/.test(command)) command = path.resolve(options.baseDir, command);
  return { command, args, env, cwd };
}

/**
 * The SDK's StdioClientTransport, probing the protocol era in place. The base class makes the SDK
 * run its `server/discover` probe on a second, short-lived copy of the server (so a server that
 * exits on an unknown request does not cost the real connection); a subclass probes on the
 * connection itself. In place is one process instead of two on every cold start (measured
 * 1.25 s vs 2.7 s on this machine under load), and no process exists outside the opener's
 * tracking. A server that does exit on the probe is started again with the 2025 handshake by
 * the connection (connection.ts, openWithVerdict), which is what the sibling would have cost.
 */
class InPlaceProbeStdioTransport extends StdioClientTransport {}

/** Stop a stdio child: close stdin, then SIGTERM after the grace period, then SIGKILL; wait for it to go. */
async function stopChild(transport: StdioClientTransport, pid: number | undefined, graceMs: number): Promise<void> {
  const timers: NodeJS.Timeout[] = [];
  if (pid !== undefined) {
    const signal = (name: NodeJS.Signals) => () => {
      if (isAlive(pid)) {
        try {
          process.kill(pid, name);
        } catch {
          // gone meanwhile
        }
      }
    };
    timers.push(setTimeout(signal("SIGTERM"), graceMs), setTimeout(signal("SIGKILL"), graceMs * 2));
  }
  try {
    await transport.close();
    if (pid !== undefined && !(await waitForExit(pid, graceMs * 2 + 1_000))) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
      await waitForExit(pid, 1_000);
    }
  } finally {
    for (const timer of timers) clearTimeout(timer);
    if (pid !== undefined) untrackChild(pid);
  }
}

export function createStdioOpener(spec: McpStdioSpec, options: StdioOpenerOptions): TransportOpener {
  const graceMs = options.killGraceMs ?? 2_000;
  return async (makeClient, requestOptions) => {
    const launch = resolveLaunch(spec, options);
    const tail = new StderrTail(options.stderrLines ?? 40);
    const transport = new InPlaceProbeStdioTransport({ ...launch, cwd: launch.cwd ?? process.cwd(), stderr: "pipe" });
    transport.stderr?.on("data", (chunk: Buffer) => {
      for (const line of tail.push(chunk)) if (line.trim()) options.log.debug(`[${options.name} stderr] ${options.redactor.redact(line)}`);
    });
    // Track the child from the moment it is spawned, so an exit during initialize leaves nothing behind.
    let pid: number | undefined;
    const start = transport.start.bind(transport);
    transport.start = async () => {
      await start();
      pid = transport.pid ?? undefined;
      if (pid !== undefined) trackChild(pid);
    };
    let stopped: Promise<void> | undefined;
    const close = (): Promise<void> => (stopped ??= stopChild(transport, pid, graceMs));
    const client = makeClient();
    try {
      await client.connect(transport, requestOptions);
    } catch (error) {
      await new Promise((resolve) => setImmediate(resolve));
      await close();
      const errno = (error as NodeJS.ErrnoException).code;
      const stderr = tail.text().trim();
      const detail = stderr ? `; its last stderr lines:\n${stderr}` : "";
      if (errno === "ENOENT" || errno === "EACCES") {
        throw new McpAdapterError("NOT_CONFIGURED", options.redactor.redact(`MCP server '${options.name}' could not be started: command '${launch.command}' ${errno === "ENOENT" ? "was not found" : "is not executable"}`));
      }
      if (requestOptions.signal?.aborted) throw error;
      throw new McpAdapterError("UPSTREAM_ERROR", options.redactor.redact(`MCP server '${options.name}' failed to start (${errorMessage(error)})${detail}`));
    }
    const opened: OpenedTransport = {
      kind: "stdio",
      ...(pid !== undefined ? { pid } : {}),
      diagnostics: () => tail.text(),
      close,
    };
    return { client, opened };
  };
}
