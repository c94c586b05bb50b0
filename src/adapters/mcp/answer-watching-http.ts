import { StreamableHTTPClientTransport, type JSONRPCMessage } from "@modelcontextprotocol/client";
import { AnswerStreamCuts } from "./answer-stream-cuts.js";

/**
 * A Streamable HTTP client transport that fails a request at once when the stream that was to
 * carry its answer ends without it (the server was killed, the connection reset).
 *
 * Why: the SDK's transport resolves `send` as soon as the POST's headers arrive and reads an SSE
 * answer in the background; when that stream breaks it only reports to `onerror`, and the
 * request waits for its full deadline (a dead server's 30 calls in flight all answered
 * UPSTREAM_TIMEOUT after 10 s). The SDK does say when such a stream is over
 * (`onRequestStreamEnd`, after any resumption it tries), and the SDK's Client rejects a request
 * whose `send` rejects: so `send` here settles when the answer's stream is over, and rejects with
 * an AnswerStreamLost when the answer was not in it. A request answered in a JSON body is settled
 * by the SDK's own `send` (a body cut short rejects it). A stream the runtime cut itself (an SSE
 * event past the response cap) fails its request with that reason, RESULT_TOO_LARGE, not as lost.
 */

/** The stream carrying a request's answer ended without the answer: the request may or may not have run. */
export class AnswerStreamLost extends Error {
  constructor() {
    super("the connection carrying the answer was lost before the answer arrived");
    this.name = "AnswerStreamLost";
  }
}

type SendOptions = Parameters<StreamableHTTPClientTransport["send"]>[1];
/** The handler as the SDK's Client sets it (an `extra` argument passed along when given). */
type OnMessage = (message: JSONRPCMessage, ...extra: unknown[]) => void;

function requestId(message: JSONRPCMessage): string | number | undefined {
  return "method" in message && "id" in message ? message.id : undefined;
}

export class AnswerWatchingHttpTransport extends StreamableHTTPClientTransport {
  /** Requests whose answer has not arrived, each with what ends its `send` when its stream is over. */
  readonly #waiting = new Map<string | number, { settle: (error?: Error) => void }>();
  /** The handler the SDK (or a wrapper of its) set; what reading `onmessage` gives is it wrapped by `#watched`. */
  #onmessage: OnMessage | undefined;
  /** handler → its watching wrapper, and back: a wrapper read and set again (the SDK's era probe restores the handler it saved) is unwrapped, never wrapped twice into a loop. */
  readonly #wrappers = new WeakMap<OnMessage, OnMessage>();
  readonly #unwrapped = new WeakMap<OnMessage, OnMessage>();
  readonly #cuts: AnswerStreamCuts;

  constructor(...[url, options]: ConstructorParameters<typeof StreamableHTTPClientTransport>) {
    const cuts = new AnswerStreamCuts(options?.fetch);
    super(url, { ...options, fetch: cuts.fetch });
    this.#cuts = cuts;
    // The SDK's Client sets `onmessage` after construction and the base class reads it to deliver
    // each message; an own accessor (a prototype one would be shadowed by the base class's field)
    // sees every answer first. LenientClient composes its own accessor with this one.
    Object.defineProperty(this, "onmessage", {
      configurable: true,
      enumerable: true,
      get: (): OnMessage | undefined => (this.#onmessage ? this.#watched(this.#onmessage) : undefined),
      set: (handler: OnMessage | undefined) => {
        this.#onmessage = handler && (this.#unwrapped.get(handler) ?? handler);
      },
    });
  }

  #watched(handler: OnMessage): OnMessage {
    let wrapper = this.#wrappers.get(handler);
    if (!wrapper) {
      wrapper = (message: JSONRPCMessage, ...extra: unknown[]) => {
        const id = "method" in message ? undefined : (message as { id?: unknown }).id;
        if (typeof id === "string" || typeof id === "number") this.#waiting.get(id)?.settle();
        handler(message, ...extra);
      };
      this.#wrappers.set(handler, wrapper);
      this.#unwrapped.set(wrapper, handler);
    }
    return wrapper;
  }

  override async send(message: JSONRPCMessage | JSONRPCMessage[], options?: SendOptions): Promise<void> {
    const id = Array.isArray(message) || options?.onRequestStreamEnd ? undefined : requestId(message);
    if (id === undefined) return super.send(message, options);
    const over = new Promise<void>((resolve, reject) => {
      this.#waiting.set(id, {
        settle: (error) => {
          this.#waiting.delete(id);
          this.#cuts.take(id);
          if (error) reject(error);
          else resolve();
        },
      });
    });
    const streamEnded = (): void => this.#waiting.get(id)?.settle(this.#cuts.take(id) ?? new AnswerStreamLost());
    try {
      await this.#cuts.sending(id, () => super.send(message, { ...options, onRequestStreamEnd: streamEnded }));
    } catch (error) {
      this.#waiting.delete(id);
      this.#cuts.take(id);
      throw error;
    }
    // A JSON answer has been delivered by now; an SSE one may still be on its way.
    if (!this.#waiting.has(id)) return;
    // A request withdrawn by its signal: its stream's end is not reported (the SDK's Client has rejected it already).
    const signal = options?.requestSignal;
    if (signal?.aborted) return this.#drop(id);
    signal?.addEventListener("abort", () => this.#drop(id), { once: true });
    return over;
  }

  override async close(): Promise<void> {
    // The SDK's Client fails its own pending requests on close: nothing here is owed an answer.
    for (const id of [...this.#waiting.keys()]) this.#drop(id);
    await super.close();
  }

  #drop(id: string | number): void {
    this.#waiting.get(id)?.settle();
  }
}
