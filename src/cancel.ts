/**
 * A call's cancellation, with its AbortSignal made only when something asks for one.
 *
 * Why: in Node 20 an AbortController costs about 2 µs to make and an abort listener about 2 µs to
 * add and remove (EventTarget bookkeeping), and the objects outlive a young-generation GC while
 * the call is in flight. A facade call over the fast lanes used two of each (the caller's
 * cancellation, the pipeline's deadline), about a tenth of the runtime's CPU per call under
 * concurrency (docs/performance-log.md "Session 5: the hot path's allocation"). The hot path listens here instead (`listen`), with a plain
 * function list; a part that needs a real AbortSignal (the SDK, a plugin's adapter, a skill) reads
 * `signal` and gets one that is already aborted if the cancel came first.
 *
 * On abort the plain listeners run first, in the order they were added, then the signal's (so a
 * listener added through either kind of source still runs once, and the pipeline's deadline, the
 * first to listen on the hot path, still hears it first).
 */
export class Cancel {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;
  #listeners: Array<(reason: unknown) => void> | undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  /** An AbortSignal that follows this cancel, made on first read. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    // As AbortController.abort() without a reason.
    this.#reason = reason === undefined ? new DOMException("This operation was aborted", "AbortError") : reason;
    reason = this.#reason;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners) {
      for (const listener of listeners) {
        try {
          listener(reason);
        } catch (error) {
          // As an AbortSignal listener that throws: reported, and the others still run.
          process.nextTick(() => {
            throw error;
          });
        }
      }
    }
    this.#controller?.abort(reason);
  }

  /** `listener` runs once, on abort (never when already aborted: check `aborted` first). */
  on(listener: (reason: unknown) => void): void {
    if (this.#aborted) return;
    (this.#listeners ??= []).push(listener);
  }

  off(listener: (reason: unknown) => void): void {
    const listeners = this.#listeners;
    if (!listeners) return;
    const index = listeners.indexOf(listener);
    if (index >= 0) listeners.splice(index, 1);
  }
}

/** Either kind of cancellation a call may carry: both tell `aborted` and `reason`. */
export type Cancellation = AbortSignal | Cancel;

/** `listener` runs once when `source` aborts; undo with `unlisten`. */
export function listen(source: Cancellation, listener: () => void): void {
  if (source instanceof Cancel) source.on(listener);
  else source.addEventListener("abort", listener, { once: true });
}

export function unlisten(source: Cancellation, listener: () => void): void {
  if (source instanceof Cancel) source.off(listener);
  else source.removeEventListener("abort", listener);
}

/** The AbortSignal of a cancellation (a Cancel makes its own on first ask). */
export function signalOf(source: Cancellation): AbortSignal {
  return source instanceof Cancel ? source.signal : source;
}

/** Fields of a context that carries a Cancel: `signal` is made on first read (a class: no accessor defined per object). */
class CancelFields {
  constructor(readonly cancel: Cancel) {}

  get signal(): AbortSignal {
    return this.cancel.signal;
  }
}

/**
 * `fields` with a caller's cancellation as an OperationContext carries it: an AbortSignal as
 * `signal`; a Cancel as `cancel`, with `signal` a getter that makes the AbortSignal on first read
 * (on the prototype: a spread of the result keeps `cancel`, which the pipeline reads first).
 */
export function withCancellation<T extends object>(fields: T, source: Cancellation): T & { signal: AbortSignal; cancel?: Cancel } {
  if (!(source instanceof Cancel)) return Object.assign(fields, { signal: source });
  return Object.assign(new CancelFields(source), fields) as unknown as T & { signal: AbortSignal; cancel?: Cancel };
}

/** Where a request context the runtime made itself (the facade's fast lane) keeps its Cancel. */
export const CANCEL_OF_REQUEST = Symbol("agent-tools.cancel-of-request");

/**
 * The Cancel of a request context the runtime made (`mcpReq` of the fast lane); undefined for the
 * SDK's own. The facade listens to it instead of `mcpReq.signal`, so a call that is never
 * cancelled makes no AbortSignal.
 */
export function cancelOfRequest(mcpReq: object): Cancel | undefined {
  return (mcpReq as { [CANCEL_OF_REQUEST]?: Cancel })[CANCEL_OF_REQUEST];
}
