/**
 * Errors of the MCP adapter. A failed call throws an AdapterError (shared/errors.ts), the project's
 * one error type for calls, so the pipeline passes its code, hint and details on unchanged.
 * A bad `adapter` block throws McpSpecError, an AdapterSpecError naming the field.
 */

import { SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { AdapterError, AdapterSpecError, messageWithCauses } from "../shared/errors.js";
import { flatLine } from "../../runtime/one-line.js";
import { cutNoted, DOWNSTREAM_TEXT_CHARS } from "../../runtime/error-bound.js";

export type McpErrorCode = "UPSTREAM_ERROR" | "UPSTREAM_TIMEOUT" | "NOT_CONFIGURED" | "RESULT_TOO_LARGE";

/**
 * Messages are redacted before they get here. The raw upstream error is deliberately not kept as
 * `cause`: its text (an HTTP body, a child's output) may hold a secret that was never registered.
 */
export class McpAdapterError extends AdapterError<McpErrorCode> {
  /** A host-side file the user fixes between calls (a token store, read again on the next call): the loop breaker lets the same call retry. */
  readonly hostFixable: boolean;
  constructor(code: McpErrorCode, message: string, options: { status?: number; cause?: unknown; hint?: string; details?: Record<string, unknown>; hostFixable?: boolean } = {}) {
    super(code, message, options);
    this.name = "McpAdapterError";
    this.hostFixable = options.hostFixable === true;
  }
}

/**
 * A start that ended with the server's process exiting before it answered anything
 * (stdio-transport.ts). Such an exit says nothing of the protocol era the server speaks, so
 * connection.ts does not keep starting it in the other era.
 */
export class ExitedWhileStarting extends McpAdapterError {
  constructor(message: string, options: { hint: string }) {
    super("UPSTREAM_ERROR", message, options);
  }
}

/**
 * The server answered `initialize` with a protocol version this runtime's SDK client does not speak
 * (2023-01-01): the client refused it and closed the connection itself (lenient-handshake.ts). Not
 * a server that stopped by itself, though its stdio process then exits (its stdin was closed):
 * connection.ts says what it is, over stdio and HTTP alike.
 */
export class UnsupportedServerVersion extends Error {
  constructor(
    /** The version the server answered, as it sent it. */
    readonly offered: string,
    /** The 2025-era versions the client accepts in an initialize answer, newest first. */
    readonly supported: readonly string[],
  ) {
    super(`the server answered initialize with protocol version ${offered}, which this runtime does not speak`);
    this.name = "UnsupportedServerVersion";
  }
}

/**
 * A start whose era probe was given up as unanswered (probe-silence.ts) and that the server then
 * answered as a 2026-07-28 server, the start failing after (it refused the initialize sent in the
 * meantime): a slow modern server, not a 2025-era one. connection.ts starts it again at once; the
 * opener then waits for its probe (stdio-transport.ts).
 */
export class ProbeAnsweredLate extends McpAdapterError {
  constructor(message: string) {
    super("UPSTREAM_ERROR", message, { hint: "The server is slow to start and speaks the 2026-07-28 era: its next start waits for its era probe as long as its timeoutMs. Call again. Tool arguments cannot fix this." });
  }
}

/** A problem in the declarative `adapter` block, found when the adapter is built; names the field. */
export class McpSpecError extends AdapterSpecError {
  override readonly name = "McpSpecError";
}

/** An upstream error's message, with its causes' codes (`fetch failed: ECONNREFUSED`): messageWithCauses. */
export function errorMessage(error: unknown): string {
  return messageWithCauses(error);
}

/**
 * A downstream's own error text as a message quotes it: one line, cut at DOWNSTREAM_TEXT_CHARS
 * with a note. A server that checks its own answer replies -32602 with a validator's dump of a
 * hundred indented lines, which was quoted whole. Masked before the cut: a cut through a secret
 * would leave a part the redactor no longer recognises.
 */
export function quotedServerText(text: string, redact: (text: string) => string): string {
  return cutNoted(flatLine(redact(text)), DOWNSTREAM_TEXT_CHARS);
}

/**
 * A numeric code: a JSON-RPC error code (ProtocolError), or an HTTP status (the SDK v2's
 * SdkHttpError keeps it in `status`; older SSE errors and v1 errors in a numeric `code`).
 */
export function numericCode(error: unknown): number | undefined {
  if (error && typeof error === "object") {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "number") return code;
    const status = (error as { status?: unknown }).status ?? (error as { data?: { status?: unknown } }).data?.status;
    if (typeof status === "number") return status;
  }
  return undefined;
}

/** JSON-RPC -32022: the server does not serve the protocol version offered (a final answer). */
const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/**
 * Whether the server answered "unsupported protocol version": a ProtocolError with -32022, or an
 * HTTP 400 whose body (quoted in the SDK's error message) is that JSON-RPC error.
 */
export function isUnsupportedProtocolVersion(error: unknown): boolean {
  if (numericCode(error) === UNSUPPORTED_PROTOCOL_VERSION) return true;
  return error instanceof Error && /(^|[^\d])-32022\b/.test(error.message);
}

/** The SDK's request timeout fired (the connection's deadline: it sets no timer of its own). */
export function isRequestTimeout(error: unknown): error is SdkError {
  return error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout;
}
