import type { IncomingMessage, ServerResponse } from "node:http";
import { getRequestListener } from "@hono/node-server";
import type { AuthInfo, McpHttpHandler } from "@modelcontextprotocol/server";

/**
 * node:http → `createMcpHandler`'s web-standard `fetch`, for a request whose body the HTTP server
 * has already read and parsed (with its own size cap and parse error).
 *
 * The 2025-era sessions reach the SDK through `NodeStreamableHTTPServerTransport`, which adapts
 * with @hono/node-server's request listener: a lightweight `Request` that builds headers and the
 * abort signal only when asked, and a response writer with a fast path for complete bodies. The
 * 2026-07-28 leg now uses the same adapter, handing the parsed body over as `parsedBody` (the
 * SDK's documented way to skip reading it).
 *
 * It replaces the SDK's `toNodeHandler`, which serves the general case: given a parsed body it
 * serialised it back to JSON and built a full `Request` carrying it, which `fetch` never read; it
 * then read the answer through the body stream. That was modern-only work on every request
 * (bench/protocol.ts).
 */

export type ModernNodeHandler = (req: IncomingMessage, res: ServerResponse, parsedBody: unknown, authInfo?: AuthInfo) => Promise<void>;

export function modernNodeHandler(handler: McpHttpHandler, onerror: (error: Error) => void): ModernNodeHandler {
  return (req, res, parsedBody, authInfo) =>
    getRequestListener((request) => handler.fetch(request, { parsedBody, ...(authInfo ? { authInfo } : {}) }), {
      // Keep the process's own Request/Response (the listener would otherwise install its own globally).
      overrideGlobalObjects: false,
      errorHandler: (error) => {
        // fetch answers its own failures; this is a throw before it (a closed handler).
        onerror(error instanceof Error ? error : new Error(String(error)));
        return Response.json({ jsonrpc: "2.0", error: { code: -32603, message: "Internal server error" }, id: null }, { status: 500 });
      },
    })(req, res);
}
