import type { Cancellation } from "../../cancel.js";
import { acquireFileLock, FileLockBusyError, LOCK_STALE_MS } from "../../file-lock.js";
import { createLimiter, type Limiter } from "../../runtime/limiter.js";
import type { Logger } from "../types.js";
import { McpAdapterError } from "./errors.js";

/**
 * What an mcp block's `maxConcurrentCalls` and `lockFile` do to its tool calls.
 *
 * Why: a server that keeps its state in a file it reads whole, changes and writes back (the
 * reference memory server) loses writes made at once: each call reads the file before the other
 * wrote it, and the last write wins. Models make parallel tool calls routinely, and two client
 * windows run two runtimes on the same file; every call answered ok while most of the writes were
 * gone. So `maxConcurrentCalls` caps the calls in flight to the server in this runtime (queued
 * calls wait in order), and `lockFile` names an advisory lock (file-lock.ts) held around each call
 * that may write (any tool the server did not list with `readOnlyHint: true`), against the other
 * runtimes.
 *
 * Waiting counts against the call's time: the downstream request gets what is left of the
 * block's `timeoutMs`, and a wait for the lock ends before the caller's deadline with an answer
 * naming the lock, not the bare deadline's. A call the caller gave up on while it waited never
 * runs (a write run then would change data nobody is told of).
 */

/** Left before the caller's deadline when the wait for the lock gives up, so its answer is the one the caller gets. */
const ANSWER_MARGIN_MS = 500;

export interface CallGateOptions {
  /** The server's label in messages ("MCP server 'memory'"). */
  label: string;
  /** The block's per-call timeout: waiting counts against it. */
  timeoutMs: number;
  maxConcurrentCalls?: number;
  /** Resolved path of the lock. */
  lockFile?: string;
  /** Whether the server listed the tool with readOnlyHint: true (such a call takes no lock). */
  readsOnly: (tool: string) => boolean;
  log: Logger;
}

/** What a gated call knows of its caller. */
export interface GatedCall {
  /** Epoch ms when the caller stops waiting (the pipeline's deadline). */
  deadline?: number;
  cancel?: Cancellation;
}

export class CallGate {
  private readonly limiter: Limiter | undefined;

  constructor(private readonly options: CallGateOptions) {
    const cap = options.maxConcurrentCalls;
    // No urgent lane: every call is as urgent as the next.
    this.limiter = cap === undefined ? undefined : createLimiter(cap, 0);
  }

  /** Run `call` (given the ms left of the block's timeout) once the cap and the lock allow. */
  run<T>(tool: string, caller: GatedCall, call: (timeoutMs: number) => Promise<T>): Promise<T> {
    const began = Date.now();
    const gated = (): Promise<T> => this.locked(tool, began, caller, call);
    return this.limiter ? this.limiter.run(gated, caller.cancel ? { cancel: caller.cancel } : {}) : gated();
  }

  private async locked<T>(tool: string, began: number, caller: GatedCall, call: (timeoutMs: number) => Promise<T>): Promise<T> {
    const { lockFile, timeoutMs } = this.options;
    const left = (): number => Math.max(1, began + timeoutMs - Date.now());
    if (lockFile === undefined || this.options.readsOnly(tool)) return call(left());
    const until = Math.min(began + timeoutMs, (caller.deadline ?? Infinity) - ANSWER_MARGIN_MS);
    let release: () => Promise<void>;
    try {
      release = await acquireFileLock(lockFile, {
        until,
        ...(caller.cancel ? { cancel: caller.cancel } : {}),
        onCompromised: (error) => this.options.log.warn(`${this.options.label}: its lock ${lockFile} was taken over by another process while tools/call '${tool}' held it (${error.message}); this process stalled for more than ${LOCK_STALE_MS / 1000} s`),
      });
    } catch (error) {
      // The caller gave up (its deadline, its cancel): its own reason stands.
      if (caller.cancel?.aborted) throw error;
      throw this.lockFailure(error, tool);
    }
    try {
      return await call(left());
    } finally {
      await release().catch(() => undefined);
    }
  }

  private lockFailure(error: unknown, tool: string): McpAdapterError {
    const { label, lockFile } = this.options;
    if (error instanceof FileLockBusyError) {
      return new McpAdapterError(
        "UPSTREAM_TIMEOUT",
        `${label}: tools/call '${tool}' was not sent: it waited ${error.waitedMs} ms for the lock ${lockFile}, which another process${error.byWhom} held all that time (another agent-tools runtime calling the same server, such as a second client window); the server was not called, so nothing changed`,
        {
          hint: `Call again when the other process's call is done. A lock left by a process that died is taken over once it is ${LOCK_STALE_MS / 1000} s old, so a lock that stays busy is held by a running process; ${error.removeAdvice("runtime")}.`,
          details: { lockFile, waitedMs: error.waitedMs, ...(error.holder ? { holder: error.holder } : {}) },
        },
      );
    }
    // Anything else: the lock's folder cannot be made there (a missing permission, a read-only disk, a file in the way).
    return new McpAdapterError("NOT_CONFIGURED", `${label}: tools/call '${tool}' was not sent: its lock ${lockFile} cannot be taken (${error instanceof Error ? error.message : String(error)})`, {
      hint: "Set the plugin's lockFile to a path this process may create a folder at, or remove it to run without the lock.",
      hostFixable: true,
    });
  }
}
