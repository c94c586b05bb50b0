import { exactSizeWords, KIB, MIB } from "../byte-size.js";
import { TokenBucket } from "./token-bucket.js";

/**
 * How many of a downstream server's log messages one request relays to the agent's client, and
 * how many bytes of them: a burst, then a rate (two token buckets, one counting messages, one
 * counting bytes). Past either the messages are dropped and counted, and the request's answer is
 * preceded by one line saying how many were dropped and by which bound.
 *
 * Why: a downstream may send log messages as fast as it can write them. One that sent 20,000 of
 * 1 KB during a call had all of them relayed: the client was buried in them, the runtime's RSS
 * went 62 → 189 MB while they queued for the client, another server's call took 2.9 s instead of
 * 20 ms, and a call whose server had answered timed out behind the queue. Counting messages alone
 * let a few huge ones through (50 of 1 MiB are half the count's burst and 50 MiB for the client),
 * hence the byte bound beside it: its burst and rate are the count's at 10 KiB a message, so a
 * server that logs what it is doing (a step a second over a long call, each a line or a small
 * object) stays well inside both.
 *
 * Counted as the downstream sends them, before the client's level filter (the SDK applies that
 * when it sends): a flood of debug messages spends the budget of a client listening at `info`
 * too, which bounds the runtime's work either way. A message's bytes are those of its `data` in
 * UTF-8 (its JSON when it is not a string); one larger than the byte burst is never relayed.
 */
export interface LogBudget {
  /** Messages relayed at once before the rate applies. */
  burst: number;
  /** Messages relayed per second past the burst. */
  perSecond: number;
  /** Bytes of messages relayed at once before the byte rate applies. */
  burstBytes: number;
  /** Bytes of messages relayed per second past the byte burst. */
  perSecondBytes: number;
}

export const RELAYED_LOG_BUDGET: LogBudget = { burst: 100, perSecond: 10, burstBytes: MIB, perSecondBytes: 100 * KIB };

/** A message's size as the byte bound counts it. */
function sizeOf(data: unknown): number {
  return Buffer.byteLength(typeof data === "string" ? data : (JSON.stringify(data) ?? ""));
}

export class RelayedLogBudget {
  readonly #budget: LogBudget;
  readonly #messages: TokenBucket;
  readonly #bytes: TokenBucket;
  /** Dropped since the last drop line: for want of the count's tokens, and (the count allowing them) of the bytes'. */
  #droppedByCount = 0;
  #droppedByBytes = 0;

  constructor(budget: LogBudget = RELAYED_LOG_BUDGET) {
    this.#budget = budget;
    this.#messages = new TokenBucket(budget.burst, budget.perSecond);
    this.#bytes = new TokenBucket(budget.burstBytes, budget.perSecondBytes);
  }

  /** Whether the next message (its `data`) may be relayed; a message that may not is counted as dropped and spends nothing. */
  take(data: unknown): boolean {
    // The count first: a flood of small messages is dropped without measuring each.
    if (!this.#messages.has(1)) {
      this.#droppedByCount += 1;
      return false;
    }
    const size = sizeOf(data);
    if (!this.#bytes.has(size)) {
      this.#droppedByBytes += 1;
      return false;
    }
    this.#messages.spend(1);
    this.#bytes.spend(size);
    return true;
  }

  /** The line saying how many messages were dropped since it was last said, and by which bound; undefined when none were. */
  droppedLine(): string | undefined {
    const dropped = this.#droppedByCount + this.#droppedByBytes;
    if (!dropped) return undefined;
    const { burst, perSecond, burstBytes, perSecondBytes } = this.#budget;
    const bounds = [
      ...(this.#droppedByCount ? [`at most ${burst} at once, then ${perSecond} a second`] : []),
      ...(this.#droppedByBytes ? [`at most ${exactSizeWords(burstBytes)} of them at once, then ${exactSizeWords(perSecondBytes)} a second`] : []),
    ];
    this.#droppedByCount = 0;
    this.#droppedByBytes = 0;
    return `agent-tools: ${dropped} more log message${dropped === 1 ? "" : "s"} from this call's server ${dropped === 1 ? "was" : "were"} dropped: a call relays ${bounds.join(", and ")}`;
  }
}
