import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { flatLine } from "./runtime/one-line.js";

/**
 * Newline-delimited JSON-RPC read from a stdio stream, like the SDK's ReadBuffer, with the
 * envelope checked by hand when it is one of the plain shapes every call is made of.
 *
 * The SDK parses each line with its zod JSON-RPC schema; per call that is two parses in the
 * runtime (the agent's request, the downstream's answer) on top of the zod checks of the request
 * and the result the SDK makes anyway. `plainMessage` accepts only what that schema accepts
 * unchanged (a request, a notification, or a result whose keys are all known and whose `_meta`
 * is absent or simple); anything else, errors included, goes through the SDK's own parser
 * (`fallback`), so what a malformed line gets is the same as before.
 */

const RELATED_TASK_META_KEY = "io.modelcontextprotocol/related-task";
const MAX_BUFFER_BYTES = 10 * 1024 * 1024;

type Parse = (line: string) => JSONRPCMessage;

/**
 * A line that is JSON but that the SDK's schema refused: thrown with the parsed value, so the
 * server side can still answer a request in it (stdio-wire.ts) instead of leaving its caller waiting.
 * The message is one short line naming the schema's first problem (schemaProblem); the schema's
 * own error, a pretty-printed dump of every union branch's issues, stays the cause.
 */
export class RefusedLine extends Error {
  constructor(
    readonly value: unknown,
    cause: unknown,
  ) {
    super(`not a valid JSON-RPC message: ${schemaProblem(cause)}`, { cause });
    this.name = "RefusedLine";
  }
}

/** Characters of a refused line's problem: the key names and messages in it are the sender's text. */
const PROBLEM_CHARS = 200;

interface SchemaIssue {
  path?: unknown;
  message?: unknown;
  errors?: unknown;
}

/**
 * The first issue of a zod error as `path: message` (`params: Invalid input: expected object,
 * received string`). A union's issue ("Invalid input") says nothing: its first branch's first
 * issue does (a JSON-RPC message is a union of request, notification, result and error).
 */
function schemaProblem(error: unknown): string {
  let issue = firstIssue((error as { issues?: unknown } | undefined)?.issues);
  for (let depth = 0; issue && depth < 4; depth++) {
    const branches = issue.errors;
    const inner = Array.isArray(branches) ? firstIssue(branches[0]) : undefined;
    if (!inner) break;
    issue = inner;
  }
  if (!issue) return flatLine(error instanceof Error ? error.message : String(error), PROBLEM_CHARS);
  const where = Array.isArray(issue.path) && issue.path.length > 0 ? `${issue.path.map(String).join(".")}: ` : "";
  return flatLine(`${where}${String(issue.message)}`, PROBLEM_CHARS);
}

function firstIssue(issues: unknown): SchemaIssue | undefined {
  const first: unknown = Array.isArray(issues) ? issues[0] : undefined;
  return first !== null && typeof first === "object" ? (first as SchemaIssue) : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** As the SDK's schema: a string or a safe integer (an integer past 2^53, say -4.5e100, it refuses). */
function isRequestId(value: unknown): boolean {
  return typeof value === "string" || Number.isSafeInteger(value);
}

/** Request or notification params: absent, or an object whose `_meta` is absent or a plain progress token holder. */
function plainParams(params: unknown): boolean {
  if (params === undefined) return true;
  if (!isRecord(params)) return false;
  const meta = params._meta;
  if (meta === undefined) return true;
  if (!isRecord(meta) || RELATED_TASK_META_KEY in meta) return false;
  return meta.progressToken === undefined || isRequestId(meta.progressToken);
}

function onlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}

const REQUEST_KEYS = new Set(["jsonrpc", "id", "method", "params"]);
const NOTIFICATION_KEYS = new Set(["jsonrpc", "method", "params"]);
const RESULT_KEYS = new Set(["jsonrpc", "id", "result"]);

/** `value` as a JSON-RPC message when the SDK's schema would pass it unchanged; undefined when only that schema can tell. */
export function plainMessage(value: unknown): JSONRPCMessage | undefined {
  if (!isRecord(value) || value.jsonrpc !== "2.0") return undefined;
  if (typeof value.method === "string") {
    if (!plainParams(value.params)) return undefined;
    if ("id" in value) return isRequestId(value.id) && onlyKeys(value, REQUEST_KEYS) ? (value as JSONRPCMessage) : undefined;
    return onlyKeys(value, NOTIFICATION_KEYS) ? (value as JSONRPCMessage) : undefined;
  }
  if ("result" in value) {
    const result = value.result;
    return isRequestId(value.id) && isRecord(result) && result._meta === undefined && onlyKeys(value, RESULT_KEYS) ? (value as JSONRPCMessage) : undefined;
  }
  return undefined;
}

const EMPTY = Buffer.alloc(0);

/** How much of an oversized line is kept: enough to find its id (refused-request.ts). */
const OVERSIZED_HEAD_BYTES = 1024;

/** A line that is not JSON, reported instead of skipped (reportUnparsable); `head` is its start. */
export class UnparsableLine extends Error {
  constructor(
    readonly head: string,
    reason: string,
  ) {
    super(reason);
    this.name = "UnparsableLine";
  }
}

/** A line longer than the reader holds, skipped to its end; `head` is its start. */
export class OversizedLine extends Error {
  constructor(
    readonly head: string,
    readonly limit: number,
    /** Its end (up to 1024 bytes before the newline): where an SDK-built server writes an answer's id. */
    readonly tail = "",
    /** Its length in bytes, without the newline (0 when not counted). */
    readonly bytes = 0,
  ) {
    super(`a line of more than ${limit} bytes was skipped`);
    this.name = "OversizedLine";
  }
}

/** A JSON string or integer, as a regex source: an id's value, or `"jsonrpc"`'s. */
const ID = '("(?:[^"\\\\]|\\\\.)*"|-?\\d+)';
/** `"method":"…"` among the first members of the top-level object (after only jsonrpc and id), at a line's start. */
const METHOD_FIRST = new RegExp(`^\\s*\\{(?:\\s*"(?:jsonrpc|id)"\\s*:\\s*${ID}\\s*,)*\\s*"method"\\s*:\\s*"`);
/** `"method":"…"` among the last members of the top-level object (before only jsonrpc and id), at a line's end. */
const METHOD_LAST = new RegExp(`[,{]\\s*"method"\\s*:\\s*"(?:[^"\\\\]|\\\\.)*"(?:\\s*,\\s*"(?:jsonrpc|id)"\\s*:\\s*${ID})*\\s*\\}\\s*$`);

/**
 * Whether a line too long to parse is a request or notification (of the server to the client):
 * its top-level `"method"` member is at its start (after jsonrpc and id only) or at its end (before
 * them only), as servers write one method-first or params-first. An answer has no `"method"`; one
 * nested in a result is never placed so.
 */
export function isMethodLine(head: string, tail: string): boolean {
  return METHOD_FIRST.test(head) || METHOD_LAST.test(tail);
}

/**
 * The id of an answer (a JSON-RPC response) in a line too long to parse, read from its ends: the
 * first `"id"` member before `"result"` or `"error"` at its start (jsonrpc, id, then the rest), or
 * the last member at its very end (`…,"jsonrpc":"2.0","id":5}`, as the SDK's servers write it).
 * undefined when the line is a request or notification (isMethodLine: a request's id is not an
 * answer's, and taking it as one would fail the client's call of the same id), or neither end has
 * a usable id.
 */
export function answerIdFromLine(head: string, tail: string): string | number | undefined {
  const body = /"(result|error)"\s*:/.exec(head);
  const before = body ? head.slice(0, body.index) : head;
  if (/"method"\s*:/.test(before) || isMethodLine(head, tail)) return undefined;
  const match = new RegExp(`^\\s*\\{.*?"id"\\s*:\\s*${ID}\\s*[,}]`, "s").exec(before) ?? new RegExp(`[,{]\\s*"id"\\s*:\\s*${ID}\\s*\\}\\s*$`).exec(tail);
  if (!match?.[1]) return undefined;
  try {
    const id: unknown = JSON.parse(match[1]);
    return typeof id === "string" || Number.isSafeInteger(id) ? (id as string | number) : undefined;
  } catch {
    return undefined;
  }
}

export interface LineReaderOptions {
  /**
   * Skip a line that outgrows the buffer, and go on with the next (readMessage throws an
   * OversizedLine for it), instead of throwing from `append`. The server's stdio wire skips: one
   * oversized request must not end the connection. The client side of a downstream throws, and its
   * transport closes, so the call fails at once rather than waiting for an answer that was dropped.
   */
  skipOversized?: boolean;
  /**
   * Throw an UnparsableLine for a line that is not JSON instead of skipping it: the server's stdio
   * wire answers the request in it when its id can be read (a line cut short).
   */
  reportUnparsable?: boolean;
  /** Default 10 MiB, as the SDK's ReadBuffer. */
  maxBytes?: number;
}

/** How many skipped non-JSON lines a reader keeps (strayLines): enough to show what a server logs to stdout. */
const STRAY_LINES_KEPT = 3;

export class JsonRpcLineReader {
  #buffer: Buffer | undefined;
  /** The heads of the last non-JSON lines skipped (not with reportUnparsable): for the error of a server that logs to stdout. */
  readonly #stray: string[] = [];
  readonly #fallback: Parse;
  readonly #skipOversized: boolean;
  readonly #maxBytes: number;
  readonly #reportUnparsable: boolean;
  /** The head of the oversized line being skipped, until its newline arrives. */
  #skipping: string | undefined;
  /** The last bytes of the oversized line being skipped (its tail so far). */
  #skippingTail: Buffer | undefined;
  /** The bytes of the oversized line being skipped so far. */
  #skippingBytes = 0;
  /**
   * Oversized lines that ended, not yet reported by readMessage, in order: each at the stream
   * offset of the line it stands in for (`at`, counted as `#consumed` is), so it is reported
   * after the lines before it and before those after it, however many one chunk held.
   */
  readonly #skips: { at: number; head: string; tail: string; bytes: number }[] = [];
  /** Bytes readMessage has taken from the buffer's start since the reader began (or was cleared): the buffer's offset in the stream. */
  #consumed = 0;

  /** `fallback`: the SDK's `deserializeMessage` (of the client or the server package, whichever side this reads for). */
  constructor(fallback: Parse, options: LineReaderOptions = {}) {
    this.#fallback = fallback;
    this.#skipOversized = options.skipOversized === true;
    this.#maxBytes = options.maxBytes ?? MAX_BUFFER_BYTES;
    this.#reportUnparsable = options.reportUnparsable === true;
  }

  append(chunk: Buffer): void {
    if (this.#skipping !== undefined) {
      const newline = chunk.indexOf(10);
      const part = newline === -1 ? chunk : chunk.subarray(0, newline);
      this.#keepTail(part);
      this.#skippingBytes += part.length;
      if (newline === -1) return;
      this.#endSkip();
      chunk = chunk.subarray(newline + 1);
      if (chunk.length === 0) return;
    }
    // No line of the buffer and the chunk together can be longer than both: kept as they come,
    // without looking for newlines (readMessage does). Only past the limit is each line measured.
    if ((this.#buffer?.length ?? 0) + chunk.length <= this.#maxBytes) this.#buffer = this.#buffer ? Buffer.concat([this.#buffer, chunk]) : chunk;
    else this.#appendMeasured(chunk);
  }

  /**
   * `chunk` line by line, each measured exactly: the bytes before its newline, the first with the
   * unfinished line the buffer ends in. A line over the limit throws (not skipOversized) or is
   * skipped to its newline, which may come in a later chunk; the lines around it are kept.
   */
  #appendMeasured(chunk: Buffer): void {
    let kept = this.#buffer ?? EMPTY;
    // The unfinished line at the buffer's end: the whole buffer once readMessage has run.
    let open = kept.length - (kept.lastIndexOf(10) + 1);
    /** Where the bytes of `chunk` not yet added to `kept` start. */
    let from = 0;
    for (let start = 0; start < chunk.length; ) {
      const newline = chunk.indexOf(10, start);
      const end = newline === -1 ? chunk.length : newline;
      const bytes = open + end - start;
      if (bytes <= this.#maxBytes) {
        open = newline === -1 ? bytes : 0;
        start = end + 1;
        continue;
      }
      if (!this.#skipOversized) {
        this.clear();
        throw new Error(`ReadBuffer exceeded maximum size of ${this.#maxBytes} bytes`);
      }
      kept = from < start ? Buffer.concat([kept, chunk.subarray(from, start)]) : kept;
      const begun = kept.subarray(kept.length - open);
      const line = chunk.subarray(start, end);
      this.#skipping = Buffer.concat([begun.subarray(0, OVERSIZED_HEAD_BYTES), line.subarray(0, OVERSIZED_HEAD_BYTES)]).toString("utf8", 0, OVERSIZED_HEAD_BYTES);
      this.#skippingBytes = bytes;
      this.#skippingTail = undefined;
      this.#keepTail(begun);
      this.#keepTail(line);
      kept = kept.subarray(0, kept.length - open);
      open = 0;
      from = end + 1;
      start = end + 1;
      // Ended here: reported after the lines kept before it. Else it is skipped on in later chunks.
      if (newline !== -1) this.#endSkip(kept.length);
    }
    if (from < chunk.length) kept = kept.length === 0 ? chunk.subarray(from) : Buffer.concat([kept, chunk.subarray(from)]);
    this.#buffer = kept.length === 0 ? undefined : kept;
  }

  /** The oversized line being skipped reached its newline: queued for readMessage after the `buffered` bytes before it. */
  #endSkip(buffered = this.#buffer?.length ?? 0): void {
    this.#skips.push({ at: this.#consumed + buffered, head: this.#skipping ?? "", tail: this.#skippingTail?.toString("utf8") ?? "", bytes: this.#skippingBytes });
    this.#skipping = undefined;
    this.#skippingTail = undefined;
  }

  /**
   * The next whole message, or null until more is appended. A line that is not JSON is skipped
   * (the last few kept, strayLines); one the schema refuses throws a RefusedLine; an oversized one
   * (skipOversized) an OversizedLine.
   */
  readMessage(): JSONRPCMessage | null {
    for (;;) {
      if (this.#skips.length !== 0 && this.#skips[0]!.at === this.#consumed) {
        const { head, tail, bytes } = this.#skips.shift()!;
        throw new OversizedLine(head, this.#maxBytes, tail.replace(/\r$/, ""), bytes);
      }
      if (!this.#buffer) return null;
      const index = this.#buffer.indexOf(10);
      if (index === -1) return null;
      const end = index > 0 && this.#buffer[index - 1] === 13 ? index - 1 : index;
      let line = this.#buffer.toString("utf8", 0, end);
      this.#buffer = index + 1 < this.#buffer.length ? this.#buffer.subarray(index + 1) : undefined;
      this.#consumed += index + 1;
      // A byte order mark (some Windows tools write one) is ignored, as RFC 8259 lets a parser do.
      if (line.charCodeAt(0) === 0xfeff) line = line.slice(1);
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch (error) {
        if (this.#reportUnparsable && line.trim()) throw new UnparsableLine(line.slice(0, OVERSIZED_HEAD_BYTES), (error as Error).message);
        if (line.trim()) this.#keepStray(line);
        continue;
      }
      const plain = plainMessage(parsed);
      if (plain) return plain;
      try {
        return this.#fallback(line);
      } catch (error) {
        throw new RefusedLine(parsed, error);
      }
    }
  }

  /** Keep the last OVERSIZED_HEAD_BYTES of the line being skipped, without holding the rest. */
  #keepTail(bytes: Buffer): void {
    const joined = this.#skippingTail ? Buffer.concat([this.#skippingTail, bytes.subarray(Math.max(0, bytes.length - OVERSIZED_HEAD_BYTES))]) : bytes;
    this.#skippingTail = Buffer.from(joined.subarray(Math.max(0, joined.length - OVERSIZED_HEAD_BYTES)));
  }

  #keepStray(line: string): void {
    this.#stray.push(line.slice(0, OVERSIZED_HEAD_BYTES));
    if (this.#stray.length > STRAY_LINES_KEPT) this.#stray.shift();
  }

  /**
   * The last few lines that were not JSON and were skipped (their first 1024 characters), oldest
   * first. stdout of a stdio server carries only JSON-RPC: such lines are its logs, and they say
   * why a server that logs there never seemed to answer. Kept past `clear`.
   */
  strayLines(): readonly string[] {
    return this.#stray;
  }

  clear(): void {
    this.#buffer = undefined;
    this.#skipping = undefined;
    this.#skippingTail = undefined;
    this.#skips.length = 0;
    this.#consumed = 0;
  }
}
