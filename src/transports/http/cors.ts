import type { IncomingMessage, ServerResponse } from "node:http";
import { normalisedOrigin } from "./guards.js";
import type { HttpOptions } from "./options.js";

/**
 * CORS for the origins listed in `http.allowedOrigins`, so a browser page there can use the
 * endpoint: a browser sends `Content-Type: application/json`, `Authorization` and the MCP headers
 * only after a preflight OPTIONS allows them, and lets the page read `Mcp-Session-Id` (which every
 * later request must repeat) and `WWW-Authenticate` only when they are exposed. Other origins get
 * no CORS headers: checkOrigin (guards.ts) answers them 403 before this is asked, and loopback
 * origins, which pass checkOrigin, are served as before but not opened to a page's scripts.
 */

const ALLOWED_METHODS = "GET, POST, DELETE";
const ALLOWED_HEADERS = "Content-Type, Accept, Authorization, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, Mcp-Method, Mcp-Name";
const EXPOSED_HEADERS = "Mcp-Session-Id, WWW-Authenticate";
/** How long a browser may keep a preflight's answer (seconds). */
const PREFLIGHT_MAX_AGE = "600";

/**
 * The request's Origin as `http.allowedOrigins` lists it (lower case, no trailing slash), when it is
 * listed (compared as checkOrigin does). Answered in that form, not as sent: a browser compares
 * Access-Control-Allow-Origin with its own serialisation of the page's origin, which is that form.
 */
export function listedOrigin(req: IncomingMessage, options: Pick<HttpOptions, "allowedOrigins">): string | undefined {
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  const normalised = normalisedOrigin(origin);
  return options.allowedOrigins.includes(normalised) ? normalised : undefined;
}

/** Every answer to a listed origin says so (and varies by Origin, so a cache never hands it to another). */
export function allowOrigin(res: ServerResponse, origin: string): void {
  res.setHeader("Access-Control-Allow-Origin", origin);
  res.setHeader("Vary", "Origin");
  res.setHeader("Access-Control-Expose-Headers", EXPOSED_HEADERS);
}

/** A preflight OPTIONS from a listed origin: 204 naming the methods and headers the endpoint takes. */
export function answerPreflight(res: ServerResponse, origin: string): void {
  allowOrigin(res, origin);
  res.writeHead(204, {
    "Access-Control-Allow-Methods": ALLOWED_METHODS,
    "Access-Control-Allow-Headers": ALLOWED_HEADERS,
    "Access-Control-Max-Age": PREFLIGHT_MAX_AGE,
    "Content-Length": "0",
  });
  res.end();
}
