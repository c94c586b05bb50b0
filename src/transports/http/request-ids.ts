/**
 * The ids of a 2025-era session's requests in flight, so a POST that reuses one is refused.
 *
 * Why: the SDK's Streamable HTTP transport routes an answer to the response stream of the request
 * with that id; a second request with the same id while the first runs takes over the route, and the
 * first POST is never answered (its client waits until it gives up). JSON-RPC asks the client for
 * unique ids, but the server must not hang on a client that does not comply: the second request
 * gets a -32600 naming the id instead, and the first one is answered as usual.
 */

type Id = string | number;

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

  release(ids: readonly Id[]): void {
    for (const id of ids) this.#ids.delete(id);
  }
}

export function duplicateIdMessage(id: Id): string {
  return `Invalid Request: id ${JSON.stringify(id)} is already used by a request in flight in this session (or twice in this batch); nothing was run. Give every request an id of its own and send it again`;
}
