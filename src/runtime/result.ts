import { Cancel, listen, unlisten, type Cancellation } from "../cancel.js";
import { RuntimeError } from "../errors.js";
import { ownErrorHint } from "../own-error.js";
import { hasBinary, withoutBinary, type MediaItem } from "./binary-content.js";
import { isPlainObject } from "../plain-object.js";
import { findUnserialisable, pluginFaultHint, unserialisableError } from "./unserialisable.js";
import { jsonTextValue } from "../json-text-value.js";
import { cutNoted, DOWNSTREAM_MORE_TEXT_CHARS, DOWNSTREAM_TEXT_CHARS } from "./error-bound.js";
import { headOf } from "./argument-value.js";
import { malformedItem } from "./content-items.js";
import { isStackOverflow } from "../adapters/shared/redact.js";
import { beyondExec, SANDBOX_RESULT_CHARS, truncationNote } from "./truncation-note.js";
import { outputCutAt } from "../adapters/cli/result.js";
import { headWithinJsonString } from "./json-string-head.js";

/**
 * What an adapter returned, made into the `result` of a facade answer: an MCP CallToolResult is
 * unwrapped (structured content first, then JSON text, then plain text), a downstream `isError`
 * becomes UPSTREAM_ERROR, and anything larger than the cap is cut with an honest marker. Binary
 * items (image, audio, blob resources) are placeholders in it (binary-content.ts).
 */

export interface CallToolResultLike {
  content: Array<{ type: string; text?: string; [k: string]: unknown }>;
  structuredContent?: unknown;
  isError?: boolean;
}

function isCallToolResult(value: unknown): value is CallToolResultLike {
  return !!value && typeof value === "object" && Array.isArray((value as CallToolResultLike).content);
}

/** A CallToolResult the tool marked `isError`. */
export function isToolErrorResult(value: unknown): value is CallToolResultLike {
  return isCallToolResult(value) && value.isError === true;
}

/** What an error result says, as text (its text parts; empty when it has none). */
export function toolErrorText(result: CallToolResultLike): string {
  return textItemsOf(result);
}

/** The text of a result's text items, joined; an image or other item beside them takes nothing away. */
function textItemsOf(result: CallToolResultLike): string {
  const texts: string[] = [];
  for (const item of result.content) if (isPlainObject(item) && item.type === "text" && typeof item.text === "string") texts.push(item.text);
  return texts.join("\n");
}

function textOf(result: CallToolResultLike): string | undefined {
  if (!result.content.every((c) => c.type === "text" && typeof c.text === "string")) return undefined;
  return result.content.map((c) => c.text).join("\n");
}

/** The fleet's redactor on a text: every credential it knows (and each credential shape) masked. */
export type MaskText = (text: string) => string;

/**
 * A downstream's own error text as a message quotes it: masked first, then cut to
 * DOWNSTREAM_TEXT_CHARS. In that order: cut first, a secret the cut went through would leave its
 * first characters before the cut, too few for the redactor to know them (README, "Credentials").
 */
function quoted(text: string, mask: MaskText): string {
  return cutNoted(mask(text), DOWNSTREAM_TEXT_CHARS);
}

/** Where an error answer carries a downstream's error text past the part its message quotes. */
export const MORE_TEXT_FIELD = "moreText";

/**
 * A downstream's error text split between the message and `details.moreText`: masked first (as
 * quoted), the first DOWNSTREAM_TEXT_CHARS in the message, the next DOWNSTREAM_MORE_TEXT_CHARS
 * (if any) in details, cut saying how much was left out. Each part of the text is sent once: the
 * message used to quote it and `details.content` to carry it again (twice the tokens). Shared by
 * every error that quotes a text it did not write: a tool's error result, a skill's own failure.
 */
export function splitQuote(text: string, mask: MaskText): { quote: string; rest?: string } {
  const masked = mask(text);
  if (masked.length <= DOWNSTREAM_TEXT_CHARS) return { quote: masked };
  const head = headOf(masked, DOWNSTREAM_TEXT_CHARS);
  const rest = masked.slice(head.length);
  return { quote: `${head}… (continued in \`details.${MORE_TEXT_FIELD}\`: ${rest.length} more characters)`, rest: cutNoted(rest, DOWNSTREAM_MORE_TEXT_CHARS) };
}

/** The hint of a tool's own error result (own-error.ts: the service is working, and most often the request is at fault). */
const TOOL_REPORTED_HINT = ownErrorHint("The tool", "it");

/**
 * A result the tool marked `isError`, as the error the answer carries. `mask`: the fleet's
 * redactor, run on the tool's text before it is cut (splitQuote). The message quotes the text
 * items; `details` carries only what it does not: the text past the message's cut
 * (`details.moreText`) and the items that are not text (`details.content`, binary ones as
 * placeholders). `hint`: why it likely failed, when the runtime knows (it refused the downstream a
 * question during the call, and the server answered with an error result instead of an error):
 * else TOOL_REPORTED_HINT.
 */
export function toolReportedError(raw: CallToolResultLike, mask: MaskText, hint: string = TOOL_REPORTED_HINT): RuntimeError {
  const { quote, rest } = splitQuote(textItemsOf(raw).trim(), mask);
  const others = raw.content.filter((item) => !(isPlainObject(item) && item.type === "text" && typeof item.text === "string"));
  const content = hasBinary(others) ? withoutBinary(others, 0).content : others;
  const details = { ...(rest === undefined ? {} : { [MORE_TEXT_FIELD]: rest }), ...(content.length ? { content } : {}) };
  return new RuntimeError("UPSTREAM_ERROR", `the tool answered with an error: ${quote || "the tool reported an error"}`, Object.keys(details).length ? details : undefined, hint);
}

/** What an adapter returned as a value (see unwrapWithMedia); binary items are placeholders in it. */
export function unwrapResult(raw: unknown, what: string | undefined, mask: MaskText): unknown {
  return unwrapWithMedia(raw, what, mask).value;
}

/** What the usual result unwraps to besides its value: no media. */
const NO_MEDIA: readonly MediaItem[] = [];

/**
 * What an adapter returned, as a value and the images and audio to pass on beside it. A content
 * list that is not all text stays a list, its binary items placeholders (binary-content.ts).
 */
export function unwrapWithMedia(raw: unknown, said: string | undefined, mask: MaskText): { value: unknown; media: readonly MediaItem[] } {
  const what = said ?? "the tool";
  if (!isCallToolResult(raw)) {
    if (isPlainObject(raw) && raw.isError === true) throw bareErrorResult(raw, what, mask);
    return { value: raw === undefined ? null : raw, media: NO_MEDIA };
  }
  const malformed = malformedItem(raw.content);
  if (malformed) throw new RuntimeError("UPSTREAM_ERROR", `${what} answered a malformed result: ${malformed}; each item of \`content\` must be an object with a string \`type\` (an MCP CallToolResult)`, { content: raw.content.slice(0, 20) }, MALFORMED_HINT);
  if (raw.isError) throw toolReportedError(raw, mask);
  if (raw.structuredContent !== undefined) return { value: raw.structuredContent, media: NO_MEDIA };
  const text = textOf(raw);
  if (text === undefined) {
    if (!hasBinary(raw.content)) return { value: raw.content, media: NO_MEDIA };
    const { content, media } = withoutBinary(raw.content);
    return { value: content, media };
  }
  return { value: textValue(raw, text), media: NO_MEDIA };
}

const MALFORMED_HINT = "This is a fault in the plugin's code (its adapter), not in your call: calling it again fails the same way. Tell the user the plugin needs fixing, as `message` says; meanwhile do the work another way if you can.";

/**
 * `{isError: true}` without a content list: the tool failed and said nothing more (a hand-made
 * result of a module adapter); an error, never a success with the object as its result.
 */
function bareErrorResult(raw: Record<string, unknown>, what: string, mask: MaskText): RuntimeError {
  const said = ["error", "message"].map((k) => raw[k]).find((v): v is string => typeof v === "string" && v.trim() !== "");
  return new RuntimeError("UPSTREAM_ERROR", `${what} answered with an error${said ? `: ${quoted(said.trim(), mask)}` : " (isError: true, with no content saying why)"}`, { result: raw });
}

/** An all-text result: one JSON text item parsed (json-text-value.ts), else the text. */
function textValue(raw: CallToolResultLike, text: string): unknown {
  if (raw.content.length !== 1) return text;
  const parsed = jsonTextValue(text);
  return parsed ? parsed.value : text;
}

export interface Truncation {
  originalChars: number;
  shownChars: number;
  note: string;
}

/**
 * A cut result and whether agent_tools_exec would get it whole (beyondExec): only then may the
 * note send the model there with the call's command line (pipeline.ts, noteExecLine).
 */
export interface CappedResult {
  result: unknown;
  truncated?: Truncation;
  wholeInExec?: boolean;
}

/**
 * Whether the JSON of `value` is surely at most `max` characters, by a walk that counts the worst
 * case (every character of a string escaped) without building the text. Small results, the usual
 * case, are never stringified just to measure them.
 */
function surelyWithin(value: unknown, max: number): boolean {
  let budget = max;
  let nodes = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const item = stack.pop();
    if (++nodes > 20_000) return false;
    if (typeof item === "string") budget -= item.length * 6 + 2;
    else if (item === null || item === undefined || typeof item === "boolean" || typeof item === "number") budget -= 24;
    else if (Array.isArray(item)) {
      budget -= 2 + item.length;
      for (const element of item) stack.push(element);
    } else if (typeof item === "object") {
      budget -= 2;
      for (const [key, element] of Object.entries(item as Record<string, unknown>)) {
        budget -= key.length * 6 + 4;
        stack.push(element);
      }
    } else return false;
    if (budget < 0) return false;
  }
  return true;
}

/**
 * Cut a result whose JSON exceeds `maxChars`: the start of that JSON is returned as a string,
 * as long as fits in `maxChars` once written in the answer (its quotes and backslashes escaped):
 * the cap is what the model reads, and `shownChars` counts the characters of the JSON it holds.
 */
function capResult(result: unknown, maxChars: number): CappedResult {
  if (surelyWithin(result, maxChars)) return { result };
  const json = JSON.stringify(result) ?? "null";
  if (json.length <= maxChars) return { result };
  const shown = headWithinJsonString(json, maxChars);
  const beyond = beyondExec(maxChars, json.length, outputCutAt(result));
  return {
    result: shown,
    truncated: {
      originalChars: json.length,
      shownChars: shown.length,
      note: truncationNote(maxChars, undefined, beyond),
    },
    wholeInExec: beyond === undefined && maxChars < SANDBOX_RESULT_CHARS,
  };
}

/**
 * What a tool or skill returned, as an answer's `result`: unwrapped, through the fleet's redactor,
 * capped; with the images and audio to pass to the client beside it, when there are any.
 */
export function shapeResult(raw: unknown, redact: (value: unknown) => unknown, maxChars: number, what = "the tool"): CappedResult & { media?: readonly MediaItem[] } {
  // The same redactor on an error's text, before it is cut (quoted).
  const { value, media } = unwrapWithMedia(raw, what, (text) => String(redact(text)));
  // A function or a Symbol as the whole result has no JSON at all: the answer would have no
  // `result` (JSON drops it), as if the call had answered nothing. Inside a result it is left
  // out, as JSON.stringify leaves it out.
  if (typeof value === "function") throw unserialisableError(what, { problem: "function", path: "result" });
  if (typeof value === "symbol") throw unserialisableError(what, { problem: "symbol", path: "result" });
  try {
    const shaped = capResult(redact(value), maxChars);
    // Every field that leaves goes through the redactor: a media type is text a downstream wrote,
    // and the bytes are masked as a blob's are (base64-secrets.ts).
    return media.length ? { ...shaped, media: media.map((item) => redact(item) as MediaItem) } : shaped;
  } catch (error) {
    if (error instanceof RuntimeError) throw error;
    // A BigInt, a cycle (it overflows the redactor's walk too), a throwing toJSON or getter: said
    // as what it is and where, for the plugin's author.
    const found = findUnserialisable(value);
    if (found) throw unserialisableError(what, found);
    if (!isStackOverflow(error)) throw error;
    // A value nested deeper than the walk's stack allows (JSON.parse takes 20,000 nested arrays,
    // the redactor's walk does not): a JSON text goes on as the text it was, masked as text.
    const text = isCallToolResult(raw) && raw.structuredContent === undefined ? textOf(raw) : undefined;
    if (text === undefined) throw new RuntimeError("UPSTREAM_ERROR", `the result of ${what} is nested too deeply (thousands of levels) to be passed on; ask for a flatter result (another tool, fewer levels, or as text)`, undefined, pluginFaultHint(what));
    return capResult(redact(text), maxChars);
  }
}

/**
 * What `work` gets from withDeadline: the deadline's cancellation. Its AbortSignal is made when
 * first read (most calls never read it); the hot path listens to the Cancel itself (cancel.ts).
 */
export type DeadlineScope = Cancel;

/**
 * withDeadline's own failures: the work ran out of time (UPSTREAM_TIMEOUT) or the caller
 * cancelled it (UPSTREAM_ERROR). Their message already names the work, so callers pass them on
 * as they are instead of putting their own context in front.
 */
export class DeadlineError extends RuntimeError {}

/**
 * Run `work` with a deadline and the caller's cancellation. A timeout answers UPSTREAM_TIMEOUT;
 * the adapter gets the deadline's cancellation so it can stop its own I/O. One promise and one
 * timer per call; no AbortSignal unless the work or the caller asks for one.
 */
export function withDeadline<T>(work: (scope: DeadlineScope) => Promise<T>, timeoutMs: number, outer: Cancellation | undefined, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    // The caller's own reason when it gave one of ours (an exec line's deadline stops the plugin
    // calls it runs): the backend's cancel then says why, not "cancelled by the client".
    const cancelled = (): DeadlineError => {
      const reason = outer?.reason;
      return reason instanceof RuntimeError ? new DeadlineError(reason.code, `${what} was stopped: ${reason.message}`, reason.details) : new DeadlineError("UPSTREAM_ERROR", `${what} was cancelled by the client`);
    };
    // Cancelled before it began: the work never runs.
    if (outer?.aborted) {
      reject(cancelled());
      return;
    }
    const scope = new Cancel();
    let settled = false;
    const finish = (): boolean => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      if (outer) unlisten(outer, onOuterAbort);
      return true;
    };
    const stop = (error: RuntimeError): void => {
      if (!finish()) return;
      scope.abort(error);
      reject(error);
    };
    const onOuterAbort = (): void => stop(cancelled());
    const timer = setTimeout(() => stop(new DeadlineError("UPSTREAM_TIMEOUT", `${what} did not answer within ${timeoutMs} ms`, { timeoutMs })), timeoutMs);
    if (outer) listen(outer, onOuterAbort);
    let running: Promise<T>;
    try {
      running = work(scope);
    } catch (error) {
      if (finish()) reject(error);
      return;
    }
    running.then(
      (value) => {
        if (finish()) resolve(value);
      },
      (error: unknown) => {
        if (finish()) reject(error);
      },
    );
  });
}
