import { nodeCrypto } from "../../node-crypto.js";
// The runtime's one canonical form of a call's arguments (sorted keys), as the loop breaker and confirm tokens use.
import { canonicalJson } from "../../runtime/loop-breaker.js";
import { AdapterError } from "../shared/errors.js";

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
 * Whether a failed write was answered by the backend: an upstream error carrying a status below
 * 500 (a 4xx, or a 2xx whose body was not the JSON it said). A 5xx, or an error without a status
 * (unreachable, cut connection, timeout, cancel, an answer too large to read), leaves the write's
 * outcome unknown to the agent, so its key is kept.
 */
export function backendAnswered(error: unknown): boolean {
  return error instanceof AdapterError && error.status !== undefined && error.status < 500;
}
