import { ASK_FOR_LESS } from "../../ask-for-less.js";
import { sizeWords } from "../../byte-size.js";
import { AdapterError } from "./errors.js";

/**
 * Response bodies are read as streams, never whole: a backend that answers 600 MB must cost the
 * runtime at most the cap, not the body (a 600 MB body read with `response.text()` took a server
 * to 1.3 GB and then failed inside V8's string limit). Past the cap the read is cancelled and the
 * call fails with RESULT_TOO_LARGE, whose hint tells the model to ask for less.
 */

const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** The cap for `env`: AGENT_TOOLS_MAX_RESPONSE_BYTES when it is a positive integer, else `fallback`. */
export function maxResponseBytesFrom(env: NodeJS.ProcessEnv, fallback = DEFAULT_MAX_RESPONSE_BYTES): number {
  const value = Number(env.AGENT_TOOLS_MAX_RESPONSE_BYTES);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

const TOO_LARGE_HINT = `Nothing more was read. ${ASK_FOR_LESS}, then call again.`;

export class ResponseTooLargeError extends AdapterError {
  constructor(what: string, limitBytes: number, announcedBytes?: number) {
    const size = announcedBytes !== undefined ? `is ${sizeWords(announcedBytes)}` : `is larger than ${sizeWords(limitBytes)}`;
    super("RESULT_TOO_LARGE", `${what}: the answer ${size}, over the ${sizeWords(limitBytes)} the runtime reads (maxResponseBytes, AGENT_TOOLS_MAX_RESPONSE_BYTES)`, {
      hint: TOO_LARGE_HINT,
      details: { limitBytes, ...(announcedBytes !== undefined ? { announcedBytes } : {}) },
    });
    this.name = "ResponseTooLargeError";
  }
}

function announced(headers: Headers): number | undefined {
  const raw = headers.get("content-length");
  const value = raw === null ? NaN : Number(raw);
  return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

export interface CappedRead {
  bytes: Uint8Array;
  /** True when the body went past the cap and `bytes` is its first `limit` bytes (only with `truncate`). */
  truncated: boolean;
}

/**
 * The body of `response`, at most `limit` bytes. Past it: with `truncate`, the first `limit`
 * bytes and `truncated: true` (for error bodies, of which an excerpt is enough); otherwise
 * ResponseTooLargeError. A Content-Length over the cap is refused before any byte is read.
 */
export async function readCappedBody(response: Response, limit: number, what: string, options: { truncate?: boolean } = {}): Promise<CappedRead> {
  const length = announced(response.headers);
  if (length !== undefined && length > limit && !options.truncate) {
    await response.body?.cancel().catch(() => undefined);
    throw new ResponseTooLargeError(what, limit, length);
  }
  if (!response.body) return { bytes: new Uint8Array(0), truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > limit) {
      await reader.cancel().catch(() => undefined);
      if (!options.truncate) throw new ResponseTooLargeError(what, limit);
      chunks.push(value.subarray(0, limit - size));
      return { bytes: concat(chunks, limit), truncated: true };
    }
    chunks.push(value);
    size += value.byteLength;
  }
  return { bytes: concat(chunks, size), truncated: false };
}

/** How many bytes a body has, counted up to `limit` without keeping them; cancelled past it. */
export async function countBody(response: Response, limit: number): Promise<{ bytes: number; more: boolean }> {
  const length = announced(response.headers);
  if (length !== undefined || !response.body) {
    await response.body?.cancel().catch(() => undefined);
    return { bytes: length ?? 0, more: false };
  }
  const reader = response.body.getReader();
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes, more: false };
    bytes += value.byteLength;
    if (bytes > limit) {
      await reader.cancel().catch(() => undefined);
      return { bytes: limit, more: true };
    }
  }
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1 && chunks[0]?.byteLength === size) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/**
 * A fetch whose response bodies are capped as they stream: a JSON (or other single) body past
 * `limit` bytes errors with ResponseTooLargeError; an SSE stream is capped per event, so a
 * long-lived stream of small events is never cut. For clients that read bodies themselves (the
 * MCP SDK's HTTP transports).
 */
export function cappedFetch(limit: number, what: string, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (!response.body || [101, 204, 205, 304].includes(response.status)) return response;
    const perEvent = /^text\/event-stream/i.test(response.headers.get("content-type") ?? "");
    const length = announced(response.headers);
    if (!perEvent && length !== undefined && length > limit) {
      await response.body.cancel().catch(() => undefined);
      throw new ResponseTooLargeError(what, limit, length);
    }
    let size = 0;
    let last = 0;
    const guard = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (perEvent) {
          // Bytes since the last blank line (an event boundary), across chunk borders.
          for (let i = 0; i < chunk.byteLength; i++) {
            const byte = chunk[i] as number;
            size = byte === 0x0a && last === 0x0a ? 0 : size + 1;
            if (byte !== 0x0d) last = byte;
          }
        } else size += chunk.byteLength;
        if (size > limit) {
          controller.error(new ResponseTooLargeError(what, limit));
          return;
        }
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(guard), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
