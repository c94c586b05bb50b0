import type { AgentToolsConfig } from "../../config/config.js";
import { pastTimerLimit, TIMER_MOST } from "../../positive-int.js";
import { maskedUrlText } from "../../url-text.js";

/**
 * Where and how the HTTP facade listens. Environment variables win over the config's `http`
 * block, which wins over the defaults. A server bound to anything but loopback must have a bearer
 * token: without one, anyone who can reach the port could drive every connected service.
 */

const DEFAULT_HTTP_HOST = "127.0.0.1";
const DEFAULT_HTTP_PORT = 8321;
const DEFAULT_MAX_SESSIONS = 64;
const DEFAULT_SESSION_IDLE_MS = 30 * 60 * 1000;
/** A session that did nothing after initialize keeps its slot this long (see sessions.ts). */
const DEFAULT_UNUSED_SESSION_IDLE_MS = 30 * 1000;
const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Modern clients' workspaces with a shell in this process (runtime/workspaces.ts says how room is made). */
const DEFAULT_MAX_WORKSPACES = 256;
export const MCP_PATH = "/mcp";

export interface HttpOptions {
  host: string;
  port: number;
  /** Required on every request when set (always set for a non-loopback bind). */
  token: string | undefined;
  /** Extra Host header names accepted besides the loopback names (lower case, no port). */
  allowedHosts: string[];
  /** Extra Origin values accepted besides loopback origins (lower case, scheme://host[:port]). */
  allowedOrigins: string[];
  maxSessions: number;
  sessionIdleMs: number;
  unusedSessionIdleMs: number;
  maxBodyBytes: number;
  maxWorkspaces: number;
}

export class HttpOptionsError extends Error {
  override readonly name = "HttpOptionsError";
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

/** `localhost`, `127.x.y.z`, `::1` (bracketed or not). */
export function isLoopbackName(name: string): boolean {
  const lower = name.toLowerCase();
  return LOOPBACK_NAMES.has(lower) || /^127(?:\.\d{1,3}){3}$/.test(lower) || lower.endsWith(".localhost");
}

/**
 * The Host name a listener accepts for its own bind address besides the loopback names: the
 * address itself, lower case and unbracketed; none for a wildcard bind (0.0.0.0, ::), whose names
 * the operator lists in http.allowedHosts.
 */
export function boundHostNames(host: string): string[] {
  const name = host.replace(/^\[|\]$/g, "").toLowerCase();
  return name === "0.0.0.0" || name === "::" ? [] : [name];
}

/**
 * A port AGENT_TOOLS_HTTP_PORT or http.port names: a whole number from 0 to 65535 ("1e3" is 1000).
 * The start check (config/env-settings.ts) uses it too, so it accepts what the server does.
 */
export function portNumber(raw: string | number): number | undefined {
  const value = typeof raw === "number" ? raw : Number(raw);
  return typeof raw === "string" && !raw.trim() ? undefined : Number.isInteger(value) && value >= 0 && value <= 65535 ? value : undefined;
}

/** `ms`: milliseconds a timer waits, so no more than it can (positive-int.ts MAX_TIMER_MS). */
function positiveInteger(raw: string | number | undefined, what: string, fallback: number, { allowZero = false, ms = false } = {}): number {
  if (raw === undefined || raw === "") return fallback;
  const value = typeof raw === "number" ? raw : Number(raw);
  if (!Number.isInteger(value) || value < (allowZero ? 0 : 1) || (ms && pastTimerLimit(value))) {
    throw new HttpOptionsError(`${what} must be a ${allowZero ? "non-negative" : "positive"} integer${ms ? ` of milliseconds, ${TIMER_MOST}` : ""} (got '${String(raw)}')`);
  }
  return value;
}

function list(raw: string | undefined): string[] {
  return (raw ?? "").split(",").map((item) => item.trim()).filter(Boolean);
}

/**
 * An allowed Origin as a browser sends it (`https://app.example.com`, lower case, no default port,
 * nothing after the host), or a refusal: an entry that is no origin (`not a url`, a path, another
 * scheme) would never match a request, and the page it was meant for would be refused without a
 * word at start.
 */
function allowedOrigin(entry: string): string {
  let url: URL | undefined;
  try {
    url = new URL(entry);
  } catch {
    url = undefined;
  }
  const extra = url && (url.pathname !== "/" || url.search || url.hash || url.username || url.password);
  if (!url || !/^https?:$/.test(url.protocol) || extra) {
    throw new HttpOptionsError(
      `AGENT_TOOLS_HTTP_ALLOWED_ORIGINS (or http.allowedOrigins) holds '${maskedUrlText(entry.slice(0, 100))}', which is not an origin: write each as a browser sends it, http:// or https://, the host and an optional port, nothing after (e.g. https://app.example.com), comma-separated`,
    );
  }
  return url.origin;
}

/** `teamAuth`: the config's team block names identities or a JWT issuer, which guard a public bind as a token does. */
export function resolveHttpOptions(env: NodeJS.ProcessEnv, config: AgentToolsConfig["http"] = {}, teamAuth = false): HttpOptions {
  const host = env.AGENT_TOOLS_HTTP_HOST?.trim() || config.host || DEFAULT_HTTP_HOST;
  const rawPort = env.AGENT_TOOLS_HTTP_PORT?.trim() || config.port;
  const port = rawPort === undefined ? DEFAULT_HTTP_PORT : portNumber(rawPort);
  if (port === undefined) throw new HttpOptionsError(`AGENT_TOOLS_HTTP_PORT (or http.port) must be a port number, a whole number from 0 to 65535 (0 picks a free one) (got '${String(rawPort)}')`);
  const token = env.AGENT_TOOLS_HTTP_TOKEN?.trim() || undefined;
  if (!isLoopbackName(host) && !token && !teamAuth) {
    throw new HttpOptionsError(
      `refusing to listen on '${host}' without a token: a non-loopback address is reachable by other machines. Set AGENT_TOOLS_HTTP_TOKEN to a long random value (clients then send 'Authorization: Bearer <token>'), or bind 127.0.0.1.`,
    );
  }
  if (token !== undefined && token.length < 16) {
    throw new HttpOptionsError("AGENT_TOOLS_HTTP_TOKEN is shorter than 16 characters; use a long random value (e.g. `openssl rand -hex 32`)");
  }
  return {
    host,
    port,
    token,
    allowedHosts: [...new Set([...(config.allowedHosts ?? []), ...list(env.AGENT_TOOLS_HTTP_ALLOWED_HOSTS), ...boundHostNames(host)].map((h) => h.toLowerCase()))],
    allowedOrigins: [...new Set([...(config.allowedOrigins ?? []), ...list(env.AGENT_TOOLS_HTTP_ALLOWED_ORIGINS)].map(allowedOrigin))],
    maxSessions: positiveInteger(env.AGENT_TOOLS_HTTP_MAX_SESSIONS ?? config.maxSessions, "AGENT_TOOLS_HTTP_MAX_SESSIONS (or http.maxSessions)", DEFAULT_MAX_SESSIONS),
    sessionIdleMs: positiveInteger(env.AGENT_TOOLS_HTTP_SESSION_IDLE_MS ?? config.sessionIdleMs, "AGENT_TOOLS_HTTP_SESSION_IDLE_MS (or http.sessionIdleMs)", DEFAULT_SESSION_IDLE_MS, { ms: true }),
    unusedSessionIdleMs: positiveInteger(
      env.AGENT_TOOLS_HTTP_UNUSED_SESSION_IDLE_MS ?? config.unusedSessionIdleMs,
      "AGENT_TOOLS_HTTP_UNUSED_SESSION_IDLE_MS (or http.unusedSessionIdleMs)",
      DEFAULT_UNUSED_SESSION_IDLE_MS,
      { ms: true },
    ),
    maxBodyBytes: positiveInteger(env.AGENT_TOOLS_HTTP_MAX_BODY_BYTES ?? config.maxBodyBytes, "AGENT_TOOLS_HTTP_MAX_BODY_BYTES (or http.maxBodyBytes)", DEFAULT_MAX_BODY_BYTES),
    maxWorkspaces: positiveInteger(env.AGENT_TOOLS_HTTP_MAX_WORKSPACES ?? config.maxWorkspaces, "AGENT_TOOLS_HTTP_MAX_WORKSPACES (or http.maxWorkspaces)", DEFAULT_MAX_WORKSPACES),
  };
}
