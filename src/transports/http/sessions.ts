import { getRequestListener } from "@hono/node-server";
import { WebStandardStreamableHTTPServerTransport, type AuthInfo, type Server } from "@modelcontextprotocol/server";
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../../adapters/types.js";
import { createFacadeServer } from "../../facade/server.js";
import type { Runtime } from "../../runtime/runtime.js";
import { closeSession, type Session } from "../../runtime/session.js";
import { identityKey, type Identity } from "../../runtime/access.js";
import { fairVictim } from "../../runtime/fair-eviction.js";
import { RequestIdsInFlight } from "./request-ids.js";
import { withoutWithdrawn } from "./withdrawn.js";

/**
 * The open MCP sessions of the HTTP facade (2025-era clients; 2026-07-28 requests have no session
 * and are served per request, see server.ts). Each has its own SDK transport, facade server and
 * runtime session (loop memory, text-layer sandbox); the runtime and its adapters are
 * shared. Sessions end on DELETE, after sitting idle too long, to make room, or at shutdown.
 *
 * The table's policy, which is what keeps a flood of abandoned initializes (any local process can
 * send them) from locking real clients out:
 * - a session that never did anything after initialize (only initialize, ping, notifications,
 *   and no GET for its notification stream) is "unused": it is the first to give its slot up;
 * - when the table is full, a new initialize first closes every session idle past its limit:
 *   `idleMs` (30 min), or `unusedIdleMs` (30 s) for an unused one; if none is, it takes the slot
 *   of an idle session (no request in flight) of the identity holding the most sessions, the new
 *   one counted: one caller opening many sessions evicts its own, never another caller's (and its
 *   files); among those, the least recently seen unused one first, else the least recently used
 *   one. Only when every session has a request in flight does initialize answer 503. While the
 *   table has room, an unused session is kept as long as a used one: the SDK clients open their
 *   GET stream and may make their first call minutes later, and a client that opens no stream may
 *   wait as long; closed after 30 s, either found its session gone (404, which the SDK clients do
 *   not recover from);
 * - the id of a session closed to make room answers 404 with that reason;
 * - a request without Mcp-Session-Id (openSessionless) never costs a session its slot: it runs in
 *   an allowance of its own (`sessionlessAllowance`, a quarter of the table, at least 4), and
 *   past it is answered 503. Else a client that never sends the id (or anyone who sends none)
 *   would evict a working client's session with every request.
 */

export interface HttpSession {
  readonly id: string;
  /** The SDK's web-standard transport; node:http reaches it through serveSession. */
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: Server;
  readonly session: Session;
  readonly responseMode: "json" | "sse";
  lastSeen: number;
  inFlight: number;
  /** The ids of its requests in flight: a POST reusing one is refused (request-ids.ts). */
  readonly requestIds: RequestIdsInFlight;
  /** Set by the first request that did work (anything but initialize, ping and notifications) or opened the GET stream. */
  used: boolean;
}

export interface SessionRegistryOptions {
  runtime: Runtime;
  log: Logger;
  maxSessions: number;
  idleMs: number;
  /** Idle limit, when the table needs room, of a session that never did anything after initialize. Default min(30 s, idleMs). */
  unusedIdleMs?: number;
  now?: () => number;
}

/** JSON-RPC methods that do not make a session "used": the handshake and liveness checks. */
function isHandshake(method: string): boolean {
  return method === "initialize" || method === "ping" || method.startsWith("notifications/");
}

/** How many ids of sessions closed to make room are remembered, to explain their 404. */
const EVICTED_MEMORY = 1024;

/**
 * Hand one node:http request to a session's transport, with the body the server already read and
 * parsed. The SDK's NodeStreamableHTTPServerTransport does the same per request (a @hono/node-server
 * listener around the web-standard transport's handleRequest) but also builds, per session, a
 * wrapper, a listener it never uses and a WeakMap, which every open session held for nothing
 * (with the shared form validator, 10.1 -> 9.3 KB of heap per session in snapshots). Sessions hold
 * the web-standard transport alone and are served through here.
 */
export async function serveSession(entry: HttpSession, req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void> {
  const authInfo = (req as IncomingMessage & { auth?: AuthInfo }).auth;
  const options = { ...(authInfo ? { authInfo } : {}), ...(parsedBody !== undefined ? { parsedBody } : {}) };
  // A POST's answer leaves without the answers of the requests its client cancelled (withdrawn.ts).
  const answer = parsedBody === undefined ? (request: Request) => entry.transport.handleRequest(request, options) : (request: Request) => entry.transport.handleRequest(request, options).then((response) => withoutWithdrawn(response, entry.requestIds));
  await getRequestListener(answer, {
    // Keep the process's own Request/Response (the listener would otherwise install its own globally).
    overrideGlobalObjects: false,
  })(req, res);
}

/** Why a call whose client left is cancelled: the reason its handler's signal (and so the downstream's notifications/cancelled) carries. */
export const CLIENT_LEFT = "the client closed the connection";

/**
 * The client of a POST left before `ids` were answered: each is cancelled exactly as the client's
 * own notifications/cancelled would (the handler's signal aborts, the downstream request is
 * cancelled), and its id stays claimed until its handler has finished (request-ids.ts).
 */
export function abandonRequests(entry: HttpSession, ids: ReadonlyArray<string | number>): Promise<void> {
  // The SDK answers nothing for a cancelled request, but its transport keeps the request's route
  // (a JSON answer's pending response, and with it the POST's handling) until one is sent: an
  // answer nobody reads closes it.
  const dropRoute = (id: string | number): Promise<void> => answerRequest(entry, id, `cancelled: ${CLIENT_LEFT} before the answer`);
  return entry.requestIds.abandon(ids, (id) => cancelRequest(entry, id, CLIENT_LEFT), dropRoute);
}

/** The request ids a body's notifications/cancelled name (one message or a batch). */
export function cancelledIdsOf(body: unknown): Array<string | number> {
  const ids: Array<string | number> = [];
  for (const m of Array.isArray(body) ? body : [body]) {
    const message = m as { method?: unknown; id?: unknown; params?: { requestId?: unknown } } | null;
    if (message?.method !== "notifications/cancelled" || message.id !== undefined) continue;
    const id = message.params?.requestId;
    if (typeof id === "string" || typeof id === "number") ids.push(id);
  }
  return ids;
}

/**
 * The client cancelled requests of this session with notifications/cancelled, which the SDK has
 * handled (their handlers' signals aborted; it answers nothing for them). Each still running is
 * withdrawn (request-ids.ts): once its handler has finished, the route its transport keeps is
 * dropped with an answer the client never gets (withdrawn.ts), so its POST ends, its id is freed and
 * the session is no longer in flight.
 */
export function withdrawCancelled(entry: HttpSession, ids: ReadonlyArray<string | number>): void {
  for (const id of ids) void entry.requestIds.withdraw(id, (withdrawn) => answerRequest(entry, withdrawn, "cancelled by the client (notifications/cancelled); this answer is never delivered"));
}

/** Cancel one request of the session exactly as the client's own notifications/cancelled would (its handler's signal aborts, the downstream call is cancelled). */
function cancelRequest(entry: HttpSession, requestId: string | number, reason: string): void {
  entry.transport.onmessage?.({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason } });
}

/** Answer one request of the session with a JSON-RPC error on its own route (its POST's JSON answer or SSE stream). */
function answerRequest(entry: HttpSession, id: string | number, message: string): Promise<void> {
  return entry.transport.send({ jsonrpc: "2.0", id, error: { code: -32000, message } }).catch(() => undefined);
}

/** What a request still running when its session is deleted is told. */
export const DELETED_MID_CALL =
  "the session was deleted (HTTP DELETE) while this request was running: the call was cancelled, and it may have run in part or in whole, so whether it took effect is unknown. " +
  "For a call that changes data, first check whether it took effect; then initialize a new session and send it again if needed";

/**
 * The session is being deleted (DELETE): each request still running is cancelled through the
 * runtime's cancellation and answered with DELETED_MID_CALL, before the SDK closes its transport.
 * Closed without an answer, a JSON POST would wait forever (the SDK drops its pending response) and
 * an SSE stream would end without an event for the request.
 */
export async function answerDeletedRequests(entry: HttpSession): Promise<void> {
  const ids = entry.requestIds.running();
  for (const id of ids) cancelRequest(entry, id, "the session was deleted");
  await Promise.all(ids.map((id) => answerRequest(entry, id, DELETED_MID_CALL)));
}

/**
 * Why a request without Mcp-Session-Id cannot ask the user (or the client's model) mid-call: its
 * one-request session had no initialize, so what the client declared is unknown, and it could not
 * carry the question anyway. Said as such, not as "the client did not declare elicitation", which
 * the client may well have done at its initialize.
 */
const SESSIONLESS_UNASKABLE = {
  why: "the request came without the Mcp-Session-Id header, so it was served in a one-request session that does not know what the client declared at initialize and cannot carry a question mid-call",
  fix: "the tool can ask when the client sends the Mcp-Session-Id its initialize answered on every request, in a session answering over SSE (`Accept: text/event-stream` before `application/json` at initialize), or speaks the 2026-07-28 protocol",
};

/** The requests without Mcp-Session-Id that may run at once, for a table of `maxSessions`: a quarter of it, at least 4. */
export function sessionlessAllowanceFor(maxSessions: number): number {
  return Math.max(4, Math.ceil(maxSessions / 4));
}

export class SessionRegistry {
  /** Sessions and the one-request sessions of requests without Mcp-Session-Id (their ids in `oneRequest`). */
  private readonly sessions = new Map<string, HttpSession>();
  private readonly oneRequest = new Set<string>();
  /** Why each session closed to make room was closed, for its 404 (the last EVICTED_MEMORY of them). */
  private readonly evicted = new Map<string, string>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly now: () => number;
  private readonly unusedIdleMs: number;

  constructor(private readonly options: SessionRegistryOptions) {
    this.now = options.now ?? Date.now;
    this.unusedIdleMs = Math.min(options.unusedIdleMs ?? 30_000, options.idleMs);
    // Sweep often enough that an idle session outlives its limit by at most a quarter of it.
    const every = Math.max(250, Math.min(60_000, Math.floor(options.idleMs / 4)));
    this.sweeper = setInterval(() => void this.sweep(), every);
    this.sweeper.unref();
  }

  /** Open sessions: the table `maxSessions` caps (one-request sessions are not in it). */
  get size(): number {
    return this.sessions.size - this.oneRequest.size;
  }

  /** Requests without Mcp-Session-Id that may run at once (sessionlessAllowanceFor). */
  get sessionlessAllowance(): number {
    return sessionlessAllowanceFor(this.options.maxSessions);
  }

  /** The live session with this id; an expired one is closed on the spot and reported missing. */
  get(id: string): HttpSession | undefined {
    const entry = this.sessions.get(id);
    if (!entry) return undefined;
    if (this.isExpired(entry)) {
      void this.close(id, "idle");
      return undefined;
    }
    return entry;
  }

  /** Why an id has no session, for the 404 message. */
  whyMissing(id: string): string {
    const why = this.evicted.get(id);
    return why ? `it was closed to make room for a new session (the table of ${this.options.maxSessions} was full and ${why})` : "it expired or was closed";
  }

  /**
   * A request arrives for `entry`: it is seen now, and used if it does work (a JSON-RPC method
   * other than the handshake's, ping and notifications) or opens the session's GET stream, which
   * is how a client that has connected waits for its first call.
   */
  touch(entry: HttpSession, rpcMethods: readonly string[] = [], opensStream = false): void {
    entry.lastSeen = this.now();
    if (!entry.used && (opensStream || rpcMethods.some((method) => !isHandshake(method)))) entry.used = true;
  }

  /**
   * A new session, connected and registered (the initialize request is handled by the caller), or
   * undefined when the table is full of sessions with requests in flight. Room is made
   * synchronously with the registration, so concurrent initializes cannot pass the cap together.
   */
  async open(responseMode: "json" | "sse", identity?: Identity): Promise<HttpSession | undefined> {
    if (this.size >= this.options.maxSessions && !this.makeRoom(identity)) return undefined;
    const id = randomUUID();
    const session = this.options.runtime.createSession(id, identity);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      enableJsonResponse: responseMode === "json",
      // Runs before the SDK closes the transport, so the calls still running are answered on their routes.
      onsessionclosed: async () => {
        const entry = this.sessions.get(id);
        if (entry) await answerDeletedRequests(entry);
        void this.close(id, "DELETE");
      },
    });
    const requestIds = new RequestIdsInFlight();
    // A JSON-answering session cannot carry a question to the user mid-call: its writes keep the confirm flag.
    const server = createFacadeServer({ runtime: this.options.runtime, session, canAsk: responseMode === "sse", around: requestIds.track });
    const entry: HttpSession = { id, transport, server, session, responseMode, lastSeen: this.now(), inFlight: 0, requestIds, used: false };
    this.sessions.set(id, entry);
    await server.connect(transport);
    return entry;
  }

  /**
   * A session for one request that came without Mcp-Session-Id (a client that never repeats the id
   * initialize answered, such as the original runtime's Pi extension): the SDK's stateless transport,
   * so no initialize is expected and no id is issued. It runs in the allowance of its own, never in
   * the session table: it makes no room there, so no session is evicted for it (the caller closes it
   * after the answer). Undefined when `sessionlessAllowance` of them are running. It answers in JSON
   * or SSE as asked, but never asks the user mid-call: no initialize told it what the client can do.
   */
  async openSessionless(responseMode: "json" | "sse", identity?: Identity): Promise<HttpSession | undefined> {
    if (this.oneRequest.size >= this.sessionlessAllowance) return undefined;
    const id = `sessionless-${randomUUID()}`;
    const session = this.options.runtime.createSession(id, identity);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: responseMode === "json" });
    const requestIds = new RequestIdsInFlight();
    const server = createFacadeServer({ runtime: this.options.runtime, session, canAsk: false, unaskable: SESSIONLESS_UNASKABLE, around: requestIds.track });
    const entry: HttpSession = { id, transport, server, session, responseMode, lastSeen: this.now(), inFlight: 1, requestIds, used: true };
    this.sessions.set(id, entry);
    this.oneRequest.add(id);
    await server.connect(transport);
    return entry;
  }

  async close(id: string, why: string): Promise<void> {
    const entry = this.sessions.get(id);
    if (!entry) return;
    this.sessions.delete(id);
    this.oneRequest.delete(id);
    this.options.log.debug(`session ${id.slice(0, 8)} closed (${why})`);
    await entry.server.close().catch(() => undefined);
    await closeSession(entry.session);
  }

  async closeAll(why: string): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.allSettled([...this.sessions.keys()].map((id) => this.close(id, why)));
  }

  /** Idle past `idleMs` (no request in flight): closed by the sweep, or on its next request. */
  private isExpired(entry: HttpSession): boolean {
    return entry.inFlight === 0 && this.now() - entry.lastSeen > this.options.idleMs;
  }

  /** Unused and idle past `unusedIdleMs`: closed only when the table needs its slot. */
  private isStaleUnused(entry: HttpSession): boolean {
    return !entry.used && entry.inFlight === 0 && this.now() - entry.lastSeen > this.unusedIdleMs;
  }

  /**
   * Free a slot for a session `opener` opens, synchronously (close() drops the entry from the
   * table before it awaits): every session past its limit (expired, or unused past
   * `unusedIdleMs`) first, else an idle session of the identity holding the most sessions, the new
   * one counted (so a caller opening many evicts its own, never another caller's only one); among
   * those, unused before used, least recently seen first. False when every session has a request
   * in flight.
   */
  private makeRoom(opener: Identity | undefined): boolean {
    const slots: HttpSession[] = [];
    let freed = false;
    for (const entry of this.sessions.values()) {
      // A one-request session holds no slot of the table: closing it frees none.
      if (this.oneRequest.has(entry.id)) continue;
      if (this.isExpired(entry)) {
        void this.close(entry.id, "idle");
        freed = true;
        continue;
      }
      if (this.isStaleUnused(entry)) {
        this.evict(entry, `it had done nothing since initialize for more than ${this.unusedIdleMs} ms (http.unusedSessionIdleMs)`, "unused past its limit");
        freed = true;
        continue;
      }
      slots.push(entry);
    }
    if (freed) return true;
    const victim = fairVictim(slots, {
      owner: (entry) => identityKey(entry.session.identity),
      opening: identityKey(opener),
      idle: (entry) => entry.inFlight === 0,
      before: (a, b) => (b.used && !a.used) || (a.used === b.used && a.lastSeen < b.lastSeen),
    });
    if (!victim) return false;
    this.evict(
      victim,
      victim.used ? "it was the least recently used idle one of the caller holding the most sessions" : "it was the least recently seen one, of the caller holding the most sessions, that had done nothing since initialize",
      `least recently used idle${victim.used ? "" : " unused"} session of the identity holding the most sessions`,
    );
    return true;
  }

  /** Close `entry` to make room; its id's 404 then says `why` (whyMissing), the log `logged`. */
  private evict(entry: HttpSession, why: string, logged: string): void {
    this.evicted.set(entry.id, why);
    if (this.evicted.size > EVICTED_MEMORY) this.evicted.delete(this.evicted.keys().next().value as string);
    void this.close(entry.id, `evicted: table full, ${logged}`);
  }

  private async sweep(): Promise<void> {
    const expired = [...this.sessions.values()].filter((entry) => this.isExpired(entry));
    await Promise.allSettled(expired.map((entry) => this.close(entry.id, "idle")));
  }
}
