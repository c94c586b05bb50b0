import type { ServerResponse } from "node:http";
import { messagesIn, type RequestFacts } from "./request-log.js";
import { INTERRUPTED_CODE, interruptedMessage, type ShutdownWords } from "../shutdown.js";

/**
 * The POST exchanges this server is answering, so that closing it (a drain that ran past
 * AGENT_TOOLS_DRAIN_MS, or any other close) answers each request still running instead of
 * dropping its connection. Dropped, a client read "fetch failed" with nothing to go on, and the
 * request log said `status=200 ok` for a call that was cut off with its effect unknown.
 */

type Id = string | number;

/** How long closing waits for the interrupted answers to reach the sockets before it closes them. */
export const FLUSH_MS = 1000;

interface Exchange {
  facts: RequestFacts;
  /** What was written to the response so far (request-log.ts's capture): an SSE stream may have answered some of its requests. */
  written: () => string;
}


export class OpenExchanges {
  readonly #open = new Map<ServerResponse, Exchange>();
  readonly #words: ShutdownWords;

  /** `words`: what the answers call this server and where they send a read again (shutdown.ts). */
  constructor(words: ShutdownWords) {
    this.#words = words;
  }

  /** Tracks `res` until it closes. */
  add(res: ServerResponse, exchange: Exchange): void {
    this.#open.set(res, exchange);
    res.once("close", () => this.#open.delete(res));
  }

  /** The exchanges open now: the calls a drain waits for. */
  get size(): number {
    return this.#open.size;
  }

  /** `res` turned out to run no call (a subscriptions/listen stream): no drain waits for it, and no close answers it as interrupted. */
  release(res: ServerResponse): void {
    this.#open.delete(res);
  }

  /**
   * Answers every exchange still open with one JSON-RPC error per request of it not answered yet,
   * marks it interrupted for the request log, and resolves once those answers are handed to the
   * sockets (bounded: a client that reads nothing does not hold the shutdown).
   */
  async interruptAll(why: string): Promise<number> {
    const message = interruptedMessage(why, this.#words);
    const flushed: Array<Promise<void>> = [];
    for (const [res, exchange] of this.#open) {
      if (res.writableEnded || res.destroyed) continue;
      exchange.facts.interrupted = true;
      flushed.push(new Promise<void>((resolve) => res.once("finish", resolve).once("close", resolve)));
      answer(res, exchange, message);
    }
    if (flushed.length) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(flushed), new Promise<void>((resolve) => (timer = setTimeout(resolve, FLUSH_MS)))]).finally(() => clearTimeout(timer));
    }
    return flushed.length;
  }
}

function answer(res: ServerResponse, exchange: Exchange, message: string): void {
  const ids = exchange.facts.requestIds ?? [];
  const errorFor = (id: Id | null) => ({ jsonrpc: "2.0", error: { code: INTERRUPTED_CODE, message }, id });
  if (!res.headersSent) {
    // Not Retry-After, as the drain's 503s say: sending it again is safe only once its effect is known.
    const errors = ids.length ? ids.map(errorFor) : [errorFor(null)];
    const body = JSON.stringify(errors.length === 1 ? errors[0] : errors);
    res.writeHead(503, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body), Connection: "close" });
    res.end(body);
  } else if (String(res.getHeader("content-type") ?? "").includes("text/event-stream")) {
    // A stream: each request it has not answered yet gets its error as one more event.
    const answered = new Set(messagesIn(exchange.written(), "text/event-stream").map((m) => (m as { id?: unknown } | null)?.id));
    for (const id of ids.filter((i) => !answered.has(i))) res.write(`event: message\ndata: ${JSON.stringify(errorFor(id))}\n\n`);
    res.end();
  } else res.end(); // a JSON answer being written: it is whole or cut, nothing can be added to it
  ignoreLaterWrites(res);
}

/**
 * The handler of the request is still running and will write its own answer when its call ends
 * (or fails as the runtime closes): on an ended response that would throw (headers sent) or emit
 * an error nothing listens to, so those writes are dropped.
 */
function ignoreLaterWrites(res: ServerResponse): void {
  const target = res as unknown as Record<string, unknown>;
  for (const method of ["writeHead", "setHeader", "flushHeaders", "end"]) target[method] = () => res;
  target.write = () => true;
}
