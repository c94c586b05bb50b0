import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  isInputRequiredResult,
  LOG_LEVEL_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  type JSONRPCMessage,
  type JSONRPCResponse,
  type LoggingLevel,
  type RequestId,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { isOffValue } from "../env-switch.js";
import { facadeCallEntry, type FacadeCallEntry } from "./server.js";
import { isPlainObject } from "../plain-object.js";
import { Cancel, CANCEL_OF_REQUEST } from "../cancel.js";
import { asPromise } from "../as-promise.js";

/**
 * The fast lane of the hot request: a facade `tools/call` answered without the SDK's per-request
 * machinery, by the same handler, with the same bytes on the wire.
 *
 * Why it exists: through the SDK a facade call passes a serving entry's queue, three or four zod
 * guards that classify the message, a zod check of the whole request and of the result, a context
 * object of a dozen closures, and several promise layers, before and after a handler that itself
 * costs less than all that (docs/internals.md "The fast lane of a facade call": in a profile of 16
 * callers over stdio, at least a sixth of the runtime's busy samples). No public SDK option skips any of it. The lane takes only what it can answer exactly as the SDK would:
 *  - a `tools/call` request on a connection whose era is settled (after `initialize`, or on a
 *    pinned 2026-07-28 connection), whose params are only `name` (a string), `arguments` (absent
 *    or an object) and `_meta`, with no progress token (progress rides the SDK's request
 *    relation) and no retry fields (`requestState`/`inputResponses` need the SDK's verify hook);
 *  - in the 2026-07-28 era, only with an envelope the SDK has already accepted on an earlier
 *    request of this connection (its schema is the SDK's own);
 *  - not a call that may need the SDK midway (FacadeCallEntry.needsSdk): a 2026-07-28 client that
 *    declared elicitation or sampling (its calls are held open across input_required rounds), a
 *    2025-era skill that may stop for the user's confirmation after it already called the downstream.
 * Everything else goes to the SDK unchanged. What a call does midway through the SDK would have
 * done through its request context goes through the Server's public API instead: log messages
 * (the client's level filter applied as the SDK applies it), elicitation and sampling requests of a
 * downstream server and the confirmation gate's questions in the 2025 era (ask-confirm.ts). A call
 * that still ends in `input_required` in the 2025 era is handed to the SDK as it came, which runs
 * it again through its legacy shim; the runtime keeps no record of the interrupted run.
 *
 * Cancellation is the SDK's: a `notifications/cancelled` naming a call in the lane aborts that
 * call's signal with the given reason, and nothing is answered for it. A closed connection aborts
 * every call still in the lane.
 *
 * The lane knows JSON-RPC messages only, not the wire: a transport hands it each message it reads
 * (`take`) and writes what it answers (`reply`). Over stdio one lane serves the connection; on the
 * HTTP facade's 2026-07-28 leg one serves each plain request (transports/http/modern-lane.ts).
 * `AGENT_TOOLS_FAST_LANE=off` turns it off on both.
 */

export interface FastLane {
  /** true when the lane took `message`: a tools/call it answers, or a cancellation of one. */
  take(message: JSONRPCMessage): boolean;
  /** The connection closed: abort every call in the lane (none is answered). */
  close(): void;
  /** Calls the lane took, and those of them it began and then handed to the SDK (logged at shutdown; the differential test reads them). */
  readonly counts: { taken: number; handedOver: number };
}

export interface FastLaneOptions {
  /** The facade Server the connection is pinned to, once there is one. */
  server(): Server | undefined;
  /**
   * The era of a lane whose Server is never connected to a transport (the HTTP leg's per-request
   * lane, transports/http/modern-lane.ts). Without it the lane serves a Server only once it is
   * connected, in the era that connection negotiated.
   */
  era?: Era;
  /** Whether the SDK accepted this 2026-07-28 envelope before, when that is known elsewhere than on the lane's own Server (default: its FacadeCallEntry). */
  acceptedEnvelope?(envelope: Record<string, unknown>): boolean;
  /** What the SDK hands handlers of an HTTP request as `ctx.http` (the caller's authInfo). */
  http?: ServerContext["http"];
  /** Write one response (the transport serializes it as the SDK's own send would). */
  reply(response: JSONRPCResponse): Promise<void>;
  /** Give a message to the SDK as if the lane had never seen it. */
  toSdk(message: JSONRPCMessage): void;
  onerror?(error: Error): void;
}

/** The first protocol revision of the 2026-07-28 era (revisions are dates, compared as strings, as the SDK compares them). */
const FIRST_MODERN_REVISION = "2026-07-28";
/** The `_meta` keys the SDK lifts into the per-request envelope, in its order; other keys of their namespace go to the SDK. */
const ENVELOPE_KEYS = [PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY];
const RESERVED_NAMESPACE = "io.modelcontextprotocol/";
const LEVELS: readonly LoggingLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
const NO_REQUEST_STATE = (() => undefined) as ServerContext["mcpReq"]["requestState"];

export type Era = "2025" | "2026";
type FacadeCallResult = Awaited<ReturnType<FacadeCallEntry["handle"]>>;

/** Whether the lane is on (AGENT_TOOLS_FAST_LANE=off turns it off, for comparisons and as a way back). */
export function fastLaneEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return !isOffValue(env.AGENT_TOOLS_FAST_LANE);
}

function eraOf(server: Server): Era | undefined {
  const version = server.getNegotiatedProtocolVersion();
  if (version === undefined) return undefined;
  return version >= FIRST_MODERN_REVISION ? "2026" : "2025";
}

/**
 * `_meta` split as the SDK splits it: the envelope keys, and the rest (undefined when nothing is
 * left). undefined when it holds another key of the protocol's namespace (the SDK's schema rules on those).
 */
export function splitMeta(meta: Record<string, unknown>): { envelope?: Record<string, unknown>; rest?: Record<string, unknown> } | undefined {
  let envelope: Record<string, unknown> | undefined;
  let rest: Record<string, unknown> | undefined;
  for (const key of ENVELOPE_KEYS) if (key in meta) (envelope ??= {})[key] = meta[key];
  for (const key in meta) {
    if (ENVELOPE_KEYS.includes(key)) continue;
    if (key.startsWith(RESERVED_NAMESPACE)) return undefined;
    (rest ??= {})[key] = meta[key];
  }
  return { ...(envelope ? { envelope } : {}), ...(rest ? { rest } : {}) };
}

/** An image or audio block of a downstream result passed on after the answer's text (present.ts): its three keys, in the schema's order. */
function isMediaBlock(block: unknown): block is { type: string; data: string; mimeType: string } {
  return isPlainObject(block) && (block.type === "image" || block.type === "audio") && typeof block.data === "string" && typeof block.mimeType === "string" && Object.keys(block).length === 3;
}

/**
 * The result as the SDK's result check leaves it: a facade result is text blocks (then a
 * downstream's images and audio) and `isError` (present.ts), which that check passes through
 * with its keys in its schema's order. Anything else cannot come from the facade; it fails loudly
 * instead of being guessed at.
 */
function plainResult(result: unknown, era: Era, serverInfo: unknown): Record<string, unknown> {
  if (isPlainObject(result) && Array.isArray(result.content)) {
    let plain = true;
    for (const key in result) if (key !== "content" && key !== "isError") plain = false;
    if (result.isError !== undefined && typeof result.isError !== "boolean") plain = false;
    const content = result.content.map((block: unknown) => {
      if (isMediaBlock(block)) return { type: block.type, data: block.data, mimeType: block.mimeType };
      if (!isPlainObject(block) || block.type !== "text" || typeof block.text !== "string" || Object.keys(block).length !== 2) plain = false;
      return isPlainObject(block) ? { type: block.type, text: block.text } : block;
    });
    if (plain) {
      const isError = result.isError === undefined ? {} : { isError: result.isError };
      // 2026-07-28: the result check fills in the result type after the keys it found, and the encoder adds the server's identity last.
      return era === "2025" ? { content, ...isError } : { content, ...isError, resultType: "complete", _meta: { [SERVER_INFO_META_KEY]: serverInfo } };
    }
  }
  throw new ProtocolError(ProtocolErrorCode.InternalError, "the fast lane got a tools/call result that is not the facade's text result (a bug: AGENT_TOOLS_FAST_LANE=off works around it)");
}

/** A thrown error as the SDK answers it. */
export function errorResponse(id: RequestId, error: unknown): JSONRPCResponse {
  const thrown = (error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  const code = Number.isSafeInteger(thrown.code) ? (thrown.code as number) : ProtocolErrorCode.InternalError;
  return {
    jsonrpc: "2.0",
    id,
    // The SDK's wire codecs map the 2025 resource-not-found code onto invalid params.
    error: { code: code === -32002 ? -32602 : code, message: (thrown.message as string | undefined) ?? "Internal error", ...(thrown.data !== undefined ? { data: thrown.data } : {}) },
  } as JSONRPCResponse;
}

/**
 * The request context (`mcpReq`) of a call in the lane: what the SDK's context offers a tools/call
 * handler, through the Server's public API. A class, so a call makes one object rather than a
 * dozen closures (its methods are called as methods, as the facade calls them).
 */
class LaneRequest {
  readonly method = "tools/call";
  readonly requestState = NO_REQUEST_STATE;
  readonly envelope: Record<string, unknown> | undefined;
  readonly [CANCEL_OF_REQUEST]: Cancel;
  readonly #server: Server;
  readonly #era: Era;

  constructor(
    server: Server,
    era: Era,
    readonly id: RequestId,
    cancel: Cancel,
    readonly _meta: Record<string, unknown> | undefined,
    envelope: Record<string, unknown> | undefined,
  ) {
    this.#server = server;
    this.#era = era;
    this[CANCEL_OF_REQUEST] = cancel;
    this.envelope = envelope;
  }

  /** Made on first read (the facade listens to the Cancel itself: cancelOfRequest). */
  get signal(): AbortSignal {
    return this[CANCEL_OF_REQUEST].signal;
  }

  send(request: never, schemaOrOptions?: never, options?: never): Promise<unknown> {
    return this.#server.request(request, schemaOrOptions as never, options);
  }

  notify(notification: { method: string; params?: Record<string, unknown> }): Promise<void> {
    return this.#server.notification(notification as never);
  }

  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    if (this.#era === "2025") return this.#server.sendLoggingMessage({ level, data, logger });
    // A 2026-07-28 request gets log messages only at or above the level its envelope names.
    const threshold = this.envelope?.[LOG_LEVEL_META_KEY] as LoggingLevel | undefined;
    if (threshold === undefined) return Promise.resolve();
    // As the SDK's comparison: a level it does not rank is never filtered.
    const [rank, floor] = [LEVELS.indexOf(level), LEVELS.indexOf(threshold)];
    if (rank >= 0 && floor >= 0 && rank < floor) return Promise.resolve();
    return this.notify({ method: "notifications/message", params: { level, data, logger } });
  }

  elicitInput(params: Parameters<Server["elicitInput"]>[0], requestOptions?: Parameters<Server["elicitInput"]>[1]): ReturnType<Server["elicitInput"]> {
    return this.#server.elicitInput(params, requestOptions);
  }

  requestSampling(params: unknown, requestOptions?: Parameters<Server["createMessage"]>[1]): ReturnType<Server["createMessage"]> {
    return this.#server.createMessage(params as never, requestOptions);
  }
}

export function createFastLane(options: FastLaneOptions): FastLane {
  const inFlight = new Map<RequestId, Cancel>();
  const counts = { taken: 0, handedOver: 0 };

  const context = (server: Server, era: Era, id: RequestId, cancel: Cancel, meta: Record<string, unknown> | undefined, envelope: Record<string, unknown> | undefined): ServerContext =>
    ({ ...(options.http ? { http: options.http } : {}), mcpReq: new LaneRequest(server, era, id, cancel, meta, envelope) }) as unknown as ServerContext;

  const release = (id: RequestId, cancel: Cancel): void => {
    if (inFlight.get(id) === cancel) inFlight.delete(id);
  };

  /**
   * The call's response once its handler settled (`failed`: it threw, and `outcome` is the error);
   * undefined when nothing is to be written (cancelled, or handed to the SDK).
   */
  const answerOf = (message: JSONRPCMessage & { id: RequestId }, entry: FacadeCallEntry, era: Era, cancel: Cancel, outcome: unknown, failed: boolean): JSONRPCResponse | undefined => {
    try {
      if (cancel.aborted) return undefined;
      if (failed) return errorResponse(message.id, outcome);
      if (isInputRequiredResult(outcome as FacadeCallResult)) {
        // Only the SDK can ask this question (2025: its legacy shim): it gets the request as it came.
        inFlight.delete(message.id);
        counts.handedOver++;
        options.toSdk(message);
        return undefined;
      }
      return { result: plainResult(outcome, era, entry.serverInfo), jsonrpc: "2.0", id: message.id } as JSONRPCResponse;
    } catch (error) {
      return cancel.aborted ? undefined : errorResponse(message.id, error);
    } finally {
      release(message.id, cancel);
    }
  };

  const replyFailed = (error: unknown): void => {
    options.onerror?.(new Error(`Failed to send response: ${error instanceof Error ? error.message : String(error)}`));
  };
  /** Write the answer, if there is one; a failure to write is reported, never thrown (nothing waits on it). */
  const replyWith = (response: JSONRPCResponse | undefined): void => {
    if (!response) return;
    try {
      options.reply(response).catch(replyFailed);
    } catch (error) {
      replyFailed(error);
    }
  };
  const handle = (entry: FacadeCallEntry, params: { name: string; arguments?: Record<string, unknown> }, ctx: ServerContext): Promise<FacadeCallResult> => entry.handle(params, ctx);

  // Callbacks rather than an async frame kept alive across every call (allocation per call); the
  // callbacks never throw, so the chain ends here with no promise of its own to watch.
  const run = (message: JSONRPCMessage & { id: RequestId }, entry: FacadeCallEntry, era: Era, params: { name: string; arguments?: Record<string, unknown> }, ctx: ServerContext, cancel: Cancel): void => {
    void asPromise(handle, entry, params, ctx).then(
      (result) => replyWith(answerOf(message, entry, era, cancel, result, false)),
      (error: unknown) => replyWith(answerOf(message, entry, era, cancel, error, true)),
    );
  };

  const takeCall = (message: JSONRPCMessage & { id: RequestId; params?: unknown }): boolean => {
    const id = message.id;
    if ((typeof id !== "string" && typeof id !== "number") || inFlight.has(id)) return false;
    const server = options.server();
    if (!server || (options.era === undefined && !server.transport)) return false;
    const entry = facadeCallEntry(server);
    const era = entry && (options.era ?? eraOf(server));
    if (!entry || !era) return false;
    const params = message.params;
    if (!isPlainObject(params)) return false;
    for (const key in params) if (key !== "name" && key !== "arguments" && key !== "_meta") return false;
    const { name, arguments: args, _meta } = params;
    if (typeof name !== "string" || (args !== undefined && !isPlainObject(args)) || (_meta !== undefined && !isPlainObject(_meta))) return false;
    const split = _meta ? splitMeta(_meta) : {};
    if (!split || split.rest?.progressToken !== undefined) return false;
    const { envelope, rest } = split;
    const accepted = options.acceptedEnvelope ?? entry.acceptedEnvelope;
    if (era === "2025" ? envelope !== undefined : !envelope || !accepted(envelope)) return false;
    const cancel = new Cancel();
    const ctx = context(server, era, id, cancel, rest, envelope);
    if (entry.needsSdk(name, args, ctx)) return false;
    inFlight.set(id, cancel);
    counts.taken++;
    run(message as JSONRPCMessage & { id: RequestId }, entry, era, { name, ...(args ? { arguments: args } : {}) }, ctx, cancel);
    return true;
  };

  return {
    counts,
    take(message) {
      if (!("method" in message)) return false;
      if (message.method === "tools/call" && "id" in message) return takeCall(message);
      if (message.method !== "notifications/cancelled" || "id" in message || !isPlainObject(message.params)) return false;
      const requestId = message.params.requestId as RequestId | undefined;
      const cancel = requestId === undefined ? undefined : inFlight.get(requestId);
      if (!cancel) return false;
      inFlight.delete(requestId!);
      cancel.abort(message.params.reason);
      return true;
    },
    close() {
      // A lane closed with nothing in flight (every HTTP request's) builds no error.
      if (inFlight.size === 0) return;
      const error = new SdkError(SdkErrorCode.ConnectionClosed, "Connection closed");
      for (const cancel of inFlight.values()) cancel.abort(error);
      inFlight.clear();
    },
  };
}
