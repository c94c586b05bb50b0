/**
 * Bounded concurrency for work that starts processes (catalog listings): at most `limit` run at
 * once, the rest wait in order. Fifty Node servers started together on two cores starve the event
 * loop (every wait fires late and nothing answers); a few at a time finish sooner in total.
 * `urgent` work (a listing a call is waiting for) does not queue behind background work.
 */
export interface Limiter {
  run<T>(work: () => Promise<T>, options?: { urgent?: boolean }): Promise<T>;
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
  return {
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
    async run(work, options = {}) {
      if (options.urgent) active += 1;
      else
        await new Promise<void>((resolve) => {
          queue.push(resolve);
          pump();
        });
      try {
        return await work();
      } finally {
        active -= 1;
        pump();
      }
    },
  };
}
