import type { RelayedProgress } from "../adapters/relay.js";
import { cutNoted } from "../runtime/error-bound.js";
import { TokenBucket } from "./token-bucket.js";

/**
 * The pace of a downstream server's progress notifications relayed to the agent's client, one
 * request's: a burst, then a rate (a token bucket, as the log budget's, token-bucket.ts). Past it
 * a step is not dropped but held, and a later one takes its place: the client gets the latest
 * step as soon as the rate allows, and the one held when the answer is ready goes just before the
 * answer, so what it last sees is where the call got to. Each step's `message` is cut to
 * PROGRESS_MESSAGE_CHARS.
 *
 * Why: a downstream may send progress as fast as it can write it. One that sent 100,000 steps
 * during a call (each with a 200-character message) had all of them relayed: 25.7 MB to the
 * client over 14 s. A real tool reports a step a second or a few hundred in all, which stays
 * inside the burst and the rate.
 */

export interface ProgressPace {
  /** Steps relayed at once before the rate applies. */
  burst: number;
  /** Steps relayed per second past the burst. */
  perSecond: number;
}

export const RELAYED_PROGRESS_PACE: ProgressPace = { burst: 20, perSecond: 10 };

/** The most characters of a step's `message` relayed; the rest is left out, and said so. */
export const PROGRESS_MESSAGE_CHARS = 1000;

export class RelayedProgressPacer {
  readonly #bucket: TokenBucket;
  readonly #send: (update: RelayedProgress) => void;
  /** The latest step not yet relayed, waiting for a token. */
  #held: RelayedProgress | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** The request's answer is going: later steps are relayed only within the budget, never held. */
  #answered = false;

  constructor(send: (update: RelayedProgress) => void, pace: ProgressPace = RELAYED_PROGRESS_PACE, now?: () => number) {
    this.#send = send;
    this.#bucket = new TokenBucket(pace.burst, pace.perSecond, now);
  }

  /** A step from the downstream: relayed now if the pace allows and none is held, else held in place of the one held. */
  push(update: RelayedProgress): void {
    const step = update.message !== undefined && update.message.length > PROGRESS_MESSAGE_CHARS ? { ...update, message: cutNoted(update.message, PROGRESS_MESSAGE_CHARS) } : update;
    if (!this.#held && this.#take()) {
      this.#send(step);
      return;
    }
    if (this.#answered) return;
    this.#held = step;
    this.#timer ??= this.#schedule();
  }

  /** The answer is about to go: the step held goes now (one past the pace), and no step is held after. */
  flush(): void {
    this.#answered = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const held = this.#held;
    this.#held = undefined;
    if (held) this.#send(held);
  }

  #take(): boolean {
    if (!this.#bucket.has(1)) return false;
    this.#bucket.spend(1);
    return true;
  }

  #schedule(): NodeJS.Timeout {
    // Unref'd: a step waiting for its turn keeps no process alive.
    return setTimeout(() => this.#release(), this.#bucket.msUntil(1)).unref();
  }

  /** A token is due: the held step goes, or (a timer a little early) waits on. */
  #release(): void {
    this.#timer = undefined;
    if (!this.#held) return;
    if (!this.#take()) {
      this.#timer = this.#schedule();
      return;
    }
    const held = this.#held;
    this.#held = undefined;
    this.#send(held);
  }
}
