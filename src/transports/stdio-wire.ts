import { deserializeMessage, serializeMessage, type JSONRPCMessage, type RequestId } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { Readable, Writable } from "node:stream";
import { BatchedWriter } from "../batched-writes.js";
import { writeStdout } from "../stdout-guard.js";
import { JsonRpcLineReader, OversizedLine, RefusedLine, UnparsableLine } from "../jsonrpc-lines.js";
import { invalidParamsAnswer } from "./params-check.js";
import { initializeOnModernMessage, UNSUPPORTED_VERSION_CODE, wrongEraAnswer } from "./era-mismatch.js";
import { oversizedRequestAnswers, refusedRequestAnswers, unparsableRequestAnswers } from "./refused-request.js";
import type { FastLane } from "../facade/fast-lane.js";
import { INTERRUPTED_CODE } from "./shutdown.js";
import { duplicateIdMessage } from "./http/request-ids.js";

/**
 * The facade's stdio wire: the SDK's StdioServerTransport (its start, close and error handling
 * unchanged) with the two ends of a call made cheaper:
 *  - answers leave in batches, one write per turn of the event loop (batched-writes.ts): with
 *    many callers in flight, the answers one downstream read resolved reach the client together;
 *  - incoming lines are framed as the SDK frames them, and the plain envelope of a request is
 *    checked without zod (jsonrpc-lines.ts); anything else goes through the SDK's own parser.
 *  - a line over 10 MiB is skipped to its end and, when its id can be read, answered -32600; the
 *    connection goes on (the SDK's ReadBuffer throws, and its transport closed);
 *  - a line that is not JSON but reads as a request with an id (cut short) is answered -32700;
 *  - a request line the SDK's schema refuses is answered with a -32600 error naming what was
 *    wrong (refused-request.ts), where the SDK's own transport would only report it to `onerror`;
 *  - a message the fast lane takes (facade/fast-lane.ts: a plain facade tools/call, or the
 *    cancellation of one) is answered there, without the SDK; everything else goes to the SDK;
 *  - the requests read and not answered (nor cancelled by the client) yet are known, so that a
 *    shutdown by signal answers each as interrupted (`interruptOpen`) instead of leaving the
 *    client waiting on a closed pipe; what their handlers send after that is dropped (an open
 *    `subscriptions/listen` is no such request: the SDK ends it at close); a request reusing the
 *    id of one of them is answered -32600, not run beside it.
 * On the process's own stdout, answers leave through stdout-guard.ts's `writeStdout`: the entry
 * has sent every other writer of stdout (plugin code's console.log) to stderr.
 * The reader is swapped in through `_ondata`, the data listener the SDK's `start` attaches and
 * `close` removes (a public member of its declaration).
 */
export class BatchedStdioServerTransport extends StdioServerTransport {
  readonly #writer: BatchedWriter;
  // An oversized line is skipped and answered, not the end of the connection (the SDK's ReadBuffer throws and the transport closed).
  readonly #reader = new JsonRpcLineReader(deserializeMessage, { skipOversized: true, reportUnparsable: true });
  #closed = false;
  /** Requests read and not yet answered or cancelled by the client. */
  readonly #open = new Set<RequestId>();
  /** `initialize` requests read and not answered yet, with the version each asked for: see `send`. */
  readonly #initializing = new Map<RequestId, unknown>();
  /** Requests answered as interrupted by a shutdown: their handlers' own late answers are dropped. */
  #interrupted: Set<RequestId> | undefined;
  /** Set by the serving entry when the fast lane is on (it needs the pinned Server, which the entry knows). */
  lane: FastLane | undefined;

  constructor(stdin: Readable = process.stdin, stdout: Writable = process.stdout) {
    super(stdin, stdout);
    this.#writer = new BatchedWriter(stdout, stdout === process.stdout ? writeStdout : undefined);
    this._ondata = (chunk: Buffer): void => {
      try {
        this.#reader.append(chunk);
        this.#drain();
      } catch (error) {
        this.onerror?.(error as Error);
        this.close().catch(() => undefined);
      }
    };
  }

  #drain(): void {
    // As the SDK's own loop: a line the schema refuses (or a handler that throws) is reported, and reading goes on.
    for (;;) {
      try {
        const message = this.#reader.readMessage();
        if (message === null) return;
        // A request reusing the id of one still open would run too, both answers carrying that id
        // (and a cancel for it stop the first): refused, as over HTTP (request-ids.ts). Written past
        // `send`, which would take the answer for the first request's and close its id.
        const duplicate = this.#reusedId(message);
        if (duplicate) {
          this.#writer.write(serializeMessage(duplicate)).catch((failed: unknown) => this.onerror?.(failed as Error));
          continue;
        }
        this.#note(message);
        if (this.lane?.take(message)) continue;
        // initialize / logging/setLevel with bad params: -32602 naming them, not the SDK's -32603 (params-check.ts).
        // A discover without the 2026-07-28 envelope, or an envelope naming a 2025 version: named as such (era-mismatch.ts).
        const invalid = invalidParamsAnswer(message) ?? wrongEraAnswer(message);
        if (invalid) {
          this.send(invalid).catch((failed: unknown) => this.onerror?.(failed as Error));
          continue;
        }
        this.onmessage?.(message);
      } catch (error) {
        this.onerror?.(error as Error);
        // The SDK would answer nothing: a request the schema refused still gets its error (refused-request.ts).
        const answers =
          error instanceof RefusedLine
            ? refusedRequestAnswers(error.value)
            : error instanceof OversizedLine
              ? oversizedRequestAnswers(error.head, error.limit)
              : error instanceof UnparsableLine
                ? unparsableRequestAnswers(error.head, error.message)
                : [];
        for (const answer of answers) this.send(answer).catch((failed: unknown) => this.onerror?.(failed as Error));
      }
    }
  }

  /** The -32600 answer to a request whose id is open (read, not yet answered nor cancelled); undefined for any other message. */
  #reusedId(message: JSONRPCMessage): JSONRPCMessage | undefined {
    if (!("method" in message) || !("id" in message) || !this.#open.has(message.id)) return undefined;
    return { jsonrpc: "2.0", id: message.id, error: { code: -32600, message: duplicateIdMessage(message.id, "on this connection") } };
  }

  /**
   * Keeps `#open`: a request opens its id, the client's cancellation of it closes it. A
   * 2026-07-28 `subscriptions/listen` runs no call: a shutdown ends it with its final result (the
   * SDK's teardown at close), not as an interrupted request whose effect is unknown.
   */
  #note(message: JSONRPCMessage): void {
    if (!("method" in message)) return;
    if ("id" in message) {
      if (message.method !== "subscriptions/listen") this.#open.add(message.id);
      if (message.method === "initialize") this.#initializing.set(message.id, (message.params as { protocolVersion?: unknown } | undefined)?.protocolVersion);
    }
    else if (message.method === "notifications/cancelled") {
      const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof requestId === "string" || typeof requestId === "number") this.#open.delete(requestId);
    }
  }

  override send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("StdioServerTransport is closed"));
    if (!("method" in message) && "id" in message && message.id !== undefined) {
      if (this.#interrupted?.has(message.id)) return Promise.resolve();
      this.#open.delete(message.id);
      if (this.#initializing.size > 0) message = this.#explainRefusedInitialize(message, message.id);
    }
    return this.#writer.write(serializeMessage(message));
  }

  /**
   * serveStdio refuses an `initialize` on a connection already in the 2026-07-28 era with a bare
   * "Unsupported protocol version: …" (its entry answers it; no handler of ours sees it): the
   * answer is sent with a message that names the era mismatch and the fix instead.
   */
  #explainRefusedInitialize(message: JSONRPCMessage, id: RequestId): JSONRPCMessage {
    if (!this.#initializing.has(id)) return message;
    const requested = this.#initializing.get(id);
    this.#initializing.delete(id);
    if (!("error" in message) || message.error.code !== UNSUPPORTED_VERSION_CODE) return message;
    return { ...message, error: { ...message.error, message: initializeOnModernMessage(requested) } };
  }

  /**
   * The server is shutting down with requests still running: answer each with `message` (a
   * JSON-RPC error, as the HTTP transport answers its interrupted requests) and resolve once the
   * answers were handed to stdout. Returns how many were answered.
   */
  async interruptOpen(message: string): Promise<number> {
    if (this.#closed || this.#open.size === 0) return 0;
    const ids = [...this.#open];
    this.#open.clear();
    this.#initializing.clear();
    // Added to, not replaced: a second signal answers what came in since, and the late answers of those answered first stay dropped.
    this.#interrupted ??= new Set();
    for (const id of ids) this.#interrupted.add(id);
    const written = ids.map((id) => this.#writer.write(serializeMessage({ jsonrpc: "2.0", id, error: { code: INTERRUPTED_CODE, message } })));
    await Promise.all(written).catch(() => undefined);
    return ids.length;
  }

  override async close(): Promise<void> {
    if (!this.#closed) {
      this.#reader.clear();
      this.lane?.close();
    }
    this.#closed = true;
    await super.close();
  }
}
