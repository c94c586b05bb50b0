import { whenBodyEnds } from "../shared/body-end.js";

/**
 * A fetch that gives each request an AbortSignal of its own, following the caller's, and lets go
 * of the caller's signal as soon as the request's body is over.
 *
 * Why: the MCP SDK's HTTP transports pass one signal, alive as long as the connection, to every
 * request they make, and Node's fetch (undici) adds an `abort` listener to the signal of every
 * request it starts and removes it only when that request is garbage-collected. On a connection
 * that makes many requests (a server that ends its event stream at once, so the SDK reopens it
 * tens of times a second; many calls between two collections) the listeners piled up on that one
 * signal: RSS grew, and from the 1,501st Node warned `MaxListenersExceededWarning: Possible
 * EventTarget memory leak detected. 1501 abort listeners added to [AbortSignal]` per request.
 * Here fetch's listener goes on the request's own signal, which is dropped with the request, and
 * the one listener on the caller's signal is removed when the body ends, fails or is cancelled.
 */
export function withOwnRequestSignal(base: typeof fetch): typeof fetch {
  return async (input, init) => {
    const callers = init?.signal;
    if (!callers || callers.aborted) return base(input, init);
    const own = new AbortController();
    const follow = (): void => own.abort(callers.reason);
    callers.addEventListener("abort", follow, { once: true });
    const release = (): void => callers.removeEventListener("abort", follow);
    let response: Response;
    try {
      response = await base(input, { ...init, signal: own.signal });
    } catch (error) {
      release();
      throw error;
    }
    return whenBodyEnds(response, release);
  };
}
