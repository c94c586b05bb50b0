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

/** The name part of a Host header: `[::1]:8321` → `[::1]`, `localhost:80` → `localhost`. */
function hostName(header: string): string {
  const trimmed = header.trim().toLowerCase();
  if (trimmed.startsWith("[")) {
    const end = trimmed.indexOf("]");
    return end === -1 ? trimmed : trimmed.slice(0, end + 1);
  }
  const colon = trimmed.lastIndexOf(":");
  return colon === -1 ? trimmed : trimmed.slice(0, colon);
}

/**
 * `hostOptional`: a request without Host passes (a balancer's HTTP/1.0 health probe sends none; a
 * browser always sends one, so DNS rebinding is still stopped). A Host that is present is checked.
 */
export function checkHost(req: IncomingMessage, options: Pick<HttpOptions, "allowedHosts">, { hostOptional = false } = {}): Rejection | undefined {
  const header = req.headers.host;
  if (!header) return hostOptional ? undefined : { status: 400, message: "the request has no Host header" };
  const name = hostName(header);
  const bare = name.replace(/^\[|\]$/g, "");
  if (isLoopbackName(name) || isLoopbackName(bare) || options.allowedHosts.includes(bare) || options.allowedHosts.includes(name)) return undefined;
  return { status: 403, message: `Host '${header}' is not allowed; only loopback names and http.allowedHosts (AGENT_TOOLS_HTTP_ALLOWED_HOSTS) are accepted` };
}

export function checkOrigin(req: IncomingMessage, options: Pick<HttpOptions, "allowedOrigins">): Rejection | undefined {
  const origin = req.headers.origin;
  // Non-browser clients send no Origin; a browser always does, and that is the case to stop.
  if (origin === undefined) return undefined;
  const normalised = origin.trim().toLowerCase().replace(/\/+$/, "");
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
