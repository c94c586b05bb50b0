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
const ALLOWED_HEADER_NAMES = new Set(ALLOWED_HEADERS.toLowerCase().split(", "));
/**
 * `Mcp-Param-<Name>` headers: a client mirrors a tool argument marked `"x-mcp-header": "<Name>"` in
 * the tool's input schema (agent_tools_exec's `workspace` is) into one. Their names are open-ended,
 * so they cannot be listed; a preflight asking for them is answered with the names it asked for.
 * The suffix is an HTTP token (RFC 9110), so nothing else can ride into the answer.
 */
const MCP_PARAM_HEADER = /^mcp-param-[!#$%&'*+.^_`|~0-9a-z-]+$/;
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

/**
 * The headers a preflight may be allowed: the fixed list, plus the `Mcp-Param-*` names the
 * preflight's Access-Control-Request-Headers asks for when every name it asks for is allowed. A
 * request asking for anything else gets the fixed list only, and the browser refuses it: arbitrary
 * names are never echoed.
 */
export function allowedHeadersFor(requested: string | undefined): string {
  const names = (requested ?? "").split(",").map((name) => name.trim().toLowerCase()).filter((name) => name !== "");
  const params = names.filter((name) => MCP_PARAM_HEADER.test(name));
  const allAllowed = names.every((name) => ALLOWED_HEADER_NAMES.has(name) || MCP_PARAM_HEADER.test(name));
  if (!allAllowed || params.length === 0) return ALLOWED_HEADERS;
  return [ALLOWED_HEADERS, ...new Set(params)].join(", ");
}

/** A preflight OPTIONS from a listed origin: 204 naming the methods and headers the endpoint takes. */
export function answerPreflight(req: IncomingMessage, res: ServerResponse, origin: string): void {
  allowOrigin(res, origin);
  // The allowed headers depend on the ones asked for (Mcp-Param-*), so a cache must key on those too.
  res.setHeader("Vary", "Origin, Access-Control-Request-Headers");
  res.writeHead(204, {
    "Access-Control-Allow-Methods": ALLOWED_METHODS,
    "Access-Control-Allow-Headers": allowedHeadersFor(req.headers["access-control-request-headers"]),
    "Access-Control-Max-Age": PREFLIGHT_MAX_AGE,
    "Content-Length": "0",
  });
  res.end();
}
