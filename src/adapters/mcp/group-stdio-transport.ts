import { spawn, type ChildProcess } from "node:child_process";
import { PassThrough } from "node:stream";
import { deserializeMessage, serializeMessage, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/client";
import { BatchedWriter, NotSent } from "../../batched-writes.js";
import { JsonRpcLineReader, OversizedLine, answerIdFromLine, isMethodLine } from "../../jsonrpc-lines.js";
import type { LaneHook, LaneWire } from "./call-lane.js";
import { ProbeSilence, type ProbeGivenUp } from "./probe-silence.js";
import { exitBegun, signalGroup, stopGroup, trackGroup, untrackGroup, waitForGroupExit } from "../shared/process-groups.js";

/**
 * A stdio client transport whose server process leads its own process group. The SDK's
 * StdioClientTransport spawns the server in the runtime's group and signals only that one pid,
 * so a server started through a wrapper (`sh -c`, `npx`, `uvx`) left its real process behind. This
 * one speaks the same newline-delimited JSON-RPC (the SDK's framing and serializeMessage), and
 * closes by ending stdin, then SIGTERM to the whole group after the grace period, then SIGKILL
 * (faster when the runtime is exiting: see close()).
 *
 * Being not the SDK's own StdioClientTransport, it also makes the SDK v2 run its era probe
 * (`server/discover`) in place instead of on a second, untracked copy of the server: one process
 * per cold start instead of two (measured 1.25 s vs 2.7 s on this machine under load). A server
 * that exits on the probe is started again with the 2025 handshake (connection.ts, openWithVerdict);
 * one that ignores it while its process runs on is taken for a 2025-era server once it has gone
 * quiet, not after the probe's whole timeout (probe-silence.ts).
 */

export interface GroupStdioParams {
  command: string;
  args: string[];
  /** The complete environment of the child (child-env.ts builds it). */
  env: Record<string, string>;
  cwd: string;
  /** After stdin is closed, how long the group may take to go before SIGTERM; as long again before SIGKILL. */
  graceMs: number;
  /** Give up the era probe once the process has gone quiet (probe-silence.ts); false: the SDK's own probe timeout only. Default true. */
  probeSilence?: boolean;
}

/** A child's end: its exit code, or the signal that ended it. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** "exited with code 2", "was ended by SIGKILL". */
export function describeExit(exit: ChildExit): string {
  return exit.signal ? `was ended by ${exit.signal}` : `exited with code ${exit.code ?? "unknown"}`;
}

/**
 * After the leader exits, how long its pipes may stay open before they are closed here. Its group
 * is ended at once (SIGTERM, SIGKILL after the grace period), which closes them; this bounds the
 * wait for something outside the group (a daemon that called setsid) still holding them.
 */
const LEFTOVER_PIPES_MS = 1_000;

/**
 * After the server's stdout ends, how long its process may take to exit before it counts as
 * running with its stdout closed (#stdoutEnded). A process that exits closes its stdout too, and
 * its 'exit' event may come a moment after the end of the pipe: its exit code says more.
 */
const STDOUT_END_EXIT_MS = 250;

/** The error code of an answer skipped for its size (#oversized); runtime-made, never a server's. */
export const OVERSIZED_ANSWER = -32_098;

export class GroupStdioTransport implements Transport, LaneWire {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /**
   * Told what was lost when an oversized line that answers no known call was skipped (#oversized):
   * the opener logs it at warn, naming the server. Without it, `onerror` hears it.
   */
  onSkippedLine?: (description: string) => void;

  readonly #params: GroupStdioParams;
  /**
   * The SDK's line framing, with the plain envelopes of calls checked without zod (jsonrpc-lines.ts).
   * A line past the limit is skipped to its end, not held, and the connection kept (#oversized).
   */
  readonly #buffer = new JsonRpcLineReader(deserializeMessage, { skipOversized: true });
  readonly #stderr = new PassThrough();
  #child: ChildProcess | undefined;
  /** Requests written in one turn of the event loop reach the server in one write (batched-writes.ts). */
  #writer: BatchedWriter | undefined;
  #pid: number | undefined;
  #closing: Promise<void> | undefined;
  /** The tools/call fast lane (call-lane.ts): looks at each inbound message before the SDK Client. */
  #lane: LaneHook | undefined;
  /** How the leader ended, once its stdio has closed (so its stderr has been read to the end). */
  #exit: ChildExit | undefined;
  /** How the leader ended, as soon as it did (its pipes may still be open). */
  #leaderExit: ChildExit | undefined;
  /** Its group is being ended besides #stop: the leader exited by itself (#leaderExited), or the start was abandoned. */
  #groupStopping = false;
  /** Its stdout ended while its process kept running (#stdoutEnded): no answer can arrive. */
  #stdoutClosed = false;
  /** The start was given up (abandon) before the process had spawned: its group is ended once it has. */
  #abandoned = false;
  /** The server has written something to stdout (an answer, or anything else): it is not silent. */
  #wroteToStdout = false;
  /** onclose and the lane have been told the connection closed (#connectionClosed). */
  #closeTold = false;
  readonly #closed: Promise<void>;
  #markClosed: () => void = () => {};
  /** The era probe left unanswered by a quiet process is given up early (probe-silence.ts). */
  readonly #probe: ProbeSilence | undefined;

  constructor(params: GroupStdioParams) {
    this.#params = params;
    this.#closed = new Promise((resolve) => (this.#markClosed = resolve));
    if (params.probeSilence !== false) this.#probe = new ProbeSilence((answer) => this.onmessage?.(answer));
  }

  /** The era probe this start gave up on as unanswered (and what came of it later), if it did. */
  get probeGivenUp(): ProbeGivenUp | undefined {
    return this.#probe?.givenUp;
  }

  /**
   * How the leader ended, waiting up to `waitMs` for it: a server that failed to start has
   * usually exited, or is about to, and its exit code and last stderr lines say why. Undefined
   * while it runs (or never started).
   */
  async exitStatus(waitMs: number): Promise<ChildExit | undefined> {
    if (!this.#exit && this.#pid !== undefined) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.#closed, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
      clearTimeout(timer);
    }
    return this.#exit;
  }

  /** How the leader ended, from the moment it did; undefined while it runs. */
  get leaderExit(): ChildExit | undefined {
    return this.#leaderExit;
  }

  /**
   * The server wrote something to stdout. A start whose process exited without having done so
   * answered nothing: its exit says nothing about the request it was sent (connection.ts).
   */
  get wroteToStdout(): boolean {
    return this.#wroteToStdout;
  }

  /** Its stdout ended while its process was still running: it was stopped, since no answer could arrive. */
  get stdoutClosedWhileRunning(): boolean {
    return this.#stdoutClosed;
  }

  /** Available before start, so early stderr lines are not lost. */
  get stderr(): PassThrough {
    return this.#stderr;
  }

  /** The last lines the server wrote to stdout that were not JSON (skipped; jsonrpc-lines.ts), unmasked. */
  get strayStdout(): readonly string[] {
    return this.#buffer.strayLines();
  }

  /** The group leader's pid once started (the group keeps this id after the leader exits). */
  get pid(): number | undefined {
    return this.#pid;
  }

  start(): Promise<void> {
    if (this.#child) throw new Error("GroupStdioTransport already started");
    return new Promise((resolve, reject) => {
      const child = spawn(this.#params.command, this.#params.args, {
        env: this.#params.env,
        cwd: this.#params.cwd,
        stdio: ["pipe", "pipe", "pipe"],
        shell: false,
        detached: true, // own process group: the group signal reaches what a wrapper starts
        windowsHide: true,
      });
      this.#child = child;
      if (child.stdin) this.#writer = new BatchedWriter(child.stdin);
      child.on("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on("spawn", () => {
        this.#probe?.spawned();
        this.#pid = child.pid;
        if (child.pid !== undefined) trackGroup(child.pid);
        if (this.#abandoned) this.#endGroupNow();
        resolve();
      });
      // "exit", not only "close": "close" waits for every holder of the pipes, and a process the
      // server started (sharing its stdio) would keep the connection open, and the calls on it
      // waiting, after the server itself was gone.
      child.on("exit", (code, signal) => this.#leaderExited(child, { code, signal }));
      child.on("close", (code, signal) => {
        this.#probe?.close();
        this.#child = undefined;
        this.#exit = { code, signal };
        this.#markClosed();
        this.#stopLeftovers();
        this.#connectionClosed();
      });
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("end", () => this.#stdoutEnded(child));
      child.stdout?.on("data", (chunk: Buffer) => {
        this.#wroteToStdout = true;
        this.#probe?.output();
        try {
          this.#buffer.append(chunk);
          this.#drain();
        } catch (error) {
          this.onerror?.(error as Error);
          void this.close();
        }
      });
      child.stderr?.pipe(this.#stderr);
      if (this.#probe) child.stderr?.on("data", () => this.#probe?.output());
    });
  }

  /**
   * The leader exited by itself: what it left in its group (holding its pipes, or not) is ended in
   * the background (and stays tracked until then, so the runtime's exit handler still reaches it),
   * which closes the connection; pipes still held after LEFTOVER_PIPES_MS are closed here.
   */
  #leaderExited(child: ChildProcess, exit: ChildExit): void {
    this.#leaderExit = exit;
    if (this.#closing) return;
    this.#stopLeftovers();
    setTimeout(() => {
      if (this.#child !== child) return;
      child.stdin?.destroy();
      child.stdout?.destroy();
      child.stderr?.destroy();
    }, LEFTOVER_PIPES_MS).unref();
  }

  /**
   * The server's stdout reached its end. Usually its process is exiting, and the exit (its code,
   * seen a moment later) closes the connection. A process still running after STDOUT_END_EXIT_MS
   * closed its stdout and went on: no answer can come through it again, so waiting would hold
   * every call until its deadline and the next calls on the same dead end. The connection closes
   * now (its calls fail at once) and the process is stopped; the next call starts it again.
   */
  #stdoutEnded(child: ChildProcess): void {
    setTimeout(() => {
      if (this.#child !== child || this.#leaderExit || this.#closing) return;
      this.#stdoutClosed = true;
      this.#connectionClosed();
      void this.close();
    }, STDOUT_END_EXIT_MS).unref();
  }

  /** Tell the SDK Client (onclose), then the fast lane, that the connection closed: once, whichever end comes first. */
  #connectionClosed(): void {
    if (this.#closeTold) return;
    this.#closeTold = true;
    this.onclose?.();
    // After the SDK Client's close handling (the connection is released first), as the SDK
    // fails its own pending requests.
    this.#lane?.closed();
  }

  /** End the group of a leader that exited by itself (once; a close() under way does it itself). */
  #stopLeftovers(): void {
    if (this.#pid === undefined || this.#closing || this.#groupStopping) return;
    this.#groupStopping = true;
    void stopGroup(this.#pid, this.#params.graceMs);
  }

  #drain(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#buffer.readMessage();
      } catch (error) {
        if (error instanceof OversizedLine) message = this.#oversized(error);
        else {
          this.onerror?.(error as Error);
          continue;
        }
        if (message === null) continue;
      }
      if (message === null) return;
      if (this.#probe?.received(message)) continue;
      if (this.#lane?.take(message)) continue;
      this.onmessage?.(message);
    }
  }

  /**
   * A line over the limit was skipped. Before, the reader's overflow closed the connection and
   * every call in flight on it failed as if the server had exited. Its answer's request fails
   * alone, with an error McpConnection reads as RESULT_TOO_LARGE (OVERSIZED_ANSWER), when the
   * id is at the line's start or end, as servers write it. Anything else is reported
   * (onSkippedLine): a request or notification of the server (nothing of ours waits for it), or a
   * line whose id cannot be read (if it was an answer, its call fails only at its deadline).
   */
  #oversized(line: OversizedLine): JSONRPCMessage | null {
    const id = answerIdFromLine(line.head, line.tail);
    if (id === undefined) {
      const size = `a line of ${line.bytes > line.limit ? `${line.bytes} bytes` : `more than ${line.limit} bytes`} (over the ${line.limit} one stdio line may carry)`;
      const start = `${JSON.stringify(line.head.slice(0, 80))}…`;
      const description = isMethodLine(line.head, line.tail)
        ? `skipped ${size} from the server: a notification or request of its own (${start}), not an answer; no call of the runtime waits for it (a request in it goes unanswered)`
        : `skipped ${size} from the server that is not a readable answer: no id at its start or end (${start}); if it answered a call, that call gets no answer and fails at its deadline`;
      if (this.onSkippedLine) this.onSkippedLine(description);
      else this.onerror?.(new Error(description));
      return null;
    }
    return { jsonrpc: "2.0", id, error: { code: OVERSIZED_ANSWER, message: `the answer is a line of more than ${line.limit} bytes, the most one stdio line may carry; it was skipped unread`, data: { limitBytes: line.limit } } };
  }

  attachLane(hook: LaneHook): void {
    this.#lane = hook;
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || stdin.destroyed || !this.#writer) return Promise.reject(new NotSent());
    // Written now, it could never be read (the process has exited) or answered (its stdout ended).
    if (this.#leaderExit) return Promise.reject(new NotSent(`the server's process ${describeExit(this.#leaderExit)} before the message was written`));
    if (this.#stdoutClosed) return Promise.reject(new NotSent("the server closed its stdout"));
    this.#probe?.sent(message);
    return this.#writer.write(serializeMessage(message));
  }

  /**
   * Give up a start under way (the runtime closes the connection before the handshake finished):
   * nothing but the handshake was asked of the server, so it gets no stdin-EOF grace. Its group is
   * sent SIGTERM now (SIGKILL after the grace period), and the connection closes as its pipes do,
   * which fails the handshake waiting on it. A wrapper still installing (npx, uvx) is not waited for.
   */
  abandon(): Promise<void> {
    this.#abandoned = true;
    const closing = this.close();
    this.#endGroupNow();
    return closing;
  }

  /** SIGTERM to the group now, SIGKILL after the grace period (once it has spawned). */
  #endGroupNow(): void {
    if (this.#pid === undefined || this.#groupStopping) return;
    this.#groupStopping = true;
    void stopGroup(this.#pid, this.#params.graceMs);
  }

  /**
   * stdin EOF, then the group gets `graceMs` to go, then SIGTERM, `graceMs` more, then SIGKILL.
   * When the runtime itself is exiting (process-groups.ts `beginExit`): EOF and SIGTERM together,
   * SIGKILL after EXITING_KILL_GRACE_MS.
   */
  close(): Promise<void> {
    this.#closing ??= this.#stop();
    return this.#closing;
  }

  async #stop(): Promise<void> {
    this.#probe?.close();
    const pid = this.#pid;
    try {
      this.#child?.stdin?.end();
    } catch {
      // already closed
    }
    if (pid !== undefined) {
      try {
        // Exiting, the grace before SIGTERM is skipped: the runtime's client may SIGKILL it soon
        // (the SDK's StdioClientTransport: SIGTERM 2 s after closing it, SIGKILL at 4 s), and a
        // group still waiting for its EOF grace then is left running with ppid 1.
        if (exitBegun() || !(await waitForGroupExit(pid, this.#params.graceMs))) await stopGroup(pid, this.#params.graceMs);
      } finally {
        // A SIGKILLed group can leave nothing that answers; do not keep it in the exit list.
        if (!(await waitForGroupExit(pid, 200))) signalGroup(pid, "SIGKILL");
        untrackGroup(pid);
      }
    }
    this.#buffer.clear();
  }
}
