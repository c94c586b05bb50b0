/**
 * The ids of a 2025-era session's requests in flight, so a POST that reuses one is refused.
 *
 * Why: the SDK's Streamable HTTP transport routes an answer to the response stream of the request
 * with that id; a second request with the same id while the first runs takes over the route, and the
 * first POST is never answered (its client waits until it gives up). JSON-RPC asks the client for
 * unique ids, but the server must not hang on a client that does not comply: the second request
 * gets a -32600 naming the id instead, and the first one is answered as usual.
 *
 * A POST whose client left before its answer (it dropped the connection or the stream) is
 * abandoned: each of its requests is cancelled, and an id whose handler is still running stays
 * claimed until that handler has finished. Freed at once, a new request reusing the id would take
 * over the route of the abandoned call and be handed its late answer (the new call's own answer
 * lost); claimed, the new request gets the -32600 above.
 *
 * A request the client cancelled with notifications/cancelled while its handler runs is withdrawn:
 * the SDK sends no answer for it (as the spec asks), but its transport keeps the request's route,
 * and with it the POST, until one is sent. So once the handler has finished an answer is sent to
 * drop the route, and the session keeps it from the client (withdrawn.ts); the id is freed when
 * the POST has ended, as any answered one.
 */

import type { HandlerScope } from "../../facade/server-pool.js";

type Id = string | number;

const ignore = (): void => undefined;

/** The ids of the requests in a parsed POST body (one message or a batch); notifications and responses have none. */
export function requestIdsOf(body: unknown): Id[] {
  const ids: Id[] = [];
  for (const m of Array.isArray(body) ? body : [body]) {
    if (!m || typeof m !== "object" || typeof (m as { method?: unknown }).method !== "string") continue;
    const id = (m as { id?: unknown }).id;
    if (typeof id === "string" || typeof id === "number") ids.push(id);
  }
  return ids;
}

/**
 * The id an error about the whole POST answers with: the request's own when the body is one
 * request with a string or integer id, so the client can match the error to its call; otherwise
 * null, as JSON-RPC asks when the id cannot be told (a batch, a notification, no body read).
 */
export function replyIdOf(body: unknown): Id | null {
  if (Array.isArray(body)) return null;
  const [id] = requestIdsOf(body);
  return typeof id === "string" || Number.isSafeInteger(id) ? (id as Id) : null;
}

export class RequestIdsInFlight {
  readonly #ids = new Set<Id>();
  /** The request handlers running now, by request id: each settles when its handler has finished (a cancelled one too). */
  readonly #running = new Map<Id, Promise<void>>();
  /** Requests the client cancelled while their handlers ran: what answers them is not delivered (withdrawn.ts). */
  readonly #withdrawn = new Set<Id>();

  /** A HandlerScope for the session's facade server: notes the handler of each request while it runs. */
  readonly track: HandlerScope = (ctx, run) => {
    const result = run(ctx);
    const id = ctx.mcpReq.id;
    if (typeof id !== "string" && typeof id !== "number") return result;
    const finished = result.then(ignore, ignore);
    this.#running.set(id, finished);
    void finished.then(() => {
      if (this.#running.get(id) === finished) this.#running.delete(id);
    });
    return result;
  };

  /**
   * Claim `ids` for one POST; undefined when done (`release` frees them once it is answered), else
   * the id that is already in flight or repeated within the body (nothing is claimed then).
   */
  claim(ids: readonly Id[]): Id | undefined {
    const seen = new Set<Id>();
    for (const id of ids) {
      if (this.#ids.has(id) || seen.has(id)) return id;
      seen.add(id);
    }
    for (const id of ids) this.#ids.add(id);
    return undefined;
  }

  /** The ids of the requests whose handlers are running now (not yet answered). */
  running(): Id[] {
    return [...this.#running.keys()];
  }

  release(ids: readonly Id[]): void {
    for (const id of ids) {
      this.#ids.delete(id);
      this.#withdrawn.delete(id);
    }
  }

  /**
   * The client cancelled `id` (its notifications/cancelled has reached the SDK, which aborted the
   * handler and will answer nothing). A request whose handler still runs is withdrawn: once the
   * handler has finished, `finished` runs for it (to drop the route the transport keeps for its
   * answer), and what answers it is not delivered (`isWithdrawn`). Resolves then; at once for an
   * id not running (already answered, unknown, or a request of another session).
   */
  async withdraw(id: Id, finished: (id: Id) => Promise<void>): Promise<void> {
    const running = this.#running.get(id);
    if (!running || !this.#ids.has(id)) return;
    this.#withdrawn.add(id);
    await running;
    await finished(id).catch(ignore);
  }

  /** Whether any request is withdrawn now: the cheap test before an answer is looked into. */
  get anyWithdrawn(): boolean {
    return this.#withdrawn.size > 0;
  }

  isWithdrawn(id: unknown): boolean {
    return (typeof id === "string" || typeof id === "number") && this.#withdrawn.has(id);
  }

  /**
   * The client of the POST that claimed `ids` left before it was answered: `cancel` each (a
   * request already answered ignores it). An id whose handler is still running stays claimed until
   * it has finished, then `finished` runs for it (to drop what the transport keeps for its answer)
   * and it is freed; the others are freed at once. Resolves once every id is free.
   */
  async abandon(ids: readonly Id[], cancel: (id: Id) => void, finished: (id: Id) => Promise<void>): Promise<void> {
    const waits: Array<Promise<void>> = [];
    for (const id of ids) {
      const running = this.#running.get(id);
      cancel(id);
      if (!running) this.release([id]);
      else waits.push(running.then(() => finished(id).catch(ignore)).finally(() => this.release([id])));
    }
    await Promise.all(waits);
  }
}

/** The -32600 message for a request reusing an id in flight; `within` says where (an HTTP session and its batch by default; stdio says its connection). */
export function duplicateIdMessage(id: Id, within = "in this session (or twice in this batch)"): string {
  return `Invalid Request: id ${JSON.stringify(id)} is already used by a request in flight ${within}; nothing was run. Give every request an id of its own and send it again`;
}
