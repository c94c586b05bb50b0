/**
 * How many of a downstream server's log messages one request relays to the agent's client: a
 * burst of `burst`, then `perSecond` (a token bucket). Past it the messages are dropped and
 * counted, and the request's answer is preceded by one line saying how many were dropped.
 *
 * Why: a downstream may send log messages as fast as it can write them. One that sent 20,000 of
 * 1 KB during a call had all of them relayed: the client was buried in them, the runtime's RSS
 * went 62 → 189 MB while they queued for the client, another server's call took 2.9 s instead of
 * 20 ms, and a call whose server had answered timed out behind the queue. A server that logs what
 * it is doing (a step a second over a long call) stays well inside the budget.
 *
 * Counted as the downstream sends them, before the client's level filter (the SDK applies that
 * when it sends): a flood of debug messages spends the budget of a client listening at `info`
 * too, which bounds the runtime's work either way.
 */
export interface LogBudget {
  /** Messages relayed at once before the rate applies. */
  burst: number;
  /** Messages relayed per second past the burst. */
  perSecond: number;
}

export const RELAYED_LOG_BUDGET: LogBudget = { burst: 100, perSecond: 10 };

export class RelayedLogBudget {
  readonly #budget: LogBudget;
  #tokens: number;
  #at = performance.now();
  #dropped = 0;

  constructor(budget: LogBudget = RELAYED_LOG_BUDGET) {
    this.#budget = budget;
    this.#tokens = budget.burst;
  }

  /** Whether the next message may be relayed; a message that may not is counted as dropped. */
  take(): boolean {
    const now = performance.now();
    this.#tokens = Math.min(this.#budget.burst, this.#tokens + ((now - this.#at) / 1000) * this.#budget.perSecond);
    this.#at = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return true;
    }
    this.#dropped += 1;
    return false;
  }

  /** The line saying how many messages were dropped since it was last said; undefined when none were. */
  droppedLine(): string | undefined {
    const dropped = this.#dropped;
    if (!dropped) return undefined;
    this.#dropped = 0;
    const { burst, perSecond } = this.#budget;
    return `agent-tools: ${dropped} more log message${dropped === 1 ? "" : "s"} from this call's server ${dropped === 1 ? "was" : "were"} dropped: a call relays at most ${burst} at once, then ${perSecond} a second`;
  }
}
