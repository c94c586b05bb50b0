/**
 * A token bucket: `burst` tokens at once, refilled at `perSecond` up to `burst` again. The pace of
 * what a call relays from its downstream to the agent's client (relayed-log-budget.ts counts log
 * messages and their bytes with two; relayed-progress.ts paces progress with one). Refilled when
 * read, from the clock `now` (milliseconds): no timer of its own.
 */
export class TokenBucket {
  #level: number;
  #at: number;

  constructor(
    readonly burst: number,
    readonly perSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.#level = burst;
    this.#at = now();
  }

  /** The tokens there are now. */
  level(): number {
    const now = this.now();
    this.#level = Math.min(this.burst, this.#level + ((now - this.#at) / 1000) * this.perSecond);
    this.#at = now;
    return this.#level;
  }

  /** Whether `amount` tokens are there now (nothing spent). */
  has(amount = 1): boolean {
    return this.level() >= amount;
  }

  /** Spends `amount` tokens; the caller checked `has` first. */
  spend(amount = 1): void {
    this.#level -= amount;
  }

  /** Milliseconds until `amount` tokens are there (0 when they are); never more than `burst` holds. */
  msUntil(amount = 1): number {
    const missing = Math.min(amount, this.burst) - this.level();
    return missing <= 0 ? 0 : Math.ceil((missing / this.perSecond) * 1000);
  }
}
