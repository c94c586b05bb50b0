import type { IncomingMessage } from "node:http";

/**
 * Reads a POST body with a size cap, so a client cannot make the server buffer without bound.
 * The cap is checked against Content-Length first (answered before a byte is kept) and again
 * while streaming, for chunked bodies that declare nothing.
 */

export type BodyOutcome =
  | { kind: "ok"; text: string }
  /**
   * `unsent`: the client holds the body back (`Expect: 100-continue`, and no 100 Continue was sent
   * for a body over the cap): the answer must close the connection, whose next bytes would be that body.
   */
  | { kind: "too-large"; limit: number; unsent: boolean }
  | { kind: "aborted" };

/**
 * How much of a refused body is read and thrown away before the connection is cut: the client
 * (fetch, the SDK clients) reads the 413 only once it has sent its body; a connection closed while
 * it still sends fails its request with EPIPE instead. Bounded (four times the cap, at least
 * 16 MiB, within 10 s), so a client cannot keep the server reading for ever.
 */
const DISCARD_LIMITS = 4;
const DISCARD_FLOOR_BYTES = 16 * 1024 * 1024;
const DISCARD_MS = 10_000;

export function readBody(req: IncomingMessage, limit: number): Promise<BodyOutcome> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    // server.ts's checkContinue sends no 100 Continue for this size: such a client sends nothing more.
    const unsent = /^\s*100-continue\s*$/i.test(req.headers.expect ?? "");
    if (unsent) req.resume();
    else discardRest(req, limit, 0);
    return Promise.resolve({ kind: "too-large", limit, unsent });
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
        discardRest(req, limit, size);
        finish({ kind: "too-large", limit, unsent: false });
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => finish({ kind: "ok", text: Buffer.concat(chunks).toString("utf8") }));
    req.on("aborted", () => finish({ kind: "aborted" }));
    req.on("error", () => finish({ kind: "aborted" }));
  });
}

/**
 * Reads the rest of a refused body without keeping it, so the answer reaches a client still
 * sending; past its bound in bytes or time, the connection is cut. A body that ends
 * in time leaves the connection open for the client's next request.
 */
function discardRest(req: IncomingMessage, limit: number, alreadyRead: number): void {
  let read = alreadyRead;
  const most = Math.max(DISCARD_LIMITS * limit, DISCARD_FLOOR_BYTES);
  const cut = (): void => {
    clearTimeout(timer);
    req.socket.destroy();
  };
  const timer = setTimeout(cut, DISCARD_MS);
  timer.unref();
  req.on("data", (chunk: Buffer) => {
    read += chunk.length;
    if (read > most) cut();
  });
  req.once("close", () => clearTimeout(timer));
  req.resume();
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
