import {
  Client,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolRequestOptions,
  type CallToolResult,
  type JSONRPCMessage,
  type Request,
  type RequestMethod,
  type RequestOptions,
  type ResultTypeMap,
  type StandardSchemaV1,
  type Transport,
} from "@modelcontextprotocol/client";
import { currentRelay, type CallRelay } from "../relay.js";
import { withoutRoundProgress } from "./round-progress.js";
import { mendToolsList } from "./tools-list-mend.js";
import { ToolsListWalks } from "./tools-list-walk.js";
import { HandshakeStrays } from "./handshake-strays.js";
import { mcpItemProblem } from "../../runtime/content-items.js";
import { UnsupportedServerVersion } from "./errors.js";

/**
 * Liberal in what the adapter accepts from downstream servers: real servers (the original
 * runtime's own test server among them) answer `initialize` without `serverInfo.version`, or
 * without `serverInfo` at all, and the SDK's schema refuses the whole handshake for it. The
 * missing name or version is filled in before the SDK reads the answer; nothing else is changed,
 * and what this runtime sends stays strict.
 */

function isRecord(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

/** The protocol version of an initialize result (a result with protocolVersion and capabilities); undefined for other messages. */
function initializeVersionOf(message: unknown): string | undefined {
  if (!isRecord(message) || !isRecord(message.result)) return undefined;
  const { protocolVersion, capabilities } = message.result;
  return typeof protocolVersion === "string" && isRecord(capabilities) ? protocolVersion : undefined;
}

/** An initialize result (protocolVersion + capabilities) with its serverInfo completed; other messages as they are. */
function mendInitializeResult(message: unknown, onMended?: (what: string) => void): unknown {
  if (!isRecord(message) || initializeVersionOf(message) === undefined) return message;
  const result = message.result as Record<string, unknown>;
  const info = isRecord(result.serverInfo) ? result.serverInfo : {};
  const missing = [typeof info.name === "string" ? undefined : "name", typeof info.version === "string" ? undefined : "version"].filter((m): m is string => !!m);
  if (missing.length === 0) return message;
  onMended?.(`serverInfo.${missing.join(" and serverInfo.")}`);
  return { ...message, result: { ...result, serverInfo: { ...info, name: typeof info.name === "string" ? info.name : "unnamed", version: typeof info.version === "string" ? info.version : "unknown" } } };
}

const TEXT_ITEM_KEYS = new Set(["type", "text"]);

/**
 * A 2025-era tools/call result the SDK's schema passes unchanged: text content only (each item
 * exactly `type` and `text`), `isError` absent or a boolean, `structuredContent` absent or an
 * object, no `_meta` (which that schema rewrites); other keys pass through that schema as they are.
 * The usual answer of a tool; for anything else the schema itself runs.
 */
export function isPlainToolResult(value: unknown): boolean {
  if (!isRecord(value) || value._meta !== undefined || !Array.isArray(value.content)) return false;
  if (value.isError !== undefined && typeof value.isError !== "boolean") return false;
  if (value.structuredContent !== undefined && !isRecord(value.structuredContent)) return false;
  for (const item of value.content as unknown[]) {
    if (!isRecord(item) || item.type !== "text" || typeof item.text !== "string") return false;
    for (const key in item) if (!TEXT_ITEM_KEYS.has(key)) return false;
  }
  return true;
}

/**
 * Why a tools/call answer fails the era's schema, said short: the content item at fault
 * (`content[1] is null`), else which top-level field is wrong. The schema's own message lists
 * every branch of the content union for each item, kilobytes of it, which a model cannot act on.
 */
function invalidToolResult(value: unknown): string {
  if (!isRecord(value)) return "the result is not an object";
  if (!Array.isArray(value.content)) return value.content === undefined ? "the result has no `content` list" : "the result's `content` is not a list";
  const problem = mcpItemProblem(value.content);
  if (problem) return problem;
  if (value.isError !== undefined && typeof value.isError !== "boolean") return "the result's `isError` is not a boolean";
  if (value.structuredContent !== undefined && !isRecord(value.structuredContent)) return "the result's `structuredContent` is not an object";
  return "the result does not match MCP's CallToolResult";
}

function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return !!value && typeof value === "object" && "~standard" in value;
}

/**
 * The SDK client, with every transport it connects to read through mendInitializeResult, and
 * `tools/call` answers checked without the SDK's per-request probe.
 */
export class LenientClient extends Client {
  onMended: ((what: string) => void) | undefined;

  /** What mendToolsListAnswer changed in the tools/list answers read since takeToolsListNotes last ran. */
  #toolsListNotes: string[] = [];

  /** The notes of the tools/list answers mended since the last take (listAllTools reads them once per listing). */
  takeToolsListNotes(): string[] {
    const notes = this.#toolsListNotes;
    this.#toolsListNotes = [];
    return notes;
  }

  /**
   * A tools/list answer (a result holding a `tools` list) whose entries the SDK would refuse,
   * with those entries mended or left out (tools-list-mend.ts), checked as the SDK's request
   * funnel checks it: the era's decode, then its result schema. Other messages as they are.
   */
  #mendToolsListAnswer(message: unknown): unknown {
    if (!isRecord(message) || message.id === undefined || !isRecord(message.result) || !Array.isArray(message.result.tools)) return message;
    const codec = this._wireCodec();
    const accepts = (result: Record<string, unknown>): boolean => {
      try {
        const decoded = codec.decodeResult("tools/list", result);
        return decoded.kind === "complete" && codec.validateResult("tools/list", decoded.result).ok;
      } catch {
        return false;
      }
    };
    const mended = mendToolsList(message.result, accepts);
    if (!mended) return message;
    this.#toolsListNotes.push(...mended.notes);
    return { ...message, result: mended.result };
  }

  /**
   * The tools/call result check the SDK would make, against the negotiated era's schema. Given
   * as an explicit schema because, without one, the SDK first probes the era's registry by
   * validating `undefined` on every request, and that failed parse formats a zod error each
   * time (measured: about a tenth of the runtime's CPU per call on the echo benchmark). Same
   * validator, same funnel (era check, decoding, the era's lift), run once. A plain 2025-era
   * answer (isPlainToolResult), which that validator would copy unchanged, is taken as it is:
   * the pipeline unwraps and checks the result itself right after.
   */
  readonly #toolsCallResult: StandardSchemaV1 = {
    "~standard": {
      version: 1,
      vendor: "agent-tools-runtime",
      validate: (value: unknown) => {
        const codec = this._wireCodec();
        if (codec.era === "2025-11-25" && isPlainToolResult(value)) return { value };
        const outcome = codec.validateResult("tools/call", value);
        if (outcome.ok) return { value: outcome.value };
        return { issues: [{ message: outcome.reason === "invalid" ? invalidToolResult(value) : "not-in-era: tools/call" }] };
      },
    },
  };

  /**
   * A tools/call answer taken through the steps the SDK's request funnel takes on this connection:
   * the era's decode, then the check above; throws what that funnel rejects with. For the call
   * lane (call-lane.ts), which takes answers off the transport before the SDK sees them.
   */
  toolsCallOutcome(raw: unknown): unknown {
    const decoded = this._wireCodec().decodeResult("tools/call", raw);
    if (decoded.kind === "invalid") throw decoded.error;
    if (decoded.kind !== "complete") throw new SdkError(SdkErrorCode.UnsupportedResultType, `Unsupported result type '${decoded.kind}' for tools/call`, { resultType: decoded.kind, method: "tools/call" });
    const outcome = this.#toolsCallResult["~standard"].validate(decoded.result) as StandardSchemaV1.Result<unknown>;
    if (outcome.issues) throw new SdkError(SdkErrorCode.InvalidResult, `Invalid result for tools/call: ${outcome.issues.map((issue) => issue.message).join(", ")}`);
    return outcome.value;
  }

  /**
   * A `notifications/progress` message checked by the era's schema, as the SDK's own progress
   * handler receives it: its params without the token; undefined when the schema refuses it
   * (reported through onerror, as the SDK does). For the call lane.
   */
  progressOf(message: JSONRPCMessage): { progress: number; total?: number; message?: string } | undefined {
    const outcome = this._wireCodec().validateNotification("notifications/progress", message);
    if (!outcome.ok) {
      this.onerror?.(new Error(outcome.reason === "invalid" ? outcome.message : "No wire schema for notifications/progress in the resolved era"));
      return undefined;
    }
    const { progressToken: _token, ...params } = (outcome.value as { params: { progressToken: unknown; progress: number; total?: number; message?: string } }).params;
    return params;
  }

  override request<M extends RequestMethod>(request: { method: M; params?: Record<string, unknown> }, options?: RequestOptions): Promise<ResultTypeMap[M]>;
  override request<T extends StandardSchemaV1>(request: Request, resultSchema: T, options?: RequestOptions): Promise<StandardSchemaV1.InferOutput<T>>;
  override request(request: Request, schemaOrOptions?: unknown, maybeOptions?: RequestOptions): Promise<unknown> {
    // Sent inside a call's relay context (McpAdapter.call, 2026-07-28 servers): remembered for
    // its input_required rounds, which the SDK starts outside that context (below).
    const relay = currentRelay.getStore();
    if (relay) this.#relayOf.set(request, relay);
    if (request.method === "tools/call" && !isStandardSchema(schemaOrOptions)) {
      const answered = super.request(request, this.#toolsCallResult, schemaOrOptions as RequestOptions | undefined);
      const params = request.params;
      // A call of callToolKeepingAnswer: its answer is kept for it, in case callTool throws it away.
      return params && this.#answers.has(params) ? answered.then((answer) => (this.#answers.set(params, answer), answer)) : answered;
    }
    if (request.method === "tools/list" && !isStandardSchema(schemaOrOptions)) return this.#toolsListPage(request, schemaOrOptions as RequestOptions | undefined);
    return isStandardSchema(schemaOrOptions) ? super.request(request, schemaOrOptions, maybeOptions) : super.request(request as { method: RequestMethod }, schemaOrOptions as RequestOptions | undefined);
  }

  readonly #walks = new ToolsListWalks();

  /**
   * One page of the SDK's walk over tools/list, unless the walk is to end before it
   * (tools-list-walk.ts): then an empty last page, and the reason in the listing's notes.
   */
  async #toolsListPage(request: Request, options: RequestOptions | undefined): Promise<unknown> {
    const walk = options ?? this;
    const stop = this.#walks.stopBefore(request.params?.cursor, walk);
    if (stop) {
      this.#toolsListNotes.push(stop);
      return { tools: [] };
    }
    const page = await super.request(request as { method: "tools/list" }, options);
    this.#walks.read(page, walk);
    return page;
  }

  /** The tools/call params of each callToolKeepingAnswer in flight, with the answer its request got (undefined until then). */
  readonly #answers = new WeakMap<object, unknown>();
  /** Answers callToolKeepingAnswer returned though they lack the structuredContent their tool's outputSchema asks for. */
  readonly #unstructured = new WeakSet<object>();

  /**
   * callTool, except that a result without structuredContent from a tool with an outputSchema is
   * returned, not thrown away. The SDK fails such a call ("has an output schema but did not return
   * structured content") after the server answered and before any validator runs, so
   * PassingOutputValidator (output-check.ts) cannot let it through, and no option turns that check
   * off without also dropping the SDK's own tool definition (header mirroring and its retry on a
   * 2026-07-28 server). So the answer is kept as it passes through `request`, and returned when
   * callTool throws exactly that: an InvalidRequest after an answer with no structuredContent and
   * no isError. `lacksStructuredContent` tells the adapter to warn of it.
   */
  async callToolKeepingAnswer(params: Parameters<Client["callTool"]>[0], options?: CallToolRequestOptions): Promise<CallToolResult> {
    this.#answers.set(params, undefined);
    try {
      return await this.callTool(params, options);
    } catch (error) {
      const answer = this.#answers.get(params);
      if (!(error instanceof ProtocolError) || error.code !== ProtocolErrorCode.InvalidRequest || !isRecord(answer) || answer.structuredContent !== undefined || answer.isError === true) throw error;
      this.#unstructured.add(answer);
      return answer as CallToolResult;
    } finally {
      this.#answers.delete(params);
    }
  }

  /** Whether callToolKeepingAnswer returned this result though its tool's outputSchema asked for structuredContent. */
  lacksStructuredContent(result: object): boolean {
    return this.#unstructured.has(result);
  }

  /** The relay of each request sent inside a call's relay context, by the request object the SDK hands back in its flow. */
  readonly #relayOf = new WeakMap<Request, CallRelay>();

  /**
   * A 2026-07-28 server's input_required answer, fulfilled by the SDK's driver through the
   * registered elicitation/sampling handlers. The SDK starts that driver from the response's
   * arrival (the transport's async context), not from callTool's, so the handlers would not see
   * the call's relay, and with two calls in flight on the connection could not tell whose user
   * to ask. Run the driver in the relay context of the request it answers: every round's
   * handlers then find their own call's relay. The driver's own round progress is not passed on
   * (round-progress.ts).
   */
  protected override _resolveNonCompleteResult(...[decoded, sdkFlow]: Parameters<Client["_resolveNonCompleteResult"]>): Promise<unknown> {
    const flow = withoutRoundProgress(sdkFlow);
    const relay = this.#relayOf.get(flow.request);
    return relay ? currentRelay.run(relay, () => super._resolveNonCompleteResult(decoded, flow)) : super._resolveNonCompleteResult(decoded, flow);
  }

  /**
   * Request ids with a progress notification whose handler the SDK has queued but not yet run.
   * The SDK runs a notification's handler a microtask after reading it, but settles a response
   * (and drops that request's progress handler) at once: progress read in one chunk with its
   * request's answer (a server that writes both together, or a loaded machine) was lost, every
   * step of it. `_onresponse` waits behind such a handler (one microtask), so the steps come first.
   */
  readonly #progressQueued = new Map<number, number>();

  protected override _onnotification(...[raw, extra]: Parameters<Client["_onnotification"]>): void {
    super._onnotification(raw, extra);
    if (raw.method !== "notifications/progress") return;
    // The SDK keys progress handlers by Number(progressToken); a token that is no number matches none.
    const id = Number((raw.params as { progressToken?: unknown } | undefined)?.progressToken);
    if (!Number.isFinite(id)) return;
    const queued = this.#progressQueued;
    queued.set(id, (queued.get(id) ?? 0) + 1);
    // Queued after the SDK's own microtask for this notification, so it runs after the handler.
    queueMicrotask(() => {
      const left = (queued.get(id) ?? 1) - 1;
      if (left > 0) queued.set(id, left);
      else queued.delete(id);
    });
  }

  protected override _onresponse(...[response]: Parameters<Client["_onresponse"]>): void {
    if (this.#progressQueued.size && this.#progressQueued.has(Number(response.id))) queueMicrotask(() => super._onresponse(response));
    else super._onresponse(response);
  }

  override async connect(transport: Transport, options?: Parameters<Client["connect"]>[1]): Promise<void> {
    let handler: Transport["onmessage"];
    // A transport's own accessor (answer-watching-http.ts) keeps working: this one hands the mended handler on to it.
    const own = Object.getOwnPropertyDescriptor(transport, "onmessage");
    const inner = own?.get && own.set ? { get: own.get.bind(transport) as () => Transport["onmessage"], set: own.set.bind(transport) as (next: Transport["onmessage"]) => void } : undefined;
    // The SDK assigns `onmessage` before start(); an accessor on the instance sees every message first.
    Object.defineProperty(transport, "onmessage", {
      configurable: true,
      enumerable: true,
      get: () => (inner ? inner.get() : handler),
      set: (next: Transport["onmessage"]) => {
        handler =
          next &&
          ((message, extra) => {
            this.#handshake.seen(message);
            this.#answeredVersion = initializeVersionOf(message) ?? this.#answeredVersion;
            next(this.#mendToolsListAnswer(mendInitializeResult(message, this.onMended)) as Parameters<NonNullable<Transport["onmessage"]>>[0], extra);
          });
        inner?.set(handler);
      },
    });
    this.#answeredVersion = undefined;
    try {
      return await this.#handshake.during(transport, () => super.connect(transport, options));
    } catch (error) {
      // The SDK refuses an initialize answer naming a version it does not speak with a bare Error
      // and closes the connection: said as what it is, not as whatever the close looks like after.
      const offered = this.#answeredVersion;
      if (offered !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(offered)) throw new UnsupportedServerVersion(offered, SUPPORTED_PROTOCOL_VERSIONS);
      throw error;
    }
  }

  /** The protocol version the server's initialize answer named, during and after the handshake; undefined before it. */
  #answeredVersion: string | undefined;

  readonly #handshake = new HandshakeStrays();

  /** For a start that timed out: the answer with an id no handshake request had, said (handshake-strays.ts); undefined without one. */
  strayHandshakeAnswer(): string | undefined {
    return this.#handshake.said();
  }
}
