import { inputResponse, type InputRequests } from "@modelcontextprotocol/server";
import { nodeCrypto } from "../node-crypto.js";
import { RuntimeError } from "../errors.js";
import { durationText } from "../duration-text.js";
import type { CallRelay, ElicitModes, RelayedLog, RelayedParams, RelayedProgress, RelayedResult } from "../adapters/relay.js";
import { canonicalJson } from "../runtime/loop-breaker.js";
import { sha256Hex } from "../sha256.js";
import { formAnswerRefusal } from "./form-validator.js";
import { answersProblem } from "./answers-check.js";

/**
 * Calls held open across 2026-07-28 `input_required` rounds. A 2026-07-28 client cannot be sent a
 * request mid-call, so when a downstream server asks a question during a facade call (its own
 * `input_required`, which our MCP client turns into an elicitation/sampling handler call, or a
 * 2025-era server's `elicitation/create`), the facade keeps the downstream call running, answers
 * the client's request with `input_required` carrying that question, and resumes the same call
 * when the client sends the request again with the answer.
 *
 * The table is in this process: the retry must reach the instance that holds the call (stdio
 * always does; behind a balancer that needs affinity, see the README). A call nobody resumes is
 * cancelled after `ttlMs`, which cancels the downstream call too.
 *
 * Each caller (the identity the HTTP transport verified; stdio and an HTTP server without
 * identities have one caller, "") may hold `maxPerCaller` calls, under a total of `max`: one
 * caller leaving questions unanswered fills its own share, not the table everyone's confirmation
 * questions need. A question past either bound cancels its call with TOO_MANY_QUESTIONS.
 *
 * A held call answers one request: the facade tool and arguments it was called with. A retry that
 * carries its requestState with another tool or other arguments is refused (nothing runs, the call
 * keeps waiting): the answers resume the call that asked, never stand in for a different one.
 */

/** The request a held call was started by: the facade tool's name and a digest of the arguments as sent. */
export interface HeldRequest {
  tool: string;
  arguments: string;
}

export function heldRequestOf(tool: string, args: unknown): HeldRequest {
  return { tool, arguments: sha256Hex(canonicalJson(args ?? {})) };
}

/** Why `retry` may not resume a call started by `held`; undefined when it is the same request. */
export function heldRequestMismatch(held: HeldRequest, retry: HeldRequest): string | undefined {
  if (held.tool !== retry.tool) return `this requestState answers a call of '${held.tool}', not '${retry.tool}'`;
  if (held.arguments !== retry.arguments) return `this requestState answers a call of '${held.tool}' with other arguments than these`;
  return undefined;
}

/** Where a held call's progress and log messages go while a client request is attached to it. */
export interface RoundSink {
  progress?(update: RelayedProgress): void;
  log?(message: RelayedLog): void;
}

interface Question {
  kind: "elicit" | "sample";
  params: RelayedParams;
  settle(result: RelayedResult): void;
  /** The client's answer was refused (it breaks the form's schema): the downstream's question fails with `error`. */
  refuse(error: Error): void;
}

/** What one round of a held call ends with. */
export type HeldStep<T> =
  | { kind: "done"; value: T }
  | { kind: "failed"; error: unknown }
  /** The downstream is waiting for these answers; `round` goes into the requestState. */
  | { kind: "ask"; requests: InputRequests; round: number };

export interface HeldCallsOptions {
  /** How long a held call waits for the client's next round (default: 10 minutes, the requestState's life). */
  ttlMs?: number;
  /** At most this many calls wait at once, all callers together; a question beyond that is refused (default 1000). */
  max?: number;
  /** At most this many calls of one caller wait at once (default 100, AGENT_TOOLS_HELD_CALLS_PER_CALLER in the facade). */
  maxPerCaller?: number;
}

export const DEFAULT_HELD_PER_CALLER = 100;

/** What the client of a held call can answer: the elicitation modes it declared (none: undefined), and sampling. */
export interface HeldAbilities {
  elicit: ElicitModes | undefined;
  sample: boolean;
}

const METHOD = { elicit: "elicitation/create", sample: "sampling/createMessage" } as const;

export class HeldCall<T> {
  readonly id = nodeCrypto().randomUUID();
  /** Rounds asked so far: a requestState names the round it answers, so a replayed one is refused. */
  round = 0;
  /** The last round a client request has claimed (claim): the answer to a round is taken once. */
  private claimed = 0;
  private sink: RoundSink | undefined;
  private readonly questions = new Map<string, Question>();
  private outcome: { kind: "done"; value: T } | { kind: "failed"; error: unknown } | undefined;
  private wake: (() => void) | undefined;
  private asked = 0;
  private readonly controller = new AbortController();
  private expiry: NodeJS.Timeout | undefined;

  constructor(
    private readonly table: HeldCalls,
    /** Whose call this is: the caller's share of the table is counted by it. */
    readonly caller: string,
    run: (relay: CallRelay, signal: AbortSignal) => Promise<T>,
    can: HeldAbilities,
    /** The request that started it: only the same request may resume it. */
    readonly request: HeldRequest,
  ) {
    const relay: CallRelay = {
      progress: (update) => this.sink?.progress?.(update),
      log: (message) => this.sink?.log?.(message),
      ...(can.elicit ? { elicit: (params: RelayedParams, signal: AbortSignal) => this.ask("elicit", params, signal), elicitModes: can.elicit } : {}),
      ...(can.sample ? { sample: (params: RelayedParams, signal: AbortSignal) => this.ask("sample", params, signal) } : {}),
    };
    run(relay, this.controller.signal).then(
      (value) => this.finish({ kind: "done", value }),
      (error: unknown) => this.finish({ kind: "failed", error }),
    );
  }

  /**
   * Take the answer to `round` for the request that calls this: true for the first request that
   * answers the round being asked, false for any other (a replay, a late answer, or a second
   * request sent while the first is still resuming the call). Checked and taken in one turn, so
   * two answers racing each other cannot both attach to the call: only one request is ever
   * stepping it, and none is left waiting on a round another took.
   */
  claim(round: number): boolean {
    if (!this.asking(round)) return false;
    this.claimed = round;
    return true;
  }

  /** Whether `round` is the one this call is asking now and no request has taken its answer yet. */
  asking(round: number): boolean {
    return round === this.round && this.claimed !== round;
  }

  /**
   * What is wrong with `responses` as the answers to the questions open now (answers-check.ts;
   * `dropped`: the keys the SDK set aside as not bare answers); undefined when they fit. Checked
   * before the round is claimed: a malformed answer is refused and the question stays open for the
   * right one, instead of being asked again as if nobody had answered.
   */
  answersProblem(responses: unknown, dropped?: readonly string[]): string | undefined {
    return answersProblem(responses, this.questions, dropped);
  }

  /**
   * Run one client round: relay progress and logs to `sink` until the call ends or asks; the
   * client cancelling this request cancels the call. A question asked alongside another (a
   * server may send several input requests at once) goes out in the same round.
   */
  async step(sink: RoundSink, signal: AbortSignal): Promise<HeldStep<T>> {
    this.clearExpiry();
    this.sink = sink;
    const onAbort = (): void => this.cancel(signal.reason ?? new Error("the client cancelled the call"));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    try {
      while (!this.outcome && this.questions.size === 0) await new Promise<void>((resolve) => (this.wake = resolve));
      if (!this.outcome) await new Promise((resolve) => setImmediate(resolve));
    } finally {
      signal.removeEventListener("abort", onAbort);
      this.sink = undefined;
      this.wake = undefined;
    }
    if (this.outcome) {
      this.table.forget(this);
      return this.outcome;
    }
    const refused = this.table.keep(this);
    if (refused) {
      // Said to the client now, in words; the downstream call winds down on its own (cancel answers its questions `cancel`).
      this.cancel(refused);
      return { kind: "failed", error: refused };
    }
    this.round++;
    this.expiry = setTimeout(() => this.cancel(new Error(`nobody answered within ${durationText(this.table.ttlMs)}`)), this.table.ttlMs);
    this.expiry.unref();
    const requests: InputRequests = {};
    for (const [key, question] of this.questions) requests[key] = { method: METHOD[question.kind], params: question.params } as never;
    return { kind: "ask", requests, round: this.round };
  }

  /**
   * Hand the client's answers to the questions they answer. An entry of the wrong kind or a
   * missing one leaves its question open: the next round asks it again. A form answer that breaks
   * the form's schema fails its question as a 2025-era client's would (form-validator.ts).
   */
  answer(responses: Record<string, unknown> | undefined): void {
    for (const [key, question] of [...this.questions]) {
      const view = inputResponse(responses, key);
      if ((question.kind === "elicit" && view.kind === "elicit") || (question.kind === "sample" && view.kind === "sampling")) {
        this.questions.delete(key);
        const result = responses?.[key] as RelayedResult;
        const refused = question.kind === "elicit" ? formAnswerRefusal(question.params, result) : undefined;
        if (refused) question.refuse(refused);
        else question.settle(result);
      }
    }
  }

  /** Stop the call: the downstream call is cancelled, open questions are answered `cancel`. */
  cancel(reason: unknown): void {
    this.clearExpiry();
    for (const question of this.questions.values()) question.settle({ action: "cancel" });
    this.questions.clear();
    this.table.forget(this);
    this.controller.abort(reason);
  }

  private ask(kind: Question["kind"], params: RelayedParams, signal: AbortSignal): Promise<RelayedResult> {
    return new Promise<RelayedResult>((resolve, reject) => {
      const key = `${kind === "elicit" ? "ask" : "sample"}${++this.asked}`;
      const onAbort = (): void => {
        this.questions.delete(key);
        reject(signal.reason instanceof Error ? signal.reason : new Error("the downstream server withdrew its question"));
      };
      this.questions.set(key, {
        kind,
        params,
        settle: (result) => {
          signal.removeEventListener("abort", onAbort);
          resolve(result);
        },
        refuse: (error) => {
          signal.removeEventListener("abort", onAbort);
          reject(error);
        },
      });
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
      this.wake?.();
    });
  }

  private finish(outcome: NonNullable<HeldCall<T>["outcome"]>): void {
    this.clearExpiry();
    this.outcome = outcome;
    this.table.forget(this);
    this.wake?.();
  }

  private clearExpiry(): void {
    if (this.expiry) clearTimeout(this.expiry);
    this.expiry = undefined;
  }
}

export class HeldCalls {
  readonly ttlMs: number;
  private readonly max: number;
  private readonly maxPerCaller: number;
  private readonly calls = new Map<string, HeldCall<unknown>>();
  /** Calls held per caller; a caller with none has no entry. */
  private readonly perCaller = new Map<string, number>();

  constructor(options: HeldCallsOptions = {}) {
    this.ttlMs = options.ttlMs ?? 600_000;
    this.max = options.max ?? 1_000;
    this.maxPerCaller = Math.min(options.maxPerCaller ?? DEFAULT_HELD_PER_CALLER, this.max);
  }

  /**
   * Start `run` with a relay whose questions end the current round instead of failing. `request`
   * is the call that started it (heldRequestOf), `caller` whose call it is (callerName: "" when the
   * transport knows no identity).
   */
  start<T>(run: (relay: CallRelay, signal: AbortSignal) => Promise<T>, can: HeldAbilities, request: HeldRequest, caller = ""): HeldCall<T> {
    return new HeldCall<T>(this, caller, run, can, request);
  }

  get<T>(id: string): HeldCall<T> | undefined {
    return this.calls.get(id) as HeldCall<T> | undefined;
  }

  get size(): number {
    return this.calls.size;
  }

  /** Calls of `caller` waiting for their client now. */
  heldBy(caller: string): number {
    return this.perCaller.get(caller) ?? 0;
  }

  /** @internal A call waiting for its client: undefined when kept, the refusal when its caller's share or the table is full. */
  keep(call: HeldCall<unknown>): RuntimeError | undefined {
    if (this.calls.has(call.id)) return undefined;
    const mine = this.heldBy(call.caller);
    if (mine >= this.maxPerCaller) {
      const who = call.caller ? `identity '${call.caller}'` : "this server's client";
      return this.refusal(`${who} already has ${mine} calls waiting for answers to their questions, the most one caller may have (${this.maxPerCaller}; AGENT_TOOLS_HELD_CALLS_PER_CALLER)`, {
        pending: mine,
        limit: this.maxPerCaller,
        per: "caller",
      });
    }
    if (this.calls.size >= this.max) {
      return this.refusal(`${this.calls.size} calls are waiting for answers to their questions, the most this server holds for all callers together (${this.max})`, {
        pending: this.calls.size,
        limit: this.max,
        per: "server",
      });
    }
    this.calls.set(call.id, call);
    this.perCaller.set(call.caller, mine + 1);
    return undefined;
  }

  /** @internal */
  forget(call: HeldCall<unknown>): void {
    if (!this.calls.delete(call.id)) return;
    const left = this.heldBy(call.caller) - 1;
    if (left > 0) this.perCaller.set(call.caller, left);
    else this.perCaller.delete(call.caller);
  }

  private refusal(why: string, details: { pending: number; limit: number; per: "caller" | "server" }): RuntimeError {
    return new RuntimeError(
      "TOO_MANY_QUESTIONS",
      `${why}, so this call's question was not asked and the call was cancelled at it (what it did before asking may have happened); an unanswered question waits up to ${durationText(this.ttlMs)}`,
      details,
    );
  }
}
