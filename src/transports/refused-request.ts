import { isJSONRPCRequest, type JSONRPCMessage } from "@modelcontextprotocol/server";
import { plainMessage } from "../jsonrpc-lines.js";
import { isPlainObject } from "../plain-object.js";

/**
 * The answers owed for a stdio line the SDK's JSON-RPC schema refused: one -32600 error per request
 * in it whose id can be echoed, naming what was wrong and how to send it instead.
 *
 * Why: the SDK's stdio transport reports such a line to `onerror` and answers nothing, so a client
 * that sent, say, `_meta: "x"` or a batch waits for its id forever (over HTTP the SDK answers a 400).
 * Only what carries a usable id is answered: a string or a safe integer, as the schema allows; an id
 * the client could not match (null, an object, 2^63) gets nothing, as before, and a notification
 * is never answered.
 */

const INVALID_REQUEST = -32600;
const SHAPE = "it does not match the JSON-RPC 2.0 request shape ('jsonrpc': \"2.0\", a string or integer 'id', a string 'method', and 'params' an object if present)";

function usableId(value: unknown): value is string | number {
  return typeof value === "string" || Number.isSafeInteger(value);
}

/** What in a request-shaped object the schema would refuse, as a sentence naming the member. */
export function describeRefusal(message: Record<string, unknown>): string {
  if (!usableId(message.id)) return `'id' must be a string or an integer within ±(2^53 − 1) (got ${JSON.stringify(message.id)?.slice(0, 40) ?? "nothing"})`;
  if (message.jsonrpc !== "2.0") return `'jsonrpc' must be the string "2.0" (got ${JSON.stringify(message.jsonrpc) ?? "nothing"})`;
  const params = message.params;
  if (params === undefined) return SHAPE;
  if (!isPlainObject(params)) return `'params' must be an object when present (got ${Array.isArray(params) ? "an array" : params === null ? "null" : typeof params})`;
  const meta = params._meta;
  if (meta !== undefined && !isPlainObject(meta)) return `'params._meta' must be an object when present (got ${Array.isArray(meta) ? "an array" : meta === null ? "null" : typeof meta})`;
  if (meta !== undefined && meta.progressToken !== undefined && !usableId(meta.progressToken)) return `'params._meta.progressToken' must be a string or an integer within ±(2^53 − 1) (got ${JSON.stringify(meta.progressToken)?.slice(0, 40) ?? typeof meta.progressToken})`;
  return SHAPE;
}

function answer(id: string | number, reason: string): JSONRPCMessage {
  return { jsonrpc: "2.0", id, error: { code: INVALID_REQUEST, message: `Invalid Request: ${reason}; nothing was run. Fix the message and send it again.` } } as JSONRPCMessage;
}

/** The error answers for `value`, the parsed line the schema refused (empty when nothing in it can be answered). */
export function refusedRequestAnswers(value: unknown): JSONRPCMessage[] {
  if (Array.isArray(value)) {
    // Batches left JSON-RPC over MCP with 2025-06-18; a stdio line carries one message.
    return value.filter((m) => isPlainObject(m) && typeof m.method === "string" && usableId(m.id)).map((m) => answer((m as { id: string | number }).id, "a batch (JSON array) is not accepted over stdio: send each message on a line of its own"));
  }
  if (!isPlainObject(value) || typeof value.method !== "string" || !usableId(value.id)) return [];
  return [answer(value.id, describeRefusal(value))];
}

/**
 * The id of a request line too long or too broken to parse, read from its start: the first
 * `"id"` member before `"params"` (clients write jsonrpc, id, method, params, in that order), when
 * a `"method"` is there too. undefined when it is not, or not a usable id.
 */
export function idFromHead(head: string): string | number | undefined {
  const params = head.indexOf('"params"');
  const before = params === -1 ? head : head.slice(0, params);
  // Only a request: a client's answer to one of ours carries an id of the server's own numbering.
  if (!/"method"\s*:\s*"/.test(before)) return undefined;
  const match = /^\s*\{.*?"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)\s*[,}]/s.exec(before);
  if (!match?.[1]) return undefined;
  try {
    const id: unknown = JSON.parse(match[1]);
    return usableId(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

/** The answer owed for a line longer than the stdio reader holds, when its id can be read from its start. */
export function oversizedRequestAnswers(head: string, limit: number): JSONRPCMessage[] {
  const id = idFromHead(head);
  return id === undefined ? [] : [answer(id, `the message is larger than ${limit} bytes, the most one stdio line may carry, and was skipped unread: send less in one request (a smaller page, or split the work)`)];
}

/**
 * Over HTTP: the first request in a POST body (one message or a batch) that the SDK's schema
 * refuses, with its id (null when it cannot be echoed) and what was wrong. The SDK answers such a
 * body 400 too, but with "Parse error: Invalid JSON-RPC message" (-32700, though the JSON parsed)
 * or "not a valid JSON-RPC message", naming nothing. The quick check (plainMessage) comes first,
 * so a plain request pays no schema parse.
 */
export function refusedRequestIn(body: unknown): { id: string | number | null; message: string } | undefined {
  for (const m of Array.isArray(body) ? body : [body]) {
    if (!isPlainObject(m) || typeof m.method !== "string" || !("id" in m)) continue;
    if (plainMessage(m) || isJSONRPCRequest(m)) continue;
    return { id: usableId(m.id) ? m.id : null, message: `Invalid Request: ${describeRefusal(m)}; nothing was run. Fix the message and send it again.` };
  }
  return undefined;
}

/** The answer owed for a stdio line that is not JSON (say, cut short), when it reads as a request with a usable id. */
export function unparsableRequestAnswers(head: string, reason: string): JSONRPCMessage[] {
  const id = idFromHead(head);
  if (id === undefined) return [];
  return [{ jsonrpc: "2.0", id, error: { code: -32700, message: `Parse error: the line is not valid JSON (${reason}); nothing was run. Send each message as one complete JSON object on a line of its own.` } } as JSONRPCMessage];
}
