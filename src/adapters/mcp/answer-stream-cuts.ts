import { AsyncLocalStorage } from "node:async_hooks";
import type { FetchLike } from "@modelcontextprotocol/client";
import { ResponseTooLargeError } from "../shared/capped-body.js";

/**
 * Remembers why the stream carrying a request's answer was cut by the runtime itself (the
 * response cap: ResponseTooLargeError), so the request fails with that reason.
 *
 * Why: the SDK's Streamable HTTP transport reads an SSE answer in the background and, when the
 * stream errors, reports only the error's text to `onerror` and then says the stream is over; the
 * request then looked like a lost connection ("a read can simply be called again"), and a model
 * retried into the same oversized answer. A JSON answer past the cap already rejects the request
 * with the error itself.
 */
export class AnswerStreamCuts {
  /** The id of the request whose POST is being sent (set around the transport's `send`). */
  readonly #sending = new AsyncLocalStorage<string | number>();
  readonly #cuts = new Map<string | number, ResponseTooLargeError>();
  readonly #base: FetchLike;

  constructor(base: FetchLike = fetch) {
    this.#base = base;
  }

  /** Runs `send` (a request's POST) so that a cut of its answer's stream is kept under `id`. */
  sending<T>(id: string | number, send: () => Promise<T>): Promise<T> {
    return this.#sending.run(id, send);
  }

  /** The cut that ended `id`'s answer stream, if the runtime cut it; forgotten once taken. */
  take(id: string | number): ResponseTooLargeError | undefined {
    const cut = this.#cuts.get(id);
    this.#cuts.delete(id);
    return cut;
  }

  /** The fetch to give the transport: the base fetch, with each request's answer body watched. */
  readonly fetch: FetchLike = async (input, init) => {
    const id = this.#sending.getStore();
    const response = await this.#base(input, init);
    if (id === undefined || !response.body) return response;
    const reader = response.body.getReader();
    const watched = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error) {
          if (error instanceof ResponseTooLargeError) this.#cuts.set(id, error);
          controller.error(error);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(watched, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
