import { randomUUID } from "node:crypto";
import type { Identity } from "../../runtime/access.js";
import { closeSession, type Session } from "../../runtime/session.js";

/**
 * The sessions of 2026-07-28 callers, one per whole identity (loop memory, the job store's place),
 * kept while their callers come back. With JWTs every subject is an identity, so a table that only
 * grew (it was cleared at shutdown alone) held one session per subject ever seen: 3,000 subjects
 * took an instance from 122 to 237 MB of RSS, never given back. Here a caller's session goes once
 * it sits unused past the idle limit (the HTTP sessions' own), and the least recently used go when
 * more than `max` are held.
 *
 * Only sessions of an identity are ever dropped: a team identity's jobs live in its identity's
 * store (runtime.ts), not in the session, so a dropped session costs its loop memory alone and the
 * next call opens a fresh one. The session of a caller without an identity (a one-user server) is
 * never dropped: its jobs are the session's and would go with it, and there is only one.
 */

/** Sessions of callers with an identity held at once, beyond which the least recently used go (as many as the facade keeps views). */
export const MAX_CALLER_SESSIONS = 1000;

export interface CallerSessionsOptions {
  /** A session for a new caller (the runtime's, which knows the identity's rights). */
  create: (id: string, identity: Identity | undefined) => Session;
  /** A caller's session unused this long is dropped when the table is next looked at. */
  idleMs: number;
  max?: number;
  now?: () => number;
  /** Told each drop, for the debug log. */
  onDrop?: (session: Session, why: string) => void;
}

interface Held {
  session: Session;
  lastUsed: number;
}

export class CallerSessions {
  /** By caller key, least recently used first (a use moves its entry to the end). */
  private readonly held = new Map<string, Held>();
  private readonly now: () => number;
  private readonly max: number;

  constructor(private readonly options: CallerSessionsOptions) {
    this.now = options.now ?? Date.now;
    this.max = options.max ?? MAX_CALLER_SESSIONS;
  }

  get size(): number {
    return this.held.size;
  }

  /** The session of the caller `key` (its whole identity), opened on its first call; every call is a use. */
  sessionFor(key: string, identity: Identity | undefined): Session {
    const at = this.now();
    let entry = this.held.get(key);
    if (entry) this.held.delete(key);
    // Unique in the fleet and across restarts: the audit log and the jobs of a caller without an identity are keyed by it.
    else entry = { session: this.options.create(`modern-${randomUUID()}`, identity), lastUsed: at };
    entry.lastUsed = at;
    this.held.set(key, entry);
    this.dropStale(at);
    return entry.session;
  }

  /**
   * From the least recently used end: what sat unused past the idle limit, then what is over the
   * bound. Amortized O(1) per call: it stops at the first entry it keeps (a kept session without an
   * identity is stepped over; there is at most one).
   */
  private dropStale(at: number): void {
    for (const [key, entry] of this.held) {
      if (!entry.session.identity) continue;
      const idle = at - entry.lastUsed > this.options.idleMs;
      if (!idle && this.held.size <= this.max) return;
      this.held.delete(key);
      const why = idle ? `unused for more than ${this.options.idleMs} ms` : `more than ${this.max} callers' sessions were held; it was the least recently used`;
      this.options.onDrop?.(entry.session, why);
      void closeSession(entry.session);
    }
  }

  async closeAll(): Promise<void> {
    const sessions = [...this.held.values()].map((entry) => entry.session);
    this.held.clear();
    await Promise.allSettled(sessions.map((session) => closeSession(session)));
  }
}
