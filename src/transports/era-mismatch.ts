import { PROTOCOL_VERSION_META_KEY, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type RequestId } from "@modelcontextprotocol/server";
import { isPlainObject } from "../plain-object.js";

/**
 * The answers to a request sent in the wrong era of MCP, worded once for stdio and HTTP.
 *
 * The SDK alone answers these with words that do not say what went wrong: a `server/discover`
 * without the 2026-07-28 envelope is classified as 2025-era traffic and answered -32601 "Method not
 * found" (over stdio it even pins the connection to the 2025 era); an envelope naming a 2025
 * version gets "Unsupported protocol version: 2025-11-25" without saying that era opens with
 * `initialize`; an `initialize` on a connection already in the 2026-07-28 era gets the same bare
 * sentence. Each answer here names the mismatch and the fix.
 */

/** The first revision of the stateless era (revisions are dates, compared as strings, as the SDK compares them). */
const MODERN_VERSION = "2026-07-28";
/** The versions of the 2025 era this server answers initialize with (newest first, as the SDK lists them). */
const LEGACY_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS.filter((version) => version < MODERN_VERSION);
/** What a 2026-07-28 request carries in `_meta`, named in the answers. */
const ENVELOPE_KEYS = `${PROTOCOL_VERSION_META_KEY} "${MODERN_VERSION}", io.modelcontextprotocol/clientCapabilities and io.modelcontextprotocol/clientInfo`;
/** -32022, the SDK's UnsupportedProtocolVersion. */
export const UNSUPPORTED_VERSION_CODE = -32022;

function requestId(message: unknown): RequestId | undefined {
  if (!isPlainObject(message) || typeof message.method !== "string") return undefined;
  return typeof message.id === "string" || typeof message.id === "number" ? message.id : undefined;
}

function metaOf(params: unknown): Record<string, unknown> | undefined {
  return isPlainObject(params) && isPlainObject(params._meta) ? params._meta : undefined;
}

/** The protocol version a request's envelope names, when it names one as a date string before 2026-07-28. */
function earlierVersionClaimed(params: unknown): string | undefined {
  const version = metaOf(params)?.[PROTOCOL_VERSION_META_KEY];
  return typeof version === "string" && /^\d{4}-\d{2}-\d{2}$/.test(version) && version < MODERN_VERSION ? version : undefined;
}

/**
 * The error for a request whose era is plainly wrong whatever the connection is in; undefined
 * for anything else (it goes on to the SDK):
 *  - `server/discover` without the envelope's protocol version: -32602 naming the missing keys
 *    (the data as the SDK's HTTP entry gives it for a missing envelope: `{envelope: {missing}}`);
 *  - any request whose envelope names a date before 2026-07-28: -32022 (the SDK's code and data);
 *    a 2025-era version is told that era opens with `initialize` and sends no protocol version in
 *    `_meta`, any other date is named as no version at all, with the versions this server speaks.
 */
export function wrongEraAnswer(message: unknown): JSONRPCMessage | undefined {
  const id = requestId(message);
  if (id === undefined) return undefined;
  const { method, params } = message as { method: string; params?: unknown };
  if (method === "server/discover") {
    const meta = metaOf(params);
    if (!meta || !(PROTOCOL_VERSION_META_KEY in meta)) {
      const missing = meta ? PROTOCOL_VERSION_META_KEY : "_meta";
      return error(id, -32602, `Invalid params: server/discover is a request of protocol revision ${MODERN_VERSION}, and it is missing the required per-request envelope (${missing}): send _meta with ${ENVELOPE_KEYS}. A 2025-era client opens with initialize instead; nothing was run.`, { envelope: { missing: [missing] } });
    }
  }
  const earlier = earlierVersionClaimed(params);
  if (earlier !== undefined) {
    const said = `Unsupported protocol version: ${earlier} in _meta (${PROTOCOL_VERSION_META_KEY}).`;
    // Only a version of the 2025 era is sent to initialize; any other date is no version at all
    // (2026-07-27, 1999-01-01), and telling the client to initialize with it would fail again.
    const why = LEGACY_VERSIONS.includes(earlier)
      ? `${earlier} is a 2025-era version: that era opens with initialize {"protocolVersion": "${earlier}", …} and its requests carry no protocol version in _meta.`
      : `${earlier} is not a protocol version this server speaks: it speaks ${MODERN_VERSION}, and the 2025 era's ${LEGACY_VERSIONS.join(", ")} (opened with initialize, with no protocol version in _meta).`;
    return error(id, UNSUPPORTED_VERSION_CODE, `${said} ${why} A ${MODERN_VERSION} request names "${MODERN_VERSION}" there; nothing was run.`, { supported: [MODERN_VERSION], requested: earlier });
  }
  return undefined;
}

/**
 * The message of the SDK's -32022 to an `initialize` on a stdio connection already in the
 * 2026-07-28 era (its own says only "Unsupported protocol version: …").
 */
export function initializeOnModernMessage(requested: unknown): string {
  const version = typeof requested === "string" ? `${requested} ` : "";
  return `Unsupported protocol version: this connection is in the ${MODERN_VERSION} era, so initialize (the 2025 era's handshake${version ? `, ${version.trim()}` : ""}) is refused; nothing was run. The era is fixed by the first request other than server/discover: initialize is accepted only before any ${MODERN_VERSION} request. Go on with ${MODERN_VERSION} requests (each with its _meta envelope), or start a new connection that opens with initialize.`;
}

/**
 * The answer to a request carrying the 2026-07-28 envelope (any protocol version in `_meta`) on a
 * stdio connection in the 2025 era; undefined for one that carries none.
 */
export function envelopeOnLegacyAnswer(message: unknown): JSONRPCMessage | undefined {
  const id = requestId(message);
  if (id === undefined) return undefined;
  const { method, params } = message as { method: string; params?: unknown };
  const meta = metaOf(params);
  if (!meta || !(PROTOCOL_VERSION_META_KEY in meta)) return undefined;
  const named = meta[PROTOCOL_VERSION_META_KEY];
  const claim = typeof named === "string" ? `"${named.slice(0, 40)}"` : "a protocol version";
  return error(
    id,
    UNSUPPORTED_VERSION_CODE,
    `Unsupported protocol version: this ${method} names ${claim} in _meta (${PROTOCOL_VERSION_META_KEY}), but this connection is in the 2025 era (it began with initialize, or with a request without that envelope), where requests carry no protocol version in _meta; nothing was run. Send it without the io.modelcontextprotocol/ keys of _meta, or start a new connection whose first request other than server/discover is a ${MODERN_VERSION} one.`,
    { supported: LEGACY_VERSIONS, requested: typeof named === "string" ? named : "unknown" },
  );
}

function error(id: RequestId, code: number, message: string, data: unknown): JSONRPCMessage {
  return { jsonrpc: "2.0", id, error: { code, message, data } } as JSONRPCMessage;
}
