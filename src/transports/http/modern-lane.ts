import type { IncomingMessage, ServerResponse } from "node:http";
import {
  CLIENT_CAPABILITIES_META_KEY,
  isJSONRPCRequest,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  SERVER_INFO_META_KEY,
  type AuthInfo,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { createFastLane, errorResponse, splitMeta } from "../../facade/fast-lane.js";
import { facadeCallEntry, type FacadeCallEntry } from "../../facade/server.js";
import { isPlainObject } from "../../plain-object.js";
import type { ModernNodeHandler } from "./modern-node.js";

/**
 * The facade's fast lane (facade/fast-lane.ts) on the HTTP facade's 2026-07-28 leg: a plain
 * stateless `tools/call` or `tools/list` is answered by the facade's handler without
 * `createMcpHandler`, with the status, headers and body the SDK would have sent.
 *
 * Why: per request the SDK's modern leg builds a web Request and Response around node:http,
 * classifies the body, leases a Server, connects it to a one-exchange transport, builds an abort
 * controller and a request context, and closes the exchange again (a "Connection closed" error and
 * an abort of the finished request's signal included). That work is the modern era's alone: a
 * 2025-era session pays its own share once per session. It made a modern request cost 1.08–1.15×
 * a legacy one in server CPU (docs/protocol-log.md "Modern against legacy, per request";
 * bench/protocol.ts), against a goal of 1.10×.
 *
 * What the lane takes, the SDK certainly answers with a JSON `200` (its "auto" response mode stays
 * JSON when nothing is sent before the result), so the lane takes only:
 *  - one JSON-RPC `tools/call` request (no batch, no other member than jsonrpc/id/method/params),
 *    with a JSON Content-Type;
 *  - whose `_meta` envelope names 2026-07-28, declares client capabilities, sets no log level (log
 *    messages ride the exchange's SSE stream), and is one the SDK has already accepted on an
 *    earlier request of this process (`acceptedEnvelope`; its schema is the SDK's);
 *  - whose standard headers are each sent once and agree with the body exactly:
 *    MCP-Protocol-Version, Mcp-Method, and Mcp-Name (not Base64-encoded);
 *  - and that the stdio lane itself would take (no progress token, no retry fields, not a client
 *    that can be asked: see fast-lane.ts).
 * A `tools/list` likewise, with nothing in its params but the envelope (no cursor, no other
 * `_meta`) and no Mcp-Name; its result is encoded as the SDK's codec encodes the facade's list.
 * Everything else goes to the SDK as before, and so does a call the lane hands over midway.
 * A client that goes away mid-call aborts the call as the SDK's closed exchange does, and gets no
 * answer. `AGENT_TOOLS_FAST_LANE=off` turns it off (test/http.fast-lane.test.ts compares both).
 */

/** What the lane needs from the modern entry (modern.ts). */
export interface ModernLaneOptions {
  /**
   * A facade Server of the caller's view that no transport is ever connected to: the lane only
   * runs its tools/call handler, which keeps nothing of a request on the Server.
   */
  server(authInfo: AuthInfo | undefined): Server;
  /** Whether the SDK has accepted this envelope (JSON text of the lifted envelope) before. */
  acceptedEnvelope(envelope: Record<string, unknown>): boolean;
  /** The SDK's leg, for a call the lane hands over. */
  toSdk: ModernNodeHandler;
  onerror(error: Error): void;
}

export interface ModernLane {
  /**
   * true: the request was answered here (or handed to the SDK midway); false: nothing was done,
   * serve it through the SDK. `taken` runs at once when the lane takes it (for the request log).
   */
  take(req: IncomingMessage, res: ServerResponse, body: unknown, authInfo: AuthInfo | undefined, taken?: () => void): Promise<boolean>;
  /** tools/call requests the lane took, those of them it began and then handed to the SDK, and tools/list requests it answered (logged at close; the differential test reads them). */
  readonly counts: { taken: number; handedOver: number; lists: number };
}

/** The revision the lane answers; a later one goes to the SDK, which knows what it may require. */
const REVISION = "2026-07-28";
const CALL = "tools/call";
const LIST = "tools/list";
const REQUEST_MEMBERS = new Set(["jsonrpc", "id", "method", "params"]);
/** An Mcp-Name value the SDK would Base64-decode first starts so. */
const BASE64_SENTINEL = "=?";
const NOT_TAKEN = Promise.resolve(false);
/** The signal of a lane tools/list: the facade's list never looks at it, nor waits on anything a client could cancel. */
const NEVER_ABORTED = new AbortController().signal;

/** The standard headers, each only when sent exactly once (a repeated header is joined by the SDK's Request: left to it). */
function standardHeaders(req: IncomingMessage): { contentType?: string; version?: string; method?: string; name?: string } | undefined {
  const found: { contentType?: string; version?: string; method?: string; name?: string } = {};
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const key = raw[i]!.toLowerCase();
    const slot = key === "content-type" ? "contentType" : key === "mcp-protocol-version" ? "version" : key === "mcp-method" ? "method" : key === "mcp-name" ? "name" : undefined;
    if (slot === undefined) continue;
    if (found[slot] !== undefined) return undefined;
    found[slot] = raw[i + 1]!;
  }
  return found;
}

/**
 * Which request `body` (with `req`'s headers) is, when the lane may take it: a tools/call (the
 * stdio lane's own checks follow) or a tools/list with nothing in its params but the envelope.
 */
function plainModernRequest(req: IncomingMessage, body: unknown): typeof CALL | typeof LIST | undefined {
  if (!isPlainObject(body) || (body.method !== CALL && body.method !== LIST) || !isJSONRPCRequest(body)) return undefined;
  for (const key in body) if (!REQUEST_MEMBERS.has(key)) return undefined;
  const params = body.params;
  const meta = isPlainObject(params) ? params._meta : undefined;
  if (!isPlainObject(params) || !isPlainObject(meta)) return undefined;
  if (meta[PROTOCOL_VERSION_META_KEY] !== REVISION || LOG_LEVEL_META_KEY in meta || !isPlainObject(meta[CLIENT_CAPABILITIES_META_KEY])) return undefined;
  const headers = standardHeaders(req);
  if (headers === undefined || headers.contentType !== "application/json" || headers.version !== REVISION || headers.method !== body.method) return undefined;
  if (body.method === LIST) {
    // No cursor (the facade's list is one page), no Mcp-Name (the SDK ignores one on a list; the lane does not guess).
    for (const key in params) if (key !== "_meta") return undefined;
    return headers.name === undefined ? LIST : undefined;
  }
  return typeof params.name === "string" && headers.name === params.name && !params.name.startsWith(BASE64_SENTINEL) ? CALL : undefined;
}

/**
 * A facade tools/list result encoded as the SDK's 2026-07-28 codec encodes it: `resultType`, then
 * the cache hint the Server was given (`ttlMs`, `cacheScope`), then the identity stamp. A facade
 * list is `{tools}` whose tools carry no `execution` (which the codec would strip); anything else
 * cannot come from the facade and fails loudly instead of being guessed at.
 */
function encodedList(result: unknown, entry: FacadeCallEntry): Record<string, unknown> {
  if (isPlainObject(result) && Array.isArray(result.tools) && Object.keys(result).length === 1 && !result.tools.some((tool: unknown) => isPlainObject(tool) && "execution" in tool)) {
    return { tools: result.tools, resultType: "complete", ttlMs: entry.listCacheHint.ttlMs, cacheScope: entry.listCacheHint.cacheScope, _meta: { [SERVER_INFO_META_KEY]: entry.serverInfo } };
  }
  throw new ProtocolError(ProtocolErrorCode.InternalError, "the fast lane got a tools/list result that is not the facade's list (a bug: AGENT_TOOLS_FAST_LANE=off works around it)");
}

/** The JSON answer as the SDK's one-exchange transport sends it (an in-band error is a 200 too, except the one the spec gives a 400). */
function writeAnswer(res: ServerResponse, response: JSONRPCResponse): void {
  const body = JSON.stringify(response);
  const failed = "error" in response ? response.error.code : undefined;
  res.writeHead(failed === ProtocolErrorCode.MissingRequiredClientCapability ? 400 : 200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

export function createModernLane(options: ModernLaneOptions): ModernLane {
  const counts = { taken: 0, handedOver: 0, lists: 0 };
  /** A tools/list: the facade's list handler, with the request context it reads (the envelope's capabilities, the caller). */
  const takeList = (res: ServerResponse, body: JSONRPCRequest, authInfo: AuthInfo | undefined, taken: (() => void) | undefined): Promise<boolean> => {
    const split = splitMeta(body.params!._meta as Record<string, unknown>);
    const envelope = split?.envelope;
    if (!envelope || split.rest !== undefined || !options.acceptedEnvelope(envelope)) return NOT_TAKEN;
    const entry = facadeCallEntry(options.server(authInfo));
    if (!entry) return NOT_TAKEN;
    counts.lists++;
    taken?.();
    const ctx = { ...(authInfo ? { http: { authInfo } } : {}), mcpReq: { id: body.id, method: LIST, _meta: undefined, envelope, signal: NEVER_ABORTED } } as unknown as ServerContext;
    const answer = (response: JSONRPCResponse): boolean => {
      if (!res.destroyed) writeAnswer(res, response);
      return true;
    };
    return entry.list(ctx).then(
      (result) => answer({ result: encodedList(result, entry), jsonrpc: "2.0", id: body.id } as JSONRPCResponse),
      (error: unknown) => answer(errorResponse(body.id, error)),
    );
  };

  const take: ModernLane["take"] = (req, res, body, authInfo, taken) => {
    const method = plainModernRequest(req, body);
    if (method === undefined) return NOT_TAKEN;
    if (method === LIST) return takeList(res, body as JSONRPCRequest, authInfo, taken);
    return new Promise<boolean>((resolve) => {
      const lane = createFastLane({
        era: "2026",
        server: () => options.server(authInfo),
        acceptedEnvelope: options.acceptedEnvelope,
        ...(authInfo ? { http: { authInfo } } : {}),
        reply: async (response) => {
          if (!res.destroyed) writeAnswer(res, response);
          resolve(true);
        },
        toSdk: (message: JSONRPCMessage) => {
          counts.handedOver++;
          resolve(options.toSdk(req, res, message, authInfo).then(() => true));
        },
        onerror: options.onerror,
      });
      if (!lane.take(body as JSONRPCMessage)) {
        resolve(false);
        return;
      }
      counts.taken++;
      taken?.();
      // The client went away mid-call: abort it as the SDK's closed exchange would (nothing is answered).
      res.once("close", () => {
        lane.close();
        resolve(true);
      });
    });
  };
  return { take, counts };
}
