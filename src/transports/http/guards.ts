import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isLoopbackName, type HttpOptions } from "./options.js";

/**
 * Checks every request passes before the MCP transport sees it. Host and Origin stop DNS
 * rebinding (a web page whose name resolves to 127.0.0.1 must not reach the server); the bearer
 * token stops anyone else on the network. Each check answers what failed, never why it would
 * have passed.
 */

export interface Rejection {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

/**
 * The name part of a host[:port] authority (a Host header or an absolute-form target's), lower
 * case: `[::1]:8321` → `[::1]`, `localhost:80` → `localhost`. Undefined unless it is exactly a
 * name or a bracketed IPv6 address, then at most a port of 1–65535: `[::1]evil.example`,
 * `localhost:abc` and `127.0.0.1:99999` are no authorities (read loosely, the first passed as `[::1]`).
 */
function hostName(authority: string): string | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9._~-]+)(?::(\d{1,5}))?$/.exec(authority.trim().toLowerCase());
  if (!match) return undefined;
  const port = match[2] === undefined ? undefined : Number(match[2]);
  return port === undefined || (port >= 1 && port <= 65535) ? match[1] : undefined;
}

function isAllowedHost(name: string, options: Pick<HttpOptions, "allowedHosts">): boolean {
  const bare = name.replace(/^\[|\]$/g, "");
  return isLoopbackName(name) || isLoopbackName(bare) || options.allowedHosts.includes(bare) || options.allowedHosts.includes(name);
}

const ALLOWED_HOSTS_HINT = "only loopback names and http.allowedHosts (AGENT_TOOLS_HTTP_ALLOWED_HOSTS) are accepted";

/** The authority of an absolute-form request target (`POST http://host/mcp`, what a forward proxy sends); undefined for the usual origin-form `/mcp`. */
function targetAuthority(target: string | undefined): string | undefined {
  if (!target || target.startsWith("/")) return undefined;
  return /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(target)?.[1] ?? "";
}

/**
 * `hostOptional`: a request without Host passes (a balancer's HTTP/1.0 health probe sends none; a
 * browser always sends one, so DNS rebinding is still stopped). A Host that is present is checked,
 * strictly (one header, a name or [IPv6], a valid port or none), and so is the authority of an
 * absolute-form target: that authority, not Host, names the host the request is for (RFC 9112 3.2.2).
 */
export function checkHost(req: IncomingMessage, options: Pick<HttpOptions, "allowedHosts">, { hostOptional = false } = {}): Rejection | undefined {
  const headers = req.headersDistinct.host ?? [];
  if (headers.length > 1) return { status: 400, message: `the request has ${headers.length} Host headers; send exactly one` };
  const header = headers[0];
  if (!header) {
    if (!hostOptional) return { status: 400, message: "the request has no Host header" };
  } else {
    const name = hostName(header);
    if (name === undefined) return { status: 400, message: `Host '${header}' is not a valid host: send a name or [IPv6 address], optionally with ':' and a port from 1 to 65535` };
    if (!isAllowedHost(name, options)) return { status: 403, message: `Host '${header}' is not allowed; ${ALLOWED_HOSTS_HINT}` };
  }
  const authority = targetAuthority(req.url);
  if (authority === undefined) return undefined;
  const name = hostName(authority);
  if (name === undefined) return { status: 400, message: `the request target '${req.url}' names no valid host; send the path alone, e.g. 'POST /mcp'` };
  if (!isAllowedHost(name, options)) return { status: 403, message: `the request target names host '${authority}', which is not allowed; ${ALLOWED_HOSTS_HINT}` };
  return undefined;
}

/**
 * The host[:port] the request is for, as checkHost checked it: an absolute-form target's authority
 * (it, not Host, names the host: RFC 9112 3.2.2), else the Host header. For URLs answered back to
 * the client (the resource metadata's address), which must name the host the client addressed.
 */
export function requestHost(req: IncomingMessage): string | undefined {
  return targetAuthority(req.url) || req.headers.host;
}

/** An Origin as http.allowedOrigins lists it: trimmed, lower case, no trailing slash. */
export function normalisedOrigin(origin: string): string {
  return origin.trim().toLowerCase().replace(/\/+$/, "");
}

export function checkOrigin(req: IncomingMessage, options: Pick<HttpOptions, "allowedOrigins">): Rejection | undefined {
  const origin = req.headers.origin;
  // Non-browser clients send no Origin; a browser always does, and that is the case to stop.
  if (origin === undefined) return undefined;
  const normalised = normalisedOrigin(origin);
  if (options.allowedOrigins.includes(normalised)) return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(normalised);
  } catch {
    parsed = undefined;
  }
  if (parsed && (parsed.protocol === "http:" || parsed.protocol === "https:") && isLoopbackName(parsed.hostname)) return undefined;
  return { status: 403, message: `Origin '${origin}' is not allowed; only loopback origins and http.allowedOrigins (AGENT_TOOLS_HTTP_ALLOWED_ORIGINS) are accepted` };
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/** Bearer check in constant time: both sides are hashed first, so lengths leak nothing either. */
export function checkBearer(req: IncomingMessage, options: HttpOptions): Rejection | undefined {
  if (options.token === undefined) return undefined;
  const header = req.headers.authorization;
  const challenge = 'Bearer realm="agent-tools-runtime"';
  if (!header) {
    return { status: 401, message: "this server requires 'Authorization: Bearer <token>' (the value of AGENT_TOOLS_HTTP_TOKEN)", headers: { "WWW-Authenticate": challenge } };
  }
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  const presented = match?.[1]?.trim() ?? "";
  if (!match || !timingSafeEqual(digest(presented), digest(options.token))) {
    return {
      status: 401,
      message: "the bearer token is wrong; send the value of AGENT_TOOLS_HTTP_TOKEN as 'Authorization: Bearer <token>'",
      headers: { "WWW-Authenticate": `${challenge}, error="invalid_token"` },
    };
  }
  return undefined;
}
