import type { RequestIdsInFlight } from "./request-ids.js";

/**
 * A 2025-era session's POST answer as its client gets it: without the answers of the requests the
 * client cancelled with notifications/cancelled (request-ids.ts `withdraw`).
 *
 * Why: the spec asks a server not to answer a cancelled request, and the SDK sends nothing for
 * one, but its transport holds the request's route (the POST's pending JSON answer, or its SSE
 * stream) until an answer is sent. Held, the POST stayed open until the client disconnected (the
 * SDK clients keep their fetch open after cancelling), the id stayed claimed, and the session
 * counted a request in flight for ever (never idle, never evicted, "interrupted" at shutdown). So
 * an answer is sent to drop the route, and taken out here:
 *  - JSON: the body without it; a POST left with nothing to answer ends `202` with no body, which
 *    the SDK clients (v1 and v2) read as nothing to deliver;
 *  - SSE: its event is left out; the stream ends as the SDK ends it, once every request it carries
 *    is answered.
 */
export function withoutWithdrawn(response: Response, ids: RequestIdsInFlight): Response | Promise<Response> {
  const type = response.headers.get("content-type") ?? "";
  // A stream's answers come after it began, possibly after a cancel: each event is looked at as it passes.
  if (type.startsWith("text/event-stream") && response.body) {
    return new Response(response.body.pipeThrough(dropWithdrawnEvents(ids)), { status: response.status, statusText: response.statusText, headers: response.headers });
  }
  if (!ids.anyWithdrawn || !type.startsWith("application/json")) return response;
  return withoutWithdrawnJson(response, ids);
}

/** A JSON-RPC answer (no method, an id, a result or an error) to a withdrawn request. */
function answersWithdrawn(message: unknown, ids: RequestIdsInFlight): boolean {
  if (!message || typeof message !== "object" || "method" in message) return false;
  return ("result" in message || "error" in message) && ids.isWithdrawn((message as { id?: unknown }).id);
}

async function withoutWithdrawnJson(response: Response, ids: RequestIdsInFlight): Promise<Response> {
  const text = await response.text();
  const again = (): Response => new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return again();
  }
  const messages: unknown[] = Array.isArray(parsed) ? parsed : [parsed];
  const kept = messages.filter((message) => !answersWithdrawn(message, ids));
  if (kept.length === messages.length) return again();
  if (kept.length === 0) return new Response(null, { status: 202 });
  // A batch keeps the answers of its other requests.
  return new Response(JSON.stringify(kept), { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * Leaves out the SSE events that answer a withdrawn request. The SDK's transport enqueues each
 * event whole, as one chunk, so a chunk is read as one event.
 */
function dropWithdrawnEvents(ids: RequestIdsInFlight): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  return new TransformStream({
    transform(chunk, controller) {
      if (ids.anyWithdrawn && answersWithdrawn(eventData(decoder.decode(chunk)), ids)) return;
      controller.enqueue(chunk);
    },
  });
}

/** The JSON of an SSE event's data line; undefined for a comment (keep-alive) or anything unparsable. */
function eventData(event: string): unknown {
  const line = event.split("\n").find((l) => l.startsWith("data: {"));
  if (!line) return undefined;
  try {
    return JSON.parse(line.slice(6)) as unknown;
  } catch {
    return undefined;
  }
}
