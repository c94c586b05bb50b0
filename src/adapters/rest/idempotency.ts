import { nodeCrypto } from "../../node-crypto.js";
// The runtime's one canonical form of a call's arguments (sorted keys), as the loop breaker and confirm tokens use.
import { canonicalJson } from "../../runtime/loop-breaker.js";

/**
 * Idempotency keys for the writes a REST adapter sends (`Idempotency-Key`, the IETF
 * httpapi draft header Stripe and others honour). A write whose answer never came back (the
 * backend was killed after its commit, the connection dropped) is retried by the runtime or by
 * the agent; with the same key, a backend that honours it answers the first result again instead
 * of writing twice.
 *
 * The same call in the same session (tool and canonical arguments) gets the same key while it is
 * repeated within the window (sliding: every repeat extends it), so an agent's retry of a failed
 * write is recognised; the runtime's own retries (a re-login after 401) reuse the request and so
 * its key. The same call from another session, or after the window, is a new write with a new
 * key. A key the agent gives itself (a tool that maps an argument to the header) is kept.
 */

export const IDEMPOTENCY_HEADER = "Idempotency-Key";
const DEFAULT_IDEMPOTENCY_WINDOW_MS = 10 * 60 * 1000;
const MAX_REMEMBERED = 10_000;

export class IdempotencyKeys {
  readonly #seen = new Map<string, { key: string; lastUsed: number }>();
  constructor(
    private readonly windowMs = DEFAULT_IDEMPOTENCY_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The key for this call: the one it had when repeated within the window, else a new one. */
  keyFor(sessionId: string, tool: string, args: unknown): string {
    const fingerprint = nodeCrypto().createHash("sha256").update(`${sessionId}\0${tool}\0${canonicalJson(args)}`).digest("hex");
    const now = this.now();
    const known = this.#seen.get(fingerprint);
    this.#seen.delete(fingerprint); // re-inserted last: the map's order is least recently used first
    const entry = known && now - known.lastUsed <= this.windowMs ? { key: known.key, lastUsed: now } : { key: nodeCrypto().randomUUID(), lastUsed: now };
    this.#seen.set(fingerprint, entry);
    if (this.#seen.size > MAX_REMEMBERED) this.#seen.delete(this.#seen.keys().next().value as string);
    return entry.key;
  }
}
