import { DEFAULT_REQUEST_TIMEOUT_MSEC, ProtocolError, SdkError, SdkErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/client";
import type { LenientClient } from "./lenient-handshake.js";
import { listen, unlisten, type Cancellation } from "../../cancel.js";

/**
 * The fast lane of `tools/call` to a 2025-era stdio server.
 *
 * Why it exists: every call through the SDK Client pays its per-request machinery (the Protocol's
 * zod guards classifying the answer, the result funnel's promise layers, callTool's output-schema
 * cache probe, a per-request AbortSignal listener and timeout record), and no public option
 * skips it. For the plain call (a 2025-era server, a tool without an outputSchema) that machinery
 * adds nothing the adapter needs, so the lane writes the JSON-RPC request itself on the
 * connection's transport and takes the matching answer (and the progress of its own token) off
 * the transport before the SDK Client sees it. Everything else on the connection (the server's
 * requests such as elicitation or sampling, log messages, list_changed, the SDK's own answers)
 * still reaches the SDK Client untouched.
 *
 * It keeps what the SDK path gives a call: the timeout (reset on progress when asked), the
 * caller's abort, both ending in `notifications/cancelled` to the server with the SDK's reason
 * text; progress; the SDK's result checks (LenientClient.toolsCallOutcome: the era's decode and
 * the same schema); JSON-RPC errors as the SDK's ProtocolError; a connection that closes fails
 * the call with the SDK's ConnectionClosed error. So McpConnection maps every outcome to the same
 * runtime error code and text as before. Its request ids are strings with a prefix of their own:
 * the SDK Client numbers its requests, so the two never collide, and a late answer to a call the
 * lane already gave up on (timeout, abort) is dropped here instead of reaching the SDK as unknown.
 */

/** What the lane hooks into the stdio transport (GroupStdioTransport). */
export interface LaneHook {
  /** Sees every inbound message before the SDK Client; true when the lane kept it. */
  take(message: JSONRPCMessage): boolean;
  /** The connection closed: fail the calls in flight. */
  closed(): void;
}

/** The transport side of the lane: it writes the lane's messages and lets it look first at what comes back. */
export interface LaneWire {
  send(message: JSONRPCMessage): Promise<void>;
  attachLane(hook: LaneHook): void;
}

export interface LaneProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** The SDK RequestOptions the adapter uses, as the lane reads them. */
export interface LaneCallOptions {
  /** Default: the SDK's default request timeout. */
  timeoutMs?: number;
  /** The caller's cancellation (a Cancel is listened to without making an AbortSignal: cancel.ts). */
  signal?: Cancellation;
  onprogress?: (progress: LaneProgress) => void;
  resetTimeoutOnProgress?: boolean;
}

/** The lane's request ids and progress tokens: strings with this prefix (the SDK Client's are numbers). */
const ID_PREFIX = "atr-lane-";

/** The reason an abort or a timeout rejects with, as the SDK's request funnel builds it. */
function cancelError(reason: unknown): Error {
  return reason instanceof SdkError ? reason : new SdkError(SdkErrorCode.RequestTimeout, String(reason));
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  options: LaneCallOptions;
  timer: NodeJS.Timeout | undefined;
  onAbort: (() => void) | undefined;
}

export class ToolCallLane implements LaneHook {
  readonly #wire: LaneWire;
  readonly #client: LenientClient;
  readonly #pending = new Map<string, Pending>();
  #sequence = 0;
  #closed = false;
  /** Calls that took the lane (diagnostics and tests). */
  calls = 0;

  constructor(wire: LaneWire, client: LenientClient) {
    this.#wire = wire;
    this.#client = client;
    wire.attachLane(this);
  }

  /**
   * Whether a call may take the lane now: the connection is open and negotiated the 2025 era.
   * A 2026-07-28 server stays on the SDK path: its calls carry the era's `_meta` envelope and may
   * answer `input_required`, which the SDK's driver fulfils.
   */
  accepts(): boolean {
    return !this.#closed && this.#client.transport !== undefined && this.#client.getProtocolEra() === "legacy";
  }

  /** `tools/call` with these params (name, arguments, _meta); settles as the SDK's callTool would. */
  call(params: Record<string, unknown>, options: LaneCallOptions): Promise<unknown> {
    if (options.signal?.aborted) return Promise.reject(cancelError(options.signal.reason));
    const id = `${ID_PREFIX}${++this.#sequence}`;
    const meta = params._meta as Record<string, unknown> | undefined;
    const request = { jsonrpc: "2.0" as const, id, method: "tools/call", params: options.onprogress ? { ...params, _meta: { ...meta, progressToken: id } } : params };
    this.calls++;
    return new Promise((resolve, reject) => {
      const pending: Pending = { resolve, reject, options, timer: undefined, onAbort: undefined };
      this.#pending.set(id, pending);
      const signal = options.signal;
      if (signal) {
        pending.onAbort = () => this.#cancel(id, signal.reason);
        listen(signal, pending.onAbort);
      }
      this.#arm(id, pending);
      this.#wire.send(request as JSONRPCMessage).catch((error: unknown) => {
        if (this.#settle(id)) reject(error);
      });
    });
  }

  take(message: JSONRPCMessage): boolean {
    const m = message as { id?: unknown; method?: unknown; params?: { progressToken?: unknown } };
    if (typeof m.method === "string") {
      if (m.method !== "notifications/progress" || m.id !== undefined) return false;
      const token = m.params?.progressToken;
      if (typeof token !== "string" || !token.startsWith(ID_PREFIX)) return false;
      this.#progress(token, message);
      return true;
    }
    if (typeof m.id !== "string" || !m.id.startsWith(ID_PREFIX)) return false;
    // An answer: ours, or late for a call already given up (timeout, abort): dropped either way.
    const pending = this.#settle(m.id);
    if (pending) this.#answer(pending, message);
    return true;
  }

  closed(): void {
    this.#closed = true;
    const error = new SdkError(SdkErrorCode.ConnectionClosed, "Connection closed");
    for (const id of [...this.#pending.keys()]) this.#settle(id)?.reject(error);
  }

  #answer(pending: Pending, message: JSONRPCMessage): void {
    if ("error" in message) {
      const { code, message: text, data } = message.error;
      pending.reject(ProtocolError.fromError(code, text, data));
      return;
    }
    try {
      pending.resolve(this.#client.toolsCallOutcome((message as { result: unknown }).result));
    } catch (error) {
      pending.reject(error);
    }
  }

  #progress(token: string, message: JSONRPCMessage): void {
    const pending = this.#pending.get(token);
    if (!pending) return;
    const update = this.#client.progressOf(message);
    if (!update) return;
    if (pending.options.resetTimeoutOnProgress) {
      clearTimeout(pending.timer);
      this.#arm(token, pending);
    }
    pending.options.onprogress?.(update);
  }

  #arm(id: string, pending: Pending): void {
    const timeout = pending.options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MSEC;
    pending.timer = setTimeout(() => this.#cancel(id, new SdkError(SdkErrorCode.RequestTimeout, "Request timed out", { timeout })), timeout);
  }

  /** The call gives up (timeout or abort): tell the server, as the SDK does, and fail it. */
  #cancel(id: string, reason: unknown): void {
    const pending = this.#settle(id);
    if (!pending) return;
    const cancelled = { jsonrpc: "2.0" as const, method: "notifications/cancelled", params: { requestId: id, reason: String(reason) } };
    this.#wire.send(cancelled as JSONRPCMessage).catch((error: unknown) => this.#client.onerror?.(new Error(`Failed to send cancellation: ${String(error)}`)));
    pending.reject(cancelError(reason));
  }

  /** Take a call out of the table (its timer and abort listener with it); undefined when it was settled already. */
  #settle(id: string): Pending | undefined {
    const pending = this.#pending.get(id);
    if (!pending) return undefined;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    if (pending.onAbort && pending.options.signal) unlisten(pending.options.signal, pending.onAbort);
    return pending;
  }
}
