import { createMcpHandler, PROTOCOL_VERSION_META_KEY, type AuthInfo, type McpHttpHandler, type Server, type ServerContext } from "@modelcontextprotocol/server";
import { identityViewKey, type Identity } from "../../runtime/access.js";
import type { Logger } from "../../adapters/types.js";
import { createFacade, type SessionScope } from "../../facade/server.js";
import { ServerPool, type HandlerScope } from "../../facade/server-pool.js";
import { fastLaneEnabled } from "../../facade/fast-lane.js";
import { createModernLane, type ModernLane } from "./modern-lane.js";
import { modernNodeHandler, type ModernNodeHandler } from "./modern-node.js";
import { admitsSse } from "./accept.js";
import { Workspaces, type WorkspaceStore } from "../../runtime/workspaces.js";
import { workspaceHandleArgument } from "../../runtime/workspace-argument.js";
import { callerName, identityFromAuth, identityOf } from "../../facade/caller.js";
import { RuntimeError } from "../../runtime/errors.js";
import type { Runtime } from "../../runtime/runtime.js";
import { createFleetEventBus } from "../../gateway/event-bus.js";
import type { Session } from "../../runtime/session.js";
import { CallerSessions } from "./caller-sessions.js";

/**
 * Sessions for 2026-07-28 requests, which carry no session id. search/discover/call/run_skill
 * act in one session per caller identity (loop memory, jobs). agent_tools_exec runs in
 * a workspace: a call without `workspace` opens a new one and answers its signed handle, a call
 * with one continues it and does not echo it (runtime/workspaces.ts).
 */
export interface ModernScope extends SessionScope {
  close(): Promise<void>;
}

/** The request's `authInfo` for a team identity the gateway verified (read back by facade/caller.ts). */
export function authInfoFor(identity: Identity): AuthInfo {
  return { token: "", clientId: identity.name, scopes: [], extra: { identity } };
}

const identityIn = (ctx: ServerContext): Identity | undefined => identityFromAuth(ctx.http?.authInfo);

export interface ModernScopeOptions {
  workspaceStore?: WorkspaceStore;
  workspaceKey?: Buffer;
  workspaceIdleMs?: number;
  /** At most this many workspaces with a shell in this process (runtime/workspaces.ts). */
  maxWorkspaces?: number;
  now?: () => number;
}

/** How long a caller's session outlives its last call when no idle limit is given (the HTTP sessions' default). */
const DEFAULT_CALLER_IDLE_MS = 30 * 60_000;

function createModernScope(runtime: Runtime, options: ModernScopeOptions = {}): ModernScope & { workspaces: Workspaces } {
  const callers = new CallerSessions({
    create: (id, identity) => runtime.createSession(id, identity),
    idleMs: options.workspaceIdleMs ?? DEFAULT_CALLER_IDLE_MS,
    ...(options.now ? { now: options.now } : {}),
    onDrop: (session, why) => runtime.log.debug(`http modern: closed the session of ${session.identity?.name ?? "the caller"} (${why}); its next call opens a new one`),
  });
  const key = options.workspaceKey;
  // A team gateway on Redis: workspace records are the fleet's, and each names the instance holding its shell.
  const state = runtime.state;
  const heartbeats = state.heartbeats;
  const loss = state.stateLoss;
  const fleet =
    state.backend === "redis" && heartbeats
      ? { instance: state.instanceId, settle: (instance: string) => heartbeats.settle(instance), ...(loss ? { waitForRewrite: loss.waitForRewrite.bind(loss), checkLoss: () => loss.check() } : {}) }
      : undefined;
  const store = options.workspaceStore ?? state.workspaces;
  const workspaces = new Workspaces({
    ...(key ? { key } : {}),
    ...(store ? { store } : {}),
    ...(fleet ? { fleet } : {}),
    ...(options.workspaceIdleMs ? { idleMs: options.workspaceIdleMs } : {}),
    ...(options.maxWorkspaces ? { maxLive: options.maxWorkspaces } : {}),
    ...(options.now ? { now: options.now } : {}),
    onSweepFailed: (error) => runtime.log.warn(`workspaces: could not close idle workspaces (${error.message}); the next sweep tries again`),
  });
  // Redis lost its data: the records of the shells held here go back at once, so no other instance takes them for lost.
  const stopRewriting = loss?.onLoss(() => workspaces.rewriteRecords());
  // By the whole identity: a narrower token of the same name gets a session of its own.
  const sessionOf = (ctx: Parameters<ModernScope["session"]>[0]): Session => callers.sessionFor(identityOf(ctx), identityIn(ctx));
  return {
    workspaces,
    session: sessionOf,
    freeSandboxMemory: (neededBytes, bytesHeldBy) => workspaces.freeBytes(neededBytes, bytesHeldBy),
    async execSession(ctx, args) {
      try {
        const identity = identityIn(ctx);
        // Handles are signed for the name (so a reissued token of the same rights keeps its
        // workspace); the workspace itself refuses a caller whose rights differ from its creator's.
        const who = callerName(ctx);
        const handle = workspaceHandleArgument(args.workspace);
        const opened = handle ? await workspaces.open(handle, who, identity) : await workspaces.create(who, identity);
        // The handle (~60 tokens) only when the caller does not have it already: new, or not the one it sent.
        const answer: Record<string, unknown> = opened.handle === handle ? {} : { workspace: opened.handle };
        if (opened.created) answer.workspaceNote = "pass this `workspace` on your next agent_tools_exec calls to keep files, variables and the working folder";
        if (opened.note) answer.workspaceNote = opened.note;
        // Its plugin calls' jobs are the caller's (session.ts `jobs`): the same from _call, and they outlive the workspace.
        opened.session.jobs = sessionOf(ctx);
        // Released once the command line ended: a workspace with a call in flight is never closed.
        return { session: opened.session, answer, release: opened.release };
      } catch (error) {
        if (error instanceof RuntimeError) return { error };
        throw error;
      }
    },
    async close() {
      stopRewriting?.();
      await workspaces.close();
      await callers.closeAll();
    },
  };
}

const sendNothing = (): Promise<void> => Promise.resolve();

/**
 * The request's context, answered in the media type the client accepted. The SDK turns a modern
 * answer into an SSE stream as soon as the handler sends anything before its result (progress on
 * a progressToken, log messages when the envelope sets a level), whatever the request's Accept
 * said. A client that did not name text/event-stream (`Accept: application/json`, or none) could
 * not read that, so for it those notifications are dropped, as the SDK's own "json" response mode
 * drops them, and the answer stays JSON.
 */
function answeredAsAccepted(ctx: ServerContext): ServerContext {
  if (admitsSse(ctx.http?.req?.headers.get("accept"))) return ctx;
  return { ...ctx, mcpReq: { ...ctx.mcpReq, notify: sendNothing, log: sendNothing } };
}

/** Envelopes the lane remembers as accepted; a client sends the same one on every request, and a full set starts over. */
const MAX_ACCEPTED_ENVELOPES = 256;

/** The first revision of the stateless era: a request whose envelope names it or a later one is modern. */
export const FIRST_MODERN_VERSION = "2026-07-28";

/**
 * The common modern request, recognised without the SDK's full classification: one JSON-RPC
 * message (not `initialize`) whose `_meta` envelope names a 2026-07-28-or-later protocol version.
 * createMcpHandler classifies it again anyway (and answers a malformed one with its own error),
 * so the HTTP server asks `isLegacyRequest` only for what this does not recognise; that saves
 * one classification per modern request (bench/protocol.ts).
 */
export function claimsModernEnvelope(body: unknown): boolean {
  if (!body || typeof body !== "object" || Array.isArray(body)) return false;
  const { method, params } = body as { method?: unknown; params?: { _meta?: Record<string, unknown> } };
  if (typeof method !== "string" || method === "initialize") return false;
  const version = params?._meta?.[PROTOCOL_VERSION_META_KEY];
  return typeof version === "string" && /^\d{4}-\d{2}-\d{2}$/.test(version) && version >= FIRST_MODERN_VERSION;
}

export interface ModernEntry {
  /** The SDK's per-request handler in strict mode (2025-era traffic goes to the session table instead). */
  readonly handler: McpHttpHandler;
  /** The SDK's leg on node:http (modern-node.ts). */
  readonly serve: ModernNodeHandler;
  /** The fast lane in front of it (modern-lane.ts); undefined when AGENT_TOOLS_FAST_LANE=off. */
  readonly lane: ModernLane | undefined;
  readonly workspaces: Workspaces;
  close(): Promise<void>;
}

/**
 * The 2026-07-28 leg of the HTTP facade: `createMcpHandler` over the facade's per-request
 * factory (the runtime, its plugins and search index are the process's; a request only gets a
 * Server instance, an idle one reused from its caller's pool when there is one). Tool changes go
 * out on `subscriptions/listen`. Tests drive `handler.fetch` directly, without a socket.
 */
export function createModernEntry(
  runtime: Runtime,
  options: { maxBodyBytes?: number; log?: Logger; redact?: (text: string) => string; fastLane?: boolean } & ModernScopeOptions = {},
): ModernEntry {
  const facade = createFacade(runtime);
  const scope = createModernScope(runtime, options);
  const redact = options.redact ?? ((text: string) => text);
  const laneOn = options.fastLane ?? fastLaneEnabled();
  // The envelopes the SDK let through to a handler (JSON text, as the stdio lane keeps them): the
  // fast lane takes a request only with one of these, so the SDK's envelope schema stays the judge.
  const acceptedEnvelopes = new Set<string>();
  const learn = (ctx: ServerContext): void => {
    const envelope = ctx.mcpReq.envelope;
    if (!envelope) return;
    if (acceptedEnvelopes.size >= MAX_ACCEPTED_ENVELOPES) acceptedEnvelopes.clear();
    acceptedEnvelopes.add(JSON.stringify(envelope));
  };
  // One pool of reusable Servers per caller view (server-pool.ts): the scope and tool view a
  // Server's handlers close over are the same for every request of one identity. Beside it, the
  // view's one Server for the fast lane, never connected: the lane only runs its handler.
  interface View {
    scope: SessionScope;
    pool: ServerPool;
    laneServer?: Server;
  }
  const views = new Map<string, View>();
  const viewFor = (identity: Identity | undefined): View => {
    const key = identityViewKey(identity);
    let view = views.get(key);
    if (!view) {
      const bound: SessionScope = identity ? { ...scope, identity } : scope;
      const around = (pooled: HandlerScope): HandlerScope => (ctx, run) => {
        if (laneOn) learn(ctx);
        return pooled(answeredAsAccepted(ctx), run);
      };
      view = { scope: bound, pool: new ServerPool((pooled) => facade.server(bound, around(pooled))) };
      if (views.size >= 1_000) views.clear();
      views.set(key, view);
    }
    return view;
  };
  const handler = createMcpHandler((ctx) => viewFor(identityFromAuth(ctx.authInfo)).pool.acquire(), {
    legacy: "reject",
    // Team mode: tool-list changes reach the subscribers of every instance, not only this one's.
    ...(runtime.state.backend === "redis" ? { bus: createFleetEventBus(runtime.state.pubsub, (error) => options.log?.warn(`fleet event bus: ${error.message}`)) } : {}),
    ...(options.maxBodyBytes ? { maxRequestBodySize: options.maxBodyBytes } : {}),
    onerror: (error) => options.log?.debug(`http modern: ${redact(error.message)}`),
  });
  // Every subscriber hears one notice (the SDK's notifier has no per-caller one): sent only when
  // the list some caller was answered changed, not on every downstream change behind _discover.
  const unsubscribe = runtime.onToolsChanged(() => {
    if (facade.requestListsChanged()) handler.notify.toolsChanged();
  });
  const serve = modernNodeHandler(handler, (error) => options.log?.warn(`http modern: ${redact(error.message)}`));
  const lane = laneOn
    ? createModernLane({
        server: (authInfo) => {
          const view = viewFor(identityFromAuth(authInfo));
          return (view.laneServer ??= facade.server(view.scope));
        },
        acceptedEnvelope: (envelope) => acceptedEnvelopes.has(JSON.stringify(envelope)),
        toSdk: serve,
        onerror: (error) => options.log?.debug(`http modern lane: ${redact(error.message)}`),
      })
    : undefined;
  return {
    handler,
    serve,
    lane,
    workspaces: scope.workspaces,
    async close() {
      unsubscribe();
      if (lane) options.log?.debug(`http fast lane: ${lane.counts.taken} tools/call taken, ${lane.counts.handedOver} of them handed to the SDK; ${lane.counts.lists} tools/list answered`);
      await handler.close().catch(() => undefined);
      await scope.close();
    },
  };
}
