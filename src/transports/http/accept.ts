import type { IncomingMessage } from "node:http";

/**
 * Clients in the wild (the original runtime's Pi extension among them) POST with
 * `Accept: application/json` alone, or with no Accept at all; the SDK's transport answers them
 * 406 because the spec asks clients to list both media types. Such a client is answered with JSON
 * instead: the session it opens is a JSON session (prefersSse is false for it), and the header the
 * SDK reads is completed so the request passes. A client that names both is left untouched.
 */

const JSON_TYPE = "application/json";
const SSE_TYPE = "text/event-stream";

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
