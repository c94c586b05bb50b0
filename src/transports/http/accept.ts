import type { IncomingMessage } from "node:http";

/**
 * What a POST's Accept header says. Clients in the wild (the original runtime's Pi extension among
 * them) POST with `Accept: application/json` alone, or with no Accept at all; the SDK's 2025-era
 * transport answers them 406 because the spec asks clients to list both media types. Such a
 * client is answered with JSON instead: the session it opens is a JSON session (prefersSse is
 * false for it), and the header the SDK's transport reads is completed so the request passes
 * (2025-era requests only: the 2026-07-28 leg reads the header as sent, see admitsSse). A client
 * that names both is left untouched.
 */

const JSON_TYPE = "application/json";
const SSE_TYPE = "text/event-stream";

interface Ranked {
  type: string;
  q: number;
  index: number;
}

/** The media ranges an Accept header lists, lower case, with their q-values and places. */
function ranked(accept: string): Ranked[] {
  return accept.split(",").map((part, index) => {
    const [type = "", ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    const q = Number(params.find((p) => p.startsWith("q="))?.slice(2) ?? "1");
    return { type, q: Number.isFinite(q) ? q : 0, index };
  });
}

/**
 * JSON answers unless the client prefers SSE: text/event-stream with a higher q-value than
 * application/json, or listed first at the same q. MCP clients must accept both; SDK clients
 * list JSON first and so get plain JSON, which is simpler to proxy and to read in logs.
 */
export function prefersSse(accept: string | undefined): boolean {
  if (!accept) return false;
  const types = ranked(accept);
  const sse = types.find((r) => r.type === SSE_TYPE);
  const json = types.find((r) => r.type === JSON_TYPE);
  // q=0 means "not acceptable" (RFC 9110).
  if (!sse || sse.q <= 0) return false;
  if (!json) return true;
  return sse.q > json.q || (sse.q === json.q && sse.index < json.index);
}

/**
 * Whether the client named text/event-stream as acceptable (q above 0). A 2026-07-28 request
 * without it is answered in JSON, never as a stream (modern.ts), and a `subscriptions/listen`,
 * which is only a stream, 406. No Accept counts as JSON only, as for a 2025-era session.
 */
export function admitsSse(accept: string | undefined | null): boolean {
  return !!accept && ranked(accept).some((r) => r.type === SSE_TYPE && r.q > 0);
}

function names(accept: string): string[] {
  return accept.split(",").map((part) => (part.split(";")[0] ?? "").trim().toLowerCase());
}

/** Completes the POST's Accept header in place (both the parsed headers and the raw list the SDK's request adapter reads). */
export function acceptBothMediaTypes(req: IncomingMessage): void {
  const accept = req.headers.accept ?? "";
  const listed = names(accept);
  if (listed.includes(JSON_TYPE) && listed.includes(SSE_TYPE)) return;
  const completed = [accept.trim(), ...[JSON_TYPE, SSE_TYPE].filter((t) => !listed.includes(t))].filter(Boolean).join(", ");
  req.headers.accept = completed;
  const raw = req.rawHeaders;
  let replaced = false;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]?.toLowerCase() !== "accept") continue;
    if (replaced) {
      raw.splice(i, 2);
      i -= 2;
    } else {
      raw[i + 1] = completed;
      replaced = true;
    }
  }
  if (!replaced) raw.push("Accept", completed);
}
