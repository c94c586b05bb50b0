import { isInitializeRequest, isLegacyRequest } from "@modelcontextprotocol/server";
import { createServer, type IncomingMessage, type Server as NodeHttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { createRedactor } from "../../adapters/shared/redact.js";
import type { Logger } from "../../adapters/types.js";
import { escapeControls } from "../../log.js";
import type { Runtime } from "../../runtime/runtime.js";
import { sameIdentity, type Identity } from "../../runtime/access.js";
import type { Gateway } from "../../gateway/gateway.js";
import { DRAINING_RETRY_AFTER, opsAccessOf } from "../../gateway/ops-paths.js";
import { acceptBothMediaTypes, admitsSse, prefersSse } from "./accept.js";
import { parseJsonBody, readBody } from "./body.js";
import { checkBearer, checkHost, checkOrigin, requestHost, type Rejection } from "./guards.js";
import { allowOrigin, answerPreflight, listedOrigin } from "./cors.js";
import { MCP_PATH, type HttpOptions } from "./options.js";
import { captureResponse, describeBody, methodsForLog, outcomeOf, type RequestFacts } from "./request-log.js";
import { FLUSH_MS, OpenExchanges } from "./interrupted.js";
import { ListenStreams } from "./listen-streams.js";
import { shutdownWords } from "../shutdown.js";
import { abandonRequests, cancelledIdsOf, serveSession, SessionRegistry, withdrawCancelled, type HttpSession } from "./sessions.js";
import { duplicateIdMessage, replyIdOf, requestIdsOf } from "./request-ids.js";
import { refusedRequestIn } from "../refused-request.js";
import { wrongEraAnswer } from "../era-mismatch.js";
import { invalidParamsAnswer } from "../params-check.js";
import { authInfoFor, claimsModernEnvelope, createModernEntry, FIRST_MODERN_VERSION } from "./modern.js";

/**
 * The MCP facade over Streamable HTTP, on node:http, both protocol eras on one endpoint. This
 * module owns what the SDK leaves to its host: the defences (Host, Origin, bearer token, body
 * cap), era routing, session routing for 2025-era clients (one SDK transport per
 * Mcp-Session-Id), the session cap, and the request log.
 *
 * A request that carries the 2026-07-28 `_meta` envelope (recognised cheaply when it plainly
 * names the version, else the SDK's own `isLegacyRequest` decides) goes to `createMcpHandler` in strict
 * mode: per request, no session, an idle facade server of the caller's view reused (modern.ts),
 * through the same Node adapter the sessions use (modern-node.ts); a plain tools/call is answered
 * by the facade's fast lane in front of it (modern-lane.ts), exactly as the SDK would answer it.
 * Everything else goes to the sessionful 2025 wiring that existing clients rely on
 * (initialize, JSON or SSE answers, the GET notification stream, DELETE).
 */

export interface HttpFacade {
  readonly url: string;
  readonly address: AddressInfo;
  readonly sessions: SessionRegistry;
  /** POST requests being answered right now, open subscriptions/listen streams aside (draining waits for them). */
  inFlight(): number;
  /**
   * Answer every request still running as interrupted by `why` (interrupted.ts), as `close` does
   * first; for a shutdown cut short, which exits without closing the rest. Resolves with how many.
   */
  interrupt(why: string): Promise<number>;
  close(why?: string): Promise<void>;
}

/** How long an idle keep-alive connection stays open (see where it is set). */
const HTTP_IDLE_KEEPALIVE_MS = 130_000;

/** JSON-RPC's error shape, which MCP clients parse even on an HTTP error status. */
function sendRpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}, id: string | number | null = null): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id });
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** A JSON-RPC answer as the SDK would write it for a JSON session. */
function sendJson(res: ServerResponse, status: number, message: unknown): void {
  const body = JSON.stringify(message);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
  res.end(body);
}

function reject(res: ServerResponse, rejection: Rejection): void {
  sendRpcError(res, rejection.status, -32000, rejection.message, rejection.headers);
}

/**
 * Whether this request may read /metrics: with a token or identities configured, a caller that
 * authenticates and may use every plugin (the figures name all plugins and identities, which a
 * restricted identity must not learn). Otherwise the 401 or 403 is sent.
 */
/** A modern `agent_tools_exec` call without `workspace`: it would open a new workspace here. */
function opensWorkspace(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => {
    const params = (m as { method?: unknown; params?: { name?: unknown; arguments?: { workspace?: unknown } } } | null)?.params;
    return (m as { method?: unknown } | null)?.method === "tools/call" && params?.name === "agent_tools_exec" && !params.arguments?.workspace;
  });
}

/** A 2026-07-28 `subscriptions/listen` request: a stream of notifications, no call. */
function isListenRequest(body: unknown): boolean {
  return !Array.isArray(body) && (body as { method?: unknown } | null)?.method === "subscriptions/listen";
}

function isInitialize(body: unknown): boolean {
  return Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
}

/**
 * The request target as a URL. An origin-form target is read as a path: `//mcp` must stay the path
 * `//mcp` (as a relative reference it would name the host `mcp`); an absolute-form one (what a
 * forward proxy sends) is parsed as it is.
 */
function requestUrl(req: IncomingMessage): URL | undefined {
  const target = req.url ?? "/";
  try {
    return target.startsWith("/") ? new URL(`http://localhost${target}`) : new URL(target, "http://localhost");
  } catch {
    return undefined; // a client's malformed request line, answered 400 by the caller
  }
}

/** The MCP-Protocol-Version header names a stateless (2026-07-28 or later) revision. */
function namesModernVersion(req: IncomingMessage): boolean {
  const version = req.headers["mcp-protocol-version"];
  return typeof version === "string" && /^\d{4}-\d{2}-\d{2}$/.test(version) && version >= FIRST_MODERN_VERSION;
}

/** The request line and headers as a web Request, for era classification of an already-parsed body. */
function webRequestHead(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return new Request(new URL(req.url ?? "/", "http://localhost"), { method: req.method ?? "POST", headers });
}

/**
 * With a gateway (team mode and every `serveHttp`): identities instead of the one token, rate
 * limits, the operations paths (/metrics, /healthz, /readyz, protected resource metadata) and
 * draining. Without one (embedders, older tests): the single-token server as before.
 */
export async function startHttpFacade(runtime: Runtime, options: HttpOptions, log: Logger, gateway?: Gateway): Promise<HttpFacade> {
  const sessions = new SessionRegistry({ runtime, log, maxSessions: options.maxSessions, idleMs: options.sessionIdleMs, unusedIdleMs: options.unusedSessionIdleMs });
  /** The open session `id` names, when this caller may use it; otherwise the 404 or 403 is sent. */
  const callerSession = (res: ServerResponse, id: string, identity: Identity | undefined, replyId: string | number | null = null): HttpSession | undefined => {
    const entry = sessions.get(id);
    if (!entry) sendRpcError(res, 404, -32001, `Session not found: ${sessions.whyMissing(id)}; send initialize without Mcp-Session-Id to open a new one`, {}, replyId);
    // A session stays with the identity that opened it: another token cannot ride on its id.
    else if (!sameIdentity(entry.session.identity, identity)) sendRpcError(res, 403, -32000, "this session was opened by another identity; open your own with initialize", {}, replyId);
    else return entry;
    return undefined;
  };
  // A load balancer is named only in front of a team gateway: a one-user server has nobody to take over.
  const words = shutdownWords(gateway?.team === true);
  /** Draining: what this server no longer opens, said so the client retries (where: `words`). */
  const shuttingDown = (res: ServerResponse, refused: string, id: string | number | null = null): void =>
    sendRpcError(res, 503, -32000, `this ${words.who} is shutting down and ${refused}; retry ${words.retry}`, { "Retry-After": DRAINING_RETRY_AFTER, Connection: "close" }, id);
  const redactor = createRedactor([options.token]);
  const modern = createModernEntry(runtime, { maxBodyBytes: options.maxBodyBytes, log, redact: (text) => redactor.redact(text), workspaceIdleMs: options.sessionIdleMs, maxWorkspaces: options.maxWorkspaces });
  /** The POSTs being answered: closing answers those still running (interrupted.ts). */
  const exchanges = new OpenExchanges(words);
  /** The 2026-07-28 listen streams among them, which run no call (listen-streams.ts). */
  const listens = new ListenStreams();
  /** A session's POST, counted in flight (idle eviction passes over a session serving one); its last use is noted after. */
  const servePost = async (entry: HttpSession, req: IncomingMessage, res: ServerResponse, body: unknown, facts: RequestFacts): Promise<void> => {
    const ids = requestIdsOf(body);
    const clash = entry.requestIds.claim(ids);
    if (clash !== undefined) {
      sendRpcError(res, 400, -32600, duplicateIdMessage(clash));
      return;
    }
    // Freed once this POST's response has ended (an SSE stream ends after its last answer). A client
    // that left before then abandons its calls: they are cancelled, and their ids freed only once
    // their handlers have finished, so no later request is handed an abandoned call's answer.
    let abandoned: Promise<void> | undefined;
    res.once("close", () => {
      if (res.writableFinished) entry.requestIds.release(ids);
      else abandoned = abandonRequests(entry, ids);
    });
    entry.inFlight += 1;
    try {
      await serveSession(entry, req, res, body);
      // Its requests were cancelled by the client and it ended without their answers (withdrawn.ts).
      if (ids.some((id) => entry.requestIds.isWithdrawn(id))) facts.cancelled = true;
      // The SDK has aborted the handlers of the requests this body cancels: their POSTs end once those have finished.
      const cancelled = cancelledIdsOf(body);
      if (cancelled.length) withdrawCancelled(entry, cancelled);
      // Still in flight (not evicted) until its cancelled calls have ended.
      await abandoned;
    } finally {
      entry.inFlight -= 1;
      sessions.touch(entry);
    }
  };
  /**
   * A 2025-era POST without Mcp-Session-Id that is not initialize. The spec lets a server refuse it,
   * but clients written for the original runtime (its Pi extension) initialize and then never send
   * the id, and that server only checked the header when it was there. So it is served as if in a
   * session opened for this one request and closed after its answer: the same defences, identity and
   * rate limit as any request, a place in the sessionless allowance while it runs (never a session's
   * slot: sessions.ts), and no state carried to the
   * next request (text-layer shell, loop memory, discover history). A body of notifications (and
   * responses) only is accepted with 202 at once: there is no session for them to act on.
   */
  const serveSessionless = async (req: IncomingMessage, res: ServerResponse, body: unknown, mode: "json" | "sse", identity: Identity | undefined, facts: RequestFacts): Promise<void> => {
    facts.session = "none";
    if (requestIdsOf(body).length === 0) {
      res.writeHead(202).end();
      return;
    }
    const entry = await sessions.openSessionless(mode, identity);
    if (!entry) {
      sendRpcError(res, 503, -32000, `too many requests without Mcp-Session-Id at once: ${sessions.sessionlessAllowance} may run together (a quarter of http.maxSessions, at least 4) and that many are running; nothing was run. Retry in a few seconds, or initialize and send the Mcp-Session-Id it answers`, { "Retry-After": "5" }, replyIdOf(body));
      return;
    }
    log.debug(`http: ${methodsForLog(facts.rpcMethods) || "request"} came without Mcp-Session-Id; served in a one-request session (nothing carries to the next request)`);
    res.setHeader("Agent-Tools-Session", "none");
    // Closed once the answer has ended (an SSE stream may outlast servePost) or its client left.
    const ended = new Promise<void>((resolve) => res.once("close", resolve));
    try {
      await servePost(entry, req, res, body, facts);
      await ended;
    } finally {
      await sessions.close(entry.id, "sessionless request answered");
    }
  };
  gateway?.metrics.setSources({ openSessions: () => sessions.size, catalog: () => runtime.catalogStats(), isPlugin: (name) => runtime.plugin(name) !== undefined });

  const logRequest = (facts: RequestFacts, res: ServerResponse, started: number, body: () => string): void => {
    // A response never begun (the client left, or its connection was closed under it) is no "200 ok".
    const status = res.headersSent ? res.statusCode : undefined;
    const contentType = String(res.getHeader("content-type") ?? "");
    const outcome = status === undefined ? "unanswered" : outcomeOf(status, contentType, body(), facts);
    const parts = [
      `http ${facts.httpMethod} ${facts.path ?? "-"}`,
      facts.rpcMethods.length ? methodsForLog(facts.rpcMethods) : "-",
      ...(facts.tool ? [`tool=${facts.tool}`] : []),
      `session=${facts.session ? escapeControls(facts.session.slice(0, 8)) : "-"}`,
      `status=${status ?? "-"}`,
      outcome,
      `${Math.round(performance.now() - started)}ms`,
      ...(facts.lane ? ["lane"] : []),
    ];
    gateway?.metrics.httpRequests.inc({ status: String(status ?? "none") });
    const line = redactor.redact(parts.join(" "));
    if (facts.probe) log.debug(line);
    else if (status === undefined || status >= 500 || facts.interrupted) log.warn(line);
    else log.info(line);
  };

  /** The id of the one request in a POST's body, null when there is none to tell; "aborted" when the client left. */
  const replyIdOfPost = async (req: IncomingMessage): Promise<string | number | null | "aborted"> => {
    const body = await readBody(req, options.maxBodyBytes);
    if (body.kind === "aborted") return "aborted";
    if (body.kind !== "ok") return null;
    const parsed = parseJsonBody(body.text);
    return parsed.ok ? replyIdOf(parsed.value) : null;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, facts: RequestFacts): Promise<void> => {
    const url = requestUrl(req);
    if (!url) {
      sendRpcError(res, 400, -32000, `the request target '${escapeControls(String(req.url).slice(0, 200))}' is not a valid URL; send the path of the endpoint, e.g. 'POST ${MCP_PATH} HTTP/1.1'`);
      return;
    }
    facts.path = escapeControls(url.pathname.slice(0, 200));
    // Which instance answered: for operators reading balancer logs, and for clients' diagnostics.
    if (gateway) res.setHeader("Agent-Tools-Instance", gateway.state.instanceId);
    // Host and Origin on every path, the operations paths included: DNS rebinding must not read them either.
    const ops = gateway ? opsAccessOf(url.pathname) : undefined;
    facts.probe = ops === "probe";
    const refused = checkHost(req, options, { hostOptional: ops === "probe" }) ?? checkOrigin(req, options);
    if (refused) {
      reject(res, refused);
      return;
    }
    const corsOrigin = listedOrigin(req, options);
    if (corsOrigin) allowOrigin(res, corsOrigin);
    // A browser's preflight carries no credentials: it is answered before the token is asked for.
    if (corsOrigin && req.method === "OPTIONS" && url.pathname === MCP_PATH) {
      answerPreflight(req, res, corsOrigin);
      return;
    }
    if (gateway && ops) {
      const unreadable = ops === "metrics" ? await gateway.metricsRefusal(req) : undefined;
      if (unreadable) {
        reject(res, unreadable);
        return;
      }
      await gateway.serveOps(req, res, url.pathname);
      return;
    }
    if (url.pathname !== MCP_PATH) {
      sendRpcError(res, 404, -32000, `nothing at '${url.pathname}'; the MCP endpoint is ${MCP_PATH}`);
      return;
    }
    const rejection = gateway ? undefined : checkBearer(req, options);
    if (rejection) {
      reject(res, rejection);
      return;
    }
    let identity: Identity | undefined;
    if (gateway) {
      const auth = await gateway.auth.authenticate(req.headers.authorization, requestHost(req));
      if (!auth.ok) {
        reject(res, auth);
        return;
      }
      identity = auth.identity;
      const decision = await gateway.admit(identity);
      if (!decision.ok) {
        // Read (bounded) only to answer with the request's id: a client matches its call's error by it.
        const replyId = req.method === "POST" ? await replyIdOfPost(req) : null;
        if (replyId === "aborted") return;
        const message = `identity '${identity?.name}' sent more than ${decision.limit} requests this minute (its ratePerMinute); nothing was run. Send it again after ${decision.retryAfterSeconds} s (Retry-After), or ask the gateway's operator to raise this identity's ratePerMinute in the config's team block`;
        sendRpcError(res, 429, -32000, message, { "Retry-After": String(decision.retryAfterSeconds) }, replyId);
        return;
      }
    }
    // Node joins repeated headers with ", ": only the distinct view tells two headers (or one id sent twice) from one.
    const sessionHeaders = req.headersDistinct["mcp-session-id"] ?? [];
    if (sessionHeaders.length > 1) {
      sendRpcError(res, 400, -32000, `send one Mcp-Session-Id header, not several (this request has ${sessionHeaders.length}): repeat only the id initialize answered`);
      return;
    }
    const header = sessionHeaders[0];
    facts.session = header;
    const method = req.method ?? "GET";

    if (method === "POST") {
      const body = await readBody(req, options.maxBodyBytes);
      if (body.kind === "aborted") return;
      if (body.kind === "too-large") {
        // A body on its way is read and thrown away (body.ts) so the client sees this answer; only a
        // body the client still holds back would be misread as the connection's next request.
        sendRpcError(res, 413, -32000, `the request body is larger than ${body.limit} bytes (AGENT_TOOLS_HTTP_MAX_BODY_BYTES)`, body.unsent ? { Connection: "close" } : {});
        return;
      }
      const parsed = parseJsonBody(body.text);
      if (!parsed.ok) {
        sendRpcError(res, 400, -32700, `Parse error: ${parsed.message}`);
        return;
      }
      Object.assign(facts, describeBody(parsed.value));
      const refused = refusedRequestIn(parsed.value);
      if (refused) {
        sendRpcError(res, 400, -32600, refused.message, {}, refused.id);
        return;
      }
      // initialize / logging/setLevel with bad params: -32602 naming them, not the SDK's -32603 (params-check.ts). A batch goes to the SDK whole.
      const invalid = invalidParamsAnswer(parsed.value);
      if (invalid) {
        sendJson(res, 200, invalid);
        return;
      }
      // A discover without the 2026-07-28 envelope, or an envelope naming a 2025 version: named as such, as over stdio (era-mismatch.ts).
      const wrongEra = wrongEraAnswer(parsed.value);
      if (wrongEra) {
        sendJson(res, 400, wrongEra);
        return;
      }
      if (header === undefined && (claimsModernEnvelope(parsed.value) || !(await isLegacyRequest(webRequestHead(req), parsed.value, { maxRequestBodySize: options.maxBodyBytes })))) {
        facts.session = "modern";
        if (gateway?.draining && opensWorkspace(parsed.value)) {
          shuttingDown(res, "opens no new workspaces", replyIdOf(parsed.value));
          return;
        }
        // A listen stream is no call: the drain does not wait for it, and closing ends it as the SDK does.
        if (isListenRequest(parsed.value)) {
          // It has no JSON form: a client that did not accept SSE could not read it (the Accept is as sent: modern.ts answers its other requests in JSON).
          if (!admitsSse(req.headers.accept)) {
            sendRpcError(res, 406, -32000, `Not Acceptable: subscriptions/listen answers with a stream of events (Content-Type: text/event-stream), which this request's Accept header does not admit (${req.headers.accept === undefined ? "none was sent" : `'${escapeControls(req.headers.accept.slice(0, 200))}'`}); send 'Accept: application/json, text/event-stream', as the protocol asks of every request`, {}, replyIdOf(parsed.value));
            return;
          }
          exchanges.release(res);
          listens.add(res);
        }
        // The gateway's identity rides as the request's authInfo (see modern.ts).
        const authInfo = identity ? authInfoFor(identity) : undefined;
        // A plain tools/call is answered by the fast lane (modern-lane.ts), the rest by the SDK.
        if (modern.lane && (await modern.lane.take(req, res, parsed.value, authInfo, () => (facts.lane = true)))) return;
        await modern.serve(req, res, parsed.value, authInfo);
        return;
      }
      // 2025 era: decided on the header as sent (JSON for a JSON-only client), then completed for the SDK's transport (accept.ts).
      const sse = prefersSse(req.headers.accept);
      acceptBothMediaTypes(req);
      if (header !== undefined) {
        // A 2026-07-28 request carrying a session id, open or stale: the fix is to drop the header
        // (not to initialize, and not the version error the session's own SDK transport would give).
        // One answer whether the session is open or not, so it tells no one which ids are.
        const modernBy = claimsModernEnvelope(parsed.value) ? "the 2026-07-28 _meta envelope" : namesModernVersion(req) ? `MCP-Protocol-Version ${String(req.headers["mcp-protocol-version"])}` : undefined;
        if (modernBy) {
          sendRpcError(
            res,
            400,
            -32000,
            `Bad Request: this request carries ${modernBy}, and 2026-07-28 requests belong to no session: send it without the Mcp-Session-Id header. Requests of a 2025-era session carry its Mcp-Session-Id with the MCP-Protocol-Version that session agreed (2025-11-25 or earlier) and no 2026-07-28 _meta envelope`,
            {},
            replyIdOf(parsed.value),
          );
          return;
        }
        const entry = callerSession(res, header, identity, replyIdOf(parsed.value));
        if (!entry) return;
        sessions.touch(entry, facts.rpcMethods);
        await servePost(entry, req, res, parsed.value, facts);
        return;
      }
      if (!isInitialize(parsed.value)) {
        await serveSessionless(req, res, parsed.value, sse ? "sse" : "json", identity, facts);
        return;
      }
      if (gateway?.draining) {
        shuttingDown(res, "takes no new sessions", replyIdOf(parsed.value));
        return;
      }
      const entry = await sessions.open(sse ? "sse" : "json", identity);
      if (!entry) {
        sendRpcError(res, 503, -32000, `too many open sessions: all ${options.maxSessions} (http.maxSessions) have a request in flight; retry in a few seconds`, { "Retry-After": "5" }, replyIdOf(parsed.value));
        return;
      }
      facts.session = entry.id;
      await servePost(entry, req, res, parsed.value, facts);
      // The SDK sets the id only once initialize succeeded; a rejected one leaves nothing open.
      if (entry.transport.sessionId === undefined) await sessions.close(entry.id, "initialize rejected");
      return;
    }

    if (method === "GET" || method === "DELETE") {
      // The 2026-07-28 era has no session, so no notification stream and nothing to delete. Decided
      // before the Mcp-Session-Id is looked at: the answer must not tell which ids are open.
      if (namesModernVersion(req)) {
        sendRpcError(res, 405, -32000, `${method} is not part of the stateless protocol (${req.headers["mcp-protocol-version"]}): send each request as a POST; there is no session to open a stream on or to delete`, { Allow: "POST" });
        return;
      }
      if (header === undefined) {
        sendRpcError(res, 400, -32000, `Bad Request: ${method} needs the Mcp-Session-Id header of an open session`);
        return;
      }
      const entry = callerSession(res, header, identity);
      if (!entry) return;
      // A client that opened its notification stream is using its session, first call or not.
      sessions.touch(entry, [], method === "GET");
      await serveSession(entry, req, res);
      return;
    }

    sendRpcError(res, 405, -32000, `method ${method} is not allowed; use POST, GET or DELETE`, { Allow: "GET, POST, DELETE" });
  };

  const server: NodeHttpServer = createServer((req, res) => {
    const started = performance.now();
    const facts: RequestFacts = { httpMethod: req.method ?? "?", rpcMethods: [] };
    const body = captureResponse(res);
    // Draining waits for requests that run calls (POST), not for open notification streams (GET;
    // a 2026-07-28 subscriptions/listen is released once its body has been read).
    if (req.method === "POST") exchanges.add(res, { facts, written: body });
    res.once("close", () => logRequest(facts, res, started, body));
    handle(req, res, facts).catch((error: unknown) => {
      log.error(`http request failed: ${redactor.redact(error instanceof Error ? (error.stack ?? error.message) : String(error))}`);
      sendRpcError(res, 500, -32603, "Internal error: the server failed on this request; it keeps serving others");
    });
  });
  // `Expect: 100-continue` with a body over the cap: answer 413 at once instead of inviting the body
  // (Node would send 100 Continue before the handler runs). Otherwise continue as Node would.
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
    const declared = Number(req.headers["content-length"]);
    if (!(Number.isFinite(declared) && declared > options.maxBodyBytes)) res.writeContinue();
    server.emit("request", req, res);
  });
  // A client that sends headers byte by byte must not hold a socket forever.
  server.headersTimeout = 30_000;
  server.requestTimeout = 120_000;
  // Behind a load balancer the balancer, not the instance, must be the side that closes an idle
  // connection: when the instance closes one just as the balancer reuses it for the next request,
  // HAProxy drops the client's connection without an answer (its "abort keep-alive" path, not even
  // logged) and a client that does not retry POSTs sees "fetch failed". Node's 5 s default made
  // that race frequent on a loaded host; this is longer than the idle timeouts of common balancers
  // (HAProxy's `timeout server` in the README's config, nginx and cloud balancers' 60 s).
  server.keepAliveTimeout = HTTP_IDLE_KEEPALIVE_MS;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${hostForUrl}:${address.port}${MCP_PATH}`;

  const interrupt = async (why: string): Promise<number> => {
    const interrupted = await exchanges.interruptAll(why);
    if (interrupted) log.warn(`closing (${why}): ${interrupted} request(s) still running were answered as interrupted; their effect is unknown`);
    return interrupted;
  };
  let closing: Promise<void> | undefined;
  const close = (why = "close"): Promise<void> => {
    closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      // Before the sessions, workspaces and connections close under them: each request still
      // running is told it was interrupted, rather than finding its connection gone.
      await interrupt(why);
      // Ends each listen stream with its final result (the spec's graceful close), then lets those reach the sockets.
      await modern.close();
      await listens.ended(FLUSH_MS);
      await sessions.closeAll(why);
      server.closeAllConnections();
      await stopped;
    })();
    return closing;
  };
  return { url, address, sessions, inFlight: () => exchanges.size, interrupt, close };
}
