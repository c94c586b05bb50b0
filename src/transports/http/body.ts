import type { IncomingMessage } from "node:http";

/**
 * Reads a POST body with a size cap, so a client cannot make the server buffer without bound.
 * The cap is checked against Content-Length first (answered before a byte is read) and again
 * while streaming, for chunked bodies that declare nothing.
 */

export type BodyOutcome =
  | { kind: "ok"; text: string }
  | { kind: "too-large"; limit: number }
  | { kind: "aborted" };

export function readBody(req: IncomingMessage, limit: number): Promise<BodyOutcome> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume(); // drain without keeping it
    return Promise.resolve({ kind: "too-large", limit });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (outcome: BodyOutcome): void => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    req.on("data", (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        req.resume();
        finish({ kind: "too-large", limit });
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => finish({ kind: "ok", text: Buffer.concat(chunks).toString("utf8") }));
    req.on("aborted", () => finish({ kind: "aborted" }));
    req.on("error", () => finish({ kind: "aborted" }));
  });
}

export type ParsedBody = { ok: true; value: unknown } | { ok: false; message: string };

export function parseJsonBody(text: string): ParsedBody {
  try {
    // A byte order mark (Windows PowerShell 5's UTF-8 writes one) is ignored, as RFC 8259 lets a parser do.
    return { ok: true, value: JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as unknown };
  } catch (error) {
    return { ok: false, message: `the body is not valid JSON (${(error as Error).message})` };
  }
}
