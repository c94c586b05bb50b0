import { listen, unlisten, type Cancellation } from "../cancel.js";

/**
 * Bounded concurrency: at most `limit` runs at once, the rest wait in order. Used for work that
 * starts processes (catalog listings) and for the calls to a downstream server that caps them
 * (an mcp block's `maxConcurrentCalls`, adapters/mcp/call-gate.ts). Fifty Node servers started together on two cores starve the event
 * loop (every wait fires late and nothing answers); a few at a time finish sooner in total.
 * `urgent` work (a listing a call is waiting for) does not queue behind background work, and
 * queued work that a caller starts waiting for can skip the queue (`onQueued`). Urgent work has a
 * cap of its own, `limit + urgentExtra`: one call is not kept waiting behind background listings,
 * but forty parallel calls on a cold fleet do not start forty servers at once either; beyond the
 * cap, urgent work waits ahead of every background listing.
 */
export interface LimiterRunOptions {
  urgent?: boolean;
  /**
   * Told, only when the work has to wait for a slot, how to make it urgent: a background listing
   * that a call joins must not keep the call waiting behind the rest of the queue. It then starts
   * at once if the urgent cap allows, else first in line. Calling it after the work started, or
   * twice, does nothing.
   */
  onQueued?: (startNow: () => void) => void;
  /**
   * The caller's cancellation: work still waiting for a slot when it fires never runs (the caller
   * has given up on it; a write run after that would change data nobody is told of), and `run`
   * rejects with its reason. Work already running is the work's to stop.
   */
  cancel?: Cancellation;
}

export interface Limiter {
  run<T>(work: () => Promise<T>, options?: LimiterRunOptions): Promise<T>;
  readonly active: number;
  readonly waiting: number;
}

/** `urgentExtra`: how many urgent runs may start beyond `limit` (default: `limit` more). */
export function createLimiter(limit: number, urgentExtra: number = limit): Limiter {
  let active = 0;
  const urgentQueue: (() => void)[] = [];
  const queue: (() => void)[] = [];
  const start = (from: (() => void)[]): void => {
    active += 1;
    from.shift()?.();
  };
  const pump = (): void => {
    for (;;) {
      if (urgentQueue.length && active < limit + urgentExtra) start(urgentQueue);
      else if (queue.length && active < limit) start(queue);
      else return;
    }
  };
  const wait = (urgent: boolean, onQueued: LimiterRunOptions["onQueued"], cancel: Cancellation | undefined): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      if (cancel?.aborted) return reject(cancel.reason);
      let entry = resolve;
      if (cancel) {
        const onAbort = (): void => {
          for (const waiting of [queue, urgentQueue]) {
            const at = waiting.indexOf(entry);
            if (at >= 0) {
              waiting.splice(at, 1);
              reject(cancel.reason);
            }
          }
        };
        listen(cancel, onAbort);
        entry = () => {
          unlisten(cancel, onAbort);
          resolve();
        };
      }
      (urgent ? urgentQueue : queue).push(entry);
      pump();
      if (urgent || !onQueued || !queue.includes(entry)) return;
      onQueued(() => {
        const at = queue.indexOf(entry);
        if (at < 0) return;
        queue.splice(at, 1);
        urgentQueue.push(entry);
        pump();
      });
    });
  return {
    get active() {
      return active;
    },
    get waiting() {
      return queue.length + urgentQueue.length;
    },
    async run(work, options = {}) {
      await wait(options.urgent === true, options.onQueued, options.cancel);
      try {
        return await work();
      } finally {
        active -= 1;
        pump();
      }
    },
  };
}
