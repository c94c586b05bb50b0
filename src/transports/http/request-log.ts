import type { ServerResponse } from "node:http";
import { escapeControls } from "../../log.js";
import { requestIdsOf } from "./request-ids.js";
import { splitLines } from "../../text-lines.js";

/**
 * One stderr line per HTTP request: path, session, JSON-RPC method, tool, status, outcome, duration.
 * The outcome of a tools/call is read from the response body as it streams past (JSON or SSE),
 * so the line says whether the tool failed and with which runtime error code. Bodies are looked
 * at only up to a bound and never logged themselves.
 */

const CAPTURE_LIMIT = 256 * 1024;

export interface RequestFacts {
  httpMethod: string;
  /** The request target's path (no query: it may carry what a log must not), escaped and cut; set once it parsed. */
  path?: string;
  /** A balancer's health or readiness probe (/healthz, /readyz): logged at debug, one a second per balancer would drown the rest. */
  probe?: boolean;
  session?: string;
  rpcMethods: string[];
  tool?: string;
  /** Answered by the facade's fast lane (modern-lane.ts) rather than the SDK. */
  lane?: boolean;
  /** The ids of the JSON-RPC requests in the body (what an interrupted exchange answers). */
  requestIds?: Array<string | number>;
  /** Answered by the server's shutdown while it still ran (interrupted.ts): its effect is unknown. */
  interrupted?: boolean;
  /** Its requests were cancelled by the client (notifications/cancelled) and ended without an answer (withdrawn.ts). */
  cancelled?: boolean;
}

/** What a parsed body says about the request, for the log line. */
export function describeBody(body: unknown): Pick<RequestFacts, "rpcMethods" | "tool" | "requestIds"> {
  const messages = Array.isArray(body) ? body : [body];
  const rpcMethods: string[] = [];
  let tool: string | undefined;
  for (const message of messages) {
    if (!message || typeof message !== "object") continue;
    const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
    // Client-chosen text: cut, and escaped so that one request stays one log line.
    if (typeof method === "string") rpcMethods.push(escapeControls(method.slice(0, 80)));
    if (method === "tools/call" && typeof params?.name === "string") tool = escapeControls(params.name.slice(0, 120));
  }
  return { rpcMethods, tool, requestIds: requestIdsOf(body) };
}

/** How many of a body's JSON-RPC methods a log line names; a batch of thousands must not make a megabyte line. */
export const LOGGED_METHODS = 10;

/** The body's methods for a log line: the first LOGGED_METHODS, then how many more there were. */
export function methodsForLog(rpcMethods: readonly string[]): string {
  const named = rpcMethods.slice(0, LOGGED_METHODS).join(",");
  const more = rpcMethods.length - LOGGED_METHODS;
  return more > 0 ? `${named} and ${more} more` : named;
}

/** Keeps a bounded copy of what is written to the response. */
export function captureResponse(res: ServerResponse): () => string {
  const chunks: Buffer[] = [];
  let size = 0;
  const keep = (chunk: unknown, encoding?: unknown): void => {
    if (chunk === undefined || chunk === null || typeof chunk === "function" || size >= CAPTURE_LIMIT) return;
    const buffer = Buffer.isBuffer(chunk)
      ? chunk
      : chunk instanceof Uint8Array
        ? Buffer.from(chunk)
        : Buffer.from(String(chunk), typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8");
    chunks.push(buffer.subarray(0, CAPTURE_LIMIT - size));
    size += buffer.length;
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  (res as unknown as { write: (...args: unknown[]) => boolean }).write = (...args: unknown[]) => {
    keep(args[0], args[1]);
    return write(...args);
  };
  (res as unknown as { end: (...args: unknown[]) => ServerResponse }).end = (...args: unknown[]) => {
    keep(args[0], args[1]);
    return end(...args);
  };
  return () => Buffer.concat(chunks).toString("utf8");
}

/** The JSON-RPC messages in a response body, JSON or SSE (unparsable: none). */
export function messagesIn(body: string, contentType: string): unknown[] {
  try {
    if (contentType.includes("text/event-stream")) {
      return splitLines(body)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trim())
        .filter((data) => data.startsWith("{") || data.startsWith("["))
        .flatMap((data) => {
          const parsed = JSON.parse(data) as unknown;
          return Array.isArray(parsed) ? parsed : [parsed];
        });
    }
    if (!body) return [];
    const parsed = JSON.parse(body) as unknown;
    return Array.isArray(parsed) ? parsed : [parsed];
  } catch {
    return [];
  }
}

/** The error code in a facade answer's one-line JSON text (the facade sends the payload once, as text). */
function errorCodeOf(text: string | undefined): string {
  if (!text) return "?";
  try {
    const code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
    return typeof code === "string" ? code : "?";
  } catch {
    return "?";
  }
}

/**
 * `ok`, `tool-error CODE`, `rpc-error CODE`, or `http STATUS` when the body says nothing more;
 * `interrupted` when the server's shutdown answered it while it ran (its effect unknown);
 * `cancelled` when its client cancelled it and it ended unanswered.
 */
export function outcomeOf(status: number, contentType: string, body: string, facts: RequestFacts): string {
  if (facts.interrupted) return "interrupted";
  if (facts.cancelled) return "cancelled";
  const responses = messagesIn(body, contentType).filter((m): m is { id?: unknown; result?: unknown; error?: { code?: unknown } } => !!m && typeof m === "object");
  const rpcError = responses.find((m) => m.error !== undefined);
  if (rpcError) return `rpc-error ${String(rpcError.error?.code ?? "?")}`;
  if (facts.tool) {
    const result = responses.find((m) => m.result !== undefined)?.result as { isError?: boolean; content?: Array<{ type?: string; text?: string }> } | undefined;
    if (result?.isError) return `tool-error ${errorCodeOf(result.content?.[0]?.text)}`;
    if (result) return "ok";
  }
  if (status >= 400) return `http ${status}`;
  return "ok";
}
