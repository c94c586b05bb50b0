/**
 * Bounded concurrency for work that starts processes (catalog listings): at most `limit` run at
 * once, the rest wait in order. Fifty Node servers started together on two cores starve the event
 * loop (every wait fires late and nothing answers); a few at a time finish sooner in total.
 * `urgent` work (a listing a call is waiting for) does not queue behind background work, and
 * queued work that a caller starts waiting for can skip the queue (`onQueued`).
 */
export interface LimiterRunOptions {
  urgent?: boolean;
  /**
   * Told, only when the work has to wait for a slot, how to let it start at once instead: a
   * background listing that a call joins must not keep the call waiting behind the rest of the
   * queue. Calling it after the work started does nothing.
   */
  onQueued?: (startNow: () => void) => void;
}

export interface Limiter {
  run<T>(work: () => Promise<T>, options?: LimiterRunOptions): Promise<T>;
  readonly active: number;
  readonly waiting: number;
}

export function createLimiter(limit: number): Limiter {
  let active = 0;
  const queue: (() => void)[] = [];
  const pump = (): void => {
    while (active < limit && queue.length) {
      active += 1;
      queue.shift()?.();
    }
  };
  const wait = (onQueued: LimiterRunOptions["onQueued"]): Promise<void> =>
    new Promise<void>((resolve) => {
      queue.push(resolve);
      pump();
      if (!onQueued || !queue.includes(resolve)) return;
      onQueued(() => {
        const at = queue.indexOf(resolve);
        if (at < 0) return;
        queue.splice(at, 1);
        active += 1;
        resolve();
      });
    });
  return {
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
    async run(work, options = {}) {
      if (options.urgent) active += 1;
      else await wait(options.onQueued);
      try {
        return await work();
      } finally {
        active -= 1;
        pump();
      }
    },
  };
}
