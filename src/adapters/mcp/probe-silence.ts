import type { JSONRPCMessage } from "@modelcontextprotocol/client";

/**
 * The era probe (`server/discover`) a stdio server leaves unanswered while its process runs.
 *
 * Why: some 2025-era servers ignore every request sent before `initialize`, answering nothing. The
 * SDK's probe then waits its whole timeout (the server's `timeoutMs`, a minute by default) before
 * it takes the server for a 2025-era one and sends `initialize` on the same process, and the first
 * call failed at its own deadline, "did not finish starting", with a hint to raise the call
 * timeout. Here the probe is given up sooner, once the process has gone quiet: the SDK is handed an
 * error answer of the runtime's own making (PROBE_UNANSWERED), which it reads as "not a 2026-07-28
 * server", and goes on with `initialize` at once.
 *
 * A server that is only slow to start must not be taken for one that ignores the probe, so the
 * short clock starts late: at the process's first output (on stdout or stderr: servers log that
 * they run), or PROBE_START_GRACE_MS after it was spawned if it writes nothing, and any later
 * output starts it again. A probe answered after it was given up is dropped here (the SDK would
 * report it as an answer to no request); that it came, and whether it was a discover result (a
 * 2026-07-28 server after all), is kept for the start's error and the next start (stdio-transport.ts).
 */

/** How long a process that has shown it runs may stay quiet with the probe unanswered. */
export const PROBE_SILENCE_MS = 3_000;
/** How long after its spawn a process that has written nothing gets before the short clock starts. */
export const PROBE_START_GRACE_MS = 5_000;
/** The error code of the answer made here for a probe given up; runtime-made, never a server's. */
export const PROBE_UNANSWERED = -32_097;

/** What became of a probe given up: how long it waited, and the answer that came later, if one did. */
export interface ProbeGivenUp {
  afterMs: number;
  late?: "discover" | "error";
}

export class ProbeSilence {
  #spawnedAt: number | undefined;
  #firstOutputAt: number | undefined;
  #lastOutputAt: number | undefined;
  #pending: { id: string | number; sentAt: number } | undefined;
  #givenUp: { id: string | number; outcome: ProbeGivenUp } | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    /** Hands the made-up answer to the SDK, as if the server had sent it. */
    private readonly deliver: (answer: JSONRPCMessage) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The probe this start gave up on, if it did. */
  get givenUp(): ProbeGivenUp | undefined {
    return this.#givenUp?.outcome;
  }

  spawned(): void {
    this.#spawnedAt = this.now();
  }

  /** The process wrote something (stdout or stderr): it runs, and the short clock (re)starts. */
  output(): void {
    const at = this.now();
    this.#firstOutputAt ??= at;
    this.#lastOutputAt = at;
    // A first output moves the deadline earlier (the grace ends): the timer is set again for it.
    if (this.#pending && this.#firstOutputAt === at) this.#schedule();
  }

  /** A message the runtime sends: a `server/discover` request is watched until it is answered. */
  sent(message: JSONRPCMessage): void {
    if (!("method" in message) || message.method !== "server/discover" || !("id" in message)) return;
    this.#pending = { id: message.id, sentAt: this.now() };
    this.#schedule();
  }

  /**
   * A message from the server: true when it is the late answer to a probe given up (dropped: no
   * request waits for it any more); an answer to the watched probe ends the watch.
   */
  received(message: JSONRPCMessage): boolean {
    if ("method" in message || !("id" in message)) return false;
    if (this.#pending?.id === message.id) {
      this.#pending = undefined;
      this.#clear();
      return false;
    }
    const givenUp = this.#givenUp;
    if (!givenUp || givenUp.id !== message.id) return false;
    givenUp.outcome.late ??= "result" in message && message.result && typeof message.result === "object" && "supportedVersions" in message.result ? "discover" : "error";
    return true;
  }

  close(): void {
    this.#pending = undefined;
    this.#clear();
  }

  /** When the watched probe counts as unanswered: SILENCE after the later of the clock's start, the last output and the probe. */
  #deadline(sentAt: number): number {
    const graceEnd = (this.#spawnedAt ?? sentAt) + PROBE_START_GRACE_MS;
    const clockStart = this.#firstOutputAt === undefined ? graceEnd : Math.min(this.#firstOutputAt, graceEnd);
    return Math.max(clockStart, this.#lastOutputAt ?? clockStart, sentAt) + PROBE_SILENCE_MS;
  }

  #schedule(): void {
    this.#clear();
    const pending = this.#pending;
    if (!pending) return;
    const wait = Math.max(0, this.#deadline(pending.sentAt) - this.now());
    this.#timer = setTimeout(() => this.#check(), wait);
    this.#timer.unref();
  }

  #check(): void {
    this.#timer = undefined;
    const pending = this.#pending;
    if (!pending) return;
    if (this.now() < this.#deadline(pending.sentAt)) return this.#schedule();
    this.#pending = undefined;
    const afterMs = Math.round(this.now() - pending.sentAt);
    this.#givenUp = { id: pending.id, outcome: { afterMs } };
    this.deliver({
      jsonrpc: "2.0",
      id: pending.id,
      error: { code: PROBE_UNANSWERED, message: `no answer to the era probe (server/discover) within ${afterMs} ms while the server's process ran quiet: taken for a 2025-era server` },
    });
  }

  #clear(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
