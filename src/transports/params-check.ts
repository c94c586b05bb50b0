import { specTypeSchemas, type JSONRPCMessage } from "@modelcontextprotocol/server";
import { isPlainObject } from "../plain-object.js";

/**
 * The params of `initialize` and `logging/setLevel`, checked before the SDK sees them.
 *
 * Why: the SDK checks these inside its handler wrapper, where a failure becomes -32603 "Internal
 * error" with a raw zod dump as its message: the wrong code (the server did nothing wrong) and no
 * sentence a client or a person can act on. Here the same schemas (the SDK's own, specTypeSchemas)
 * give -32602 naming each bad member and what to send. Other methods' params the SDK answers -32602
 * itself, and a valid request is left to it untouched.
 */

const CHECKED = new Map<string, { schema: (typeof specTypeSchemas)[keyof typeof specTypeSchemas]; send: string }>([
  ["initialize", { schema: specTypeSchemas.InitializeRequest, send: 'Send {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "…", "version": "…"}}' }],
  ["logging/setLevel", { schema: specTypeSchemas.SetLevelRequest, send: 'Send {"level": "info"} (debug, info, notice, warning, error, critical, alert or emergency)' }],
]);

function pathOf(path: readonly (PropertyKey | { key: PropertyKey })[] | undefined): string {
  return (path ?? []).map((part) => String(typeof part === "object" ? part.key : part)).join(".") || "params";
}

/** The -32602 answer for a request of a checked method whose params the SDK's schema refuses; undefined for anything else. */
export function invalidParamsAnswer(message: unknown): JSONRPCMessage | undefined {
  if (!isPlainObject(message) || typeof message.method !== "string") return undefined;
  const checked = CHECKED.get(message.method);
  const id = message.id;
  if (!checked || (typeof id !== "string" && typeof id !== "number")) return undefined;
  const result = checked.schema["~standard"].validate({ method: message.method, ...(message.params !== undefined ? { params: message.params } : {}) });
  if (result instanceof Promise || !result.issues?.length) return undefined;
  const problems = result.issues.slice(0, 3).map((issue) => `'${pathOf(issue.path)}': ${issue.message}`);
  const more = result.issues.length > 3 ? ` (+${result.issues.length - 3} more)` : "";
  return { jsonrpc: "2.0", id, error: { code: -32602, message: `Invalid params for ${message.method}: ${problems.join("; ")}${more}; nothing was run. ${checked.send}.` } } as JSONRPCMessage;
}
