import { Cancel, listen, unlisten, type Cancellation } from "./cancel.js";

/**
 * Work that several callers wait for (a single-flight), each with its own cancellation.
 *
 * Why: one refresh of an OAuth token serves every call that needed it, and it may wait long for
 * another process's lock. A caller that is cancelled (its client gave up, its deadline passed)
 * must stop waiting at once, with its own reason; but its cancel must not end the work for the
 * callers still waiting, and the work must stop (before it sends anything) once nobody waits for
 * it any more. So each caller leaves on its own cancel, and the work's `stop` is aborted, with the
 * last reason, when the last caller has left. A caller without a cancellation never leaves.
 */
export class SharedWork<T> {
  readonly #stop = new Cancel();
  readonly #done: Promise<T>;
  /** Callers waiting that may still leave. */
  #waiting = 0;
  /** A caller that cannot leave joined: the work is never stopped. */
  #pinned = false;

  constructor(work: (stop: Cancel) => Promise<T>) {
    this.#done = work(this.#stop);
    // Stopped with nobody left to hear it: its rejection is nobody's error.
    this.#done.catch(() => undefined);
  }

  /** Whether every caller left: a new caller must start the work anew, not join one that is ending. */
  get stopped(): boolean {
    return this.#stop.aborted;
  }

  /** The work's result, or `cancel`'s reason as soon as it fires. */
  join(cancel?: Cancellation): Promise<T> {
    if (!cancel) {
      this.#pinned = true;
      return this.#done;
    }
    this.#waiting++;
    return new Promise<T>((resolve, reject) => {
      const leave = (): void => {
        this.#waiting--;
        if (this.#waiting === 0 && !this.#pinned) this.#stop.abort(cancel.reason);
        reject(cancel.reason);
      };
      if (cancel.aborted) return leave();
      listen(cancel, leave);
      this.#done.then(
        (value) => {
          unlisten(cancel, leave);
          resolve(value);
        },
        (error: unknown) => {
          unlisten(cancel, leave);
          reject(error);
        },
      );
    });
  }

  /** Runs `then` once the work is over, however it ended. */
  finally(then: () => void): void {
    this.#done.then(then, then);
  }
}
