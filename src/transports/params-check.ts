import { specTypeSchemas, type JSONRPCMessage, type Server } from "@modelcontextprotocol/server";
import { isPlainObject } from "../plain-object.js";
import { answerFirst } from "./answer-first.js";

/**
 * The params of the requests the facade serves, checked before the SDK sees them: `initialize`,
 * `logging/setLevel`, `tools/list` and `tools/call`.
 *
 * Why: the SDK answers bad params of these with a raw zod dump as its message (a JSON array of
 * issues spread over many lines), and for initialize, setLevel and tools/list with -32603
 * "Internal error": the wrong code (the server did nothing wrong) and no sentence a client or a
 * person can act on. Here the same schemas (the SDK's own, specTypeSchemas) give -32602 naming each
 * bad member and what to send. A valid request is left to the SDK untouched; `wellFormed` lets
 * the usual request (a tools/call with a string name and object arguments) pass without running a
 * schema, so the hot path pays two type checks. `ping` has no params to get wrong, and a `params`
 * or `_meta` that is not an object is refused before this (refused-request.ts).
 */

interface Checked {
  schema: (typeof specTypeSchemas)[keyof typeof specTypeSchemas];
  send: string;
  /** True when params plainly pass the schema (the schema is then not run). */
  wellFormed?: (params: unknown) => boolean;
}

const CHECKED = new Map<string, Checked>([
  ["initialize", { schema: specTypeSchemas.InitializeRequest, send: 'Send {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "…", "version": "…"}}' }],
  ["logging/setLevel", { schema: specTypeSchemas.SetLevelRequest, send: 'Send {"level": "info"} (debug, info, notice, warning, error, critical, alert or emergency)' }],
  [
    "tools/list",
    {
      schema: specTypeSchemas.ListToolsRequest,
      send: 'Send no params, or {"cursor": "…"} with the nextCursor string of the previous page',
      wellFormed: (params) => params === undefined || (isPlainObject(params) && params.cursor === undefined),
    },
  ],
  [
    "tools/call",
    {
      schema: specTypeSchemas.CallToolRequest,
      send: 'Send {"name": "<a tool name from tools/list>", "arguments": {…}} (arguments an object, or left out)',
      wellFormed: (params) => isPlainObject(params) && typeof params.name === "string" && (params.arguments === undefined || isPlainObject(params.arguments)),
    },
  ],
]);

function pathOf(path: readonly (PropertyKey | { key: PropertyKey })[] | undefined): string {
  return (path ?? []).map((part) => String(typeof part === "object" ? part.key : part)).join(".") || "params";
}

/** zod's words for a JSON reader: a "record" is what JSON calls an object. */
function plainWords(message: string): string {
  return message
    .replace(/^Invalid input: /, "")
    .replace(/\brecord\b/g, "an object")
    .replace(/^expected (.+), received undefined$/, "missing (expected $1)");
}

/** The -32602 answer for a request of a checked method whose params the SDK's schema refuses; undefined for anything else. */
export function invalidParamsAnswer(message: unknown): JSONRPCMessage | undefined {
  if (!isPlainObject(message) || typeof message.method !== "string") return undefined;
  const checked = CHECKED.get(message.method);
  const id = message.id;
  if (!checked || (typeof id !== "string" && typeof id !== "number") || checked.wellFormed?.(message.params)) return undefined;
  const result = checked.schema["~standard"].validate({ method: message.method, ...(message.params !== undefined ? { params: message.params } : {}) });
  if (result instanceof Promise || !result.issues?.length) return undefined;
  const problems = result.issues.slice(0, 3).map((issue) => `'${pathOf(issue.path)}': ${plainWords(issue.message)}`);
  const more = result.issues.length > 3 ? ` (+${result.issues.length - 3} more)` : "";
  return { jsonrpc: "2.0", id, error: { code: -32602, message: `Invalid params for ${message.method}: ${problems.join("; ")}${more}; nothing was run. ${checked.send}.` } } as JSONRPCMessage;
}

/**
 * Have `server` answer each request with bad params (invalidParamsAnswer) itself, as its transport
 * delivers it, instead of handing it to the SDK. The stdio wire and the HTTP entry check a lone
 * message before any Server sees it; a 2025-era JSON-RPC batch (2025-03-26) goes to the SDK's
 * transport whole, which delivers its elements one by one, and this is where each is checked, its
 * answer taking its place in the batch's (answer-first.ts, as stdio-era.ts does).
 */
export function answerInvalidParamsFirst(server: Server): void {
  answerFirst(server, invalidParamsAnswer);
}
