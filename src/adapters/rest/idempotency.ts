import { nodeCrypto } from "../../node-crypto.js";
// The runtime's one canonical form of a call's arguments (sorted keys), as the loop breaker and confirm tokens use.
import { canonicalJson } from "../../runtime/loop-breaker.js";
import { AdapterError } from "../shared/errors.js";
import type { OutgoingRequest } from "./client.js";

/**
 * Idempotency keys for the writes a REST adapter sends (`Idempotency-Key`, the IETF
 * httpapi draft header Stripe and others honour). A write whose answer never came back (the
 * backend was killed after its commit, the connection dropped) is retried by the runtime or by
 * the agent; with the same key, a backend that honours it answers the first result again instead
 * of writing twice.
 *
 * A key protects only a write whose answer is unknown. The same call in the same session (tool
 * and canonical arguments) gets the same key while no answer to it has been received and it is
 * repeated within the window (sliding: every repeat extends it), so an agent's retry of a write
 * whose answer was lost is recognised. "No answer" is a network error, a cut connection, a
 * timeout or cancel, an answer too large to read, or a 5xx (the backend may have committed
 * before it failed). Once the backend answered (2xx, or 4xx: it decided, and that answer went to
 * the agent), the key is retired: the same call again is a deliberate new write with a new key,
 * not a replay of the first one. The runtime's own retries (a re-login after 401) reuse the
 * request and so its key. The same call from another session, or after the window, is a new write
 * with a new key. A key the agent gives itself (a tool that maps an argument to the header) is
 * not managed here.
 */

export const IDEMPOTENCY_HEADER = "Idempotency-Key";
const DEFAULT_IDEMPOTENCY_WINDOW_MS = 10 * 60 * 1000;
const MAX_REMEMBERED = 10_000;

/** One write's key, and how to retire it once the backend's answer to that write was received. */
export interface WriteKey {
  readonly key: string;
  /** The backend answered this write: the next identical call is a new write. A later key of the same call is left alone. */
  answered(): void;
}

export class IdempotencyKeys {
  readonly #seen = new Map<string, { key: string; lastUsed: number }>();
  constructor(
    private readonly windowMs = DEFAULT_IDEMPOTENCY_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The key for this call: the one it had when repeated unanswered within the window, else a new one. */
  keyFor(sessionId: string, tool: string, args: unknown): WriteKey {
    const fingerprint = nodeCrypto().createHash("sha256").update(`${sessionId}\0${tool}\0${canonicalJson(args)}`).digest("hex");
    const now = this.now();
    const known = this.#seen.get(fingerprint);
    this.#seen.delete(fingerprint); // re-inserted last: the map's order is least recently used first
    const entry = known && now - known.lastUsed <= this.windowMs ? { key: known.key, lastUsed: now } : { key: nodeCrypto().randomUUID(), lastUsed: now };
    this.#seen.set(fingerprint, entry);
    if (this.#seen.size > MAX_REMEMBERED) this.#seen.delete(this.#seen.keys().next().value as string);
    const { key } = entry;
    return {
      key,
      answered: () => {
        // Only this key: an identical call started after the answer already holds a new one.
        if (this.#seen.get(fingerprint)?.key === key) this.#seen.delete(fingerprint);
      },
    };
  }
}

/**
 * The name-space of the page keys (pageKeyed): a UUID of this runtime's own, so a derived key
 * cannot equal one another name-based scheme made from the same text.
 */
const PAGE_KEY_NAMESPACE = Buffer.from("4d67cb0b09af475fb97cf95ee0097cfe", "hex");

/**
 * The key of the `page`-th request (2 and on) of a call whose first request carried `key`: a
 * name-based UUID (version 5, RFC 9562) of the call's key and the page, so it is the same for the
 * same page of the same call (its retry) and differs from every other page's. A UUID whatever the
 * call's key looks like: a backend that checks the header's form takes it as it takes the first.
 */
function pageKey(key: string, page: number): string {
  const bytes = nodeCrypto().createHash("sha1").update(PAGE_KEY_NAMESPACE).update(`${key}\0page ${page}`).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The requests of one paginated call, each with its own Idempotency-Key. Each page is a request
 * of its own: sent with the first page's key, a backend that honours keys answers every later
 * page with the first page's stored answer (the same items again, a Link that points at page 2
 * for ever). So the first request keeps the call's key (the runtime's or one the agent gave) and
 * the `page`-th gets pageKey of it: a retry of the call, its first answer lost, walks the pages
 * again with the same keys and is answered what each page answered. Without a key on the first
 * request (a read, or `"idempotencyKeys": false`), requests are left as they are.
 */
export function pageKeyed(first: OutgoingRequest): (request: OutgoingRequest, page: number) => OutgoingRequest {
  const header = Object.keys(first.headers ?? {}).find((name) => name.toLowerCase() === IDEMPOTENCY_HEADER.toLowerCase());
  const key = header === undefined ? undefined : first.headers?.[header];
  if (header === undefined || key === undefined) return (request) => request;
  return (request, page) => (page === 1 ? request : { ...request, headers: { ...request.headers, [header]: pageKey(key, page) } });
}

/**
 * Whether a failed write was answered by the backend: an upstream error carrying a status below
 * 500 (a 4xx, or a 2xx whose body was not the JSON it said). A 5xx, or an error without a status
 * (unreachable, cut connection, timeout, cancel, an answer too large to read), leaves the write's
 * outcome unknown to the agent, so its key is kept.
 */
export function backendAnswered(error: unknown): boolean {
  return error instanceof AdapterError && error.status !== undefined && error.status < 500;
}
