/**
 * The one error type at the bottom of the project. Every failure a model can see has a stable
 * `code`, a message that names the field or value at fault, and a `hint` saying what to do next.
 * Adapters build their errors on this class (AdapterError extends it), the runtime throws it, and
 * the pipeline turns it into an answer in one place. It imports only import-free helpers, so
 * every layer may use it.
 */

import { ASK_FOR_LESS } from "./ask-for-less.js";
import { jsonSafe, textOfThrown } from "./json-safe.js";

export const ERROR_CODES = [
  "MISSING_TOOL_NAME",
  "UNKNOWN_TOOL",
  "ARG_VALIDATION_FAILED",
  "CONFIRM_REQUIRED",
  "UNKNOWN_SKILL",
  "UNKNOWN_FACADE_TOOL",
  "UNKNOWN_PLUGIN",
  "EMPTY_COMMAND",
  "NOT_CONFIGURED",
  "UPSTREAM_ERROR",
  "UPSTREAM_TIMEOUT",
  "RESULT_TOO_LARGE",
  "LOOP_DETECTED",
  "FORBIDDEN",
  "WORKSPACE_INVALID",
  "WORKSPACE_EXPIRED",
  "WORKSPACE_LOST",
  "WORKSPACE_UNAVAILABLE",
  "CONFIRM_DECLINED",
  "CONFIRM_FAILED",
  "QUESTION_EXPIRED",
  "TOO_MANY_QUESTIONS",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Recipes a model can follow to correct its next call. Kept equal to ERROR_CODES by a test. */
export const HINTS: Readonly<Record<ErrorCode, string>> = {
  MISSING_TOOL_NAME:
    "Pass the tool to run in `toolName`, e.g. {\"toolName\":\"<a tool's name>\",\"arguments\":{}}. The plugin's _discover tool (or agent_tools_search) finds names.",
  UNKNOWN_TOOL: "Use one of the names in `details.suggestions`, or search with a few words of what you need.",
  ARG_VALIDATION_FAILED: "Fix each of `details.errors` (path, reason, schema there) and call again.",
  CONFIRM_REQUIRED:
    "This changes data. Only if the user asked for this change, call again with the same arguments and `confirm: true` at the top level (next to toolName/skill, not inside arguments).",
  UNKNOWN_SKILL: "Use one of the skills in `details.skills`, or search to see each skill's arguments.",
  UNKNOWN_FACADE_TOOL: "Call one of the names in `details.tools` instead; agent_tools_help lists every plugin.",
  UNKNOWN_PLUGIN: "Nothing was run. Put one of the names in `details.plugins` in `plugin`; agent_tools_help lists every plugin.",
  EMPTY_COMMAND: "Send a non-empty `command`, e.g. \"status\" or \"list\".",
  NOT_CONFIGURED: "Tell the user to set what `details.missing` lists in the environment of the agent-tools server (not in tool arguments), then restart it; do not try to set it yourself.",
  UPSTREAM_ERROR:
    "The service behind this plugin failed. Read `message`; fix the arguments if it names one, otherwise try a different tool or report the failure to the user.",
  UPSTREAM_TIMEOUT:
    "The service did not answer in time. Retry once with a narrower request (fewer items, a filter); if it times out again, tell the user.",
  RESULT_TOO_LARGE: `The service's answer was larger than the runtime reads, so nothing more was read. ${ASK_FOR_LESS}.`,
  LOOP_DETECTED:
    "Stop repeating this call: it failed the same way several times. Change the tool or the arguments as the earlier error said, or ask the user.",
  FORBIDDEN:
    "Your identity on this gateway may not do this; `details.allowed` says what it may do. Use an allowed plugin or a read-only tool, or ask the gateway's operator for access.",
  WORKSPACE_INVALID:
    "Call agent_tools_exec without `workspace` to start a new workspace, and pass the `workspace` handle it answers (unchanged) on later calls.",
  WORKSPACE_LOST:
    "The gateway instance that held this workspace stopped, and its files, variables and working folder went with it. Call agent_tools_exec without `workspace` to start a new one and recreate what you need; your other tools, jobs and data are unaffected.",
  WORKSPACE_UNAVAILABLE:
    "Nothing was run and the workspace is intact: the gateway instance holding it is running but could not take this request. Wait `details.retryAfterMs` and send the same call again. If it keeps answering this for a minute, tell the user the gateway's operator should check its load balancer; or start a new workspace (call agent_tools_exec without `workspace`), leaving the old files behind.",
  WORKSPACE_EXPIRED:
    "Call agent_tools_exec without `workspace` to start a new workspace; files and variables of the old one are gone, so recreate what you need.",
  CONFIRM_DECLINED:
    "Nothing was changed: the agent's client did not approve this change when asked to confirm it (`message` says how). Do not retry it: ask the user what they want instead. A client running without a person (claude -p, codex exec) declines every question; if that is how you run, tell the user that whoever starts the agent can set AGENT_TOOLS_CONFIRM=flag for the agent-tools server.",
  CONFIRM_FAILED:
    "The user's answer to the confirmation question never came back (`message` says why); nothing was changed. Ask the user whether they want this change and to answer the confirmation their client shows, then call again with the same arguments; if it fails the same way, tell the user their client could not show the question.",
  QUESTION_EXPIRED:
    "This answer went nowhere: the call that asked the question stopped waiting, or another request already answered it (`message` says which; that request gets the call's result). What the call did before asking may have happened. Call the tool again (without the old answer) if it is still needed.",
  TOO_MANY_QUESTIONS:
    "Too many calls are waiting for the user's answers (`message` names the limit). Have the user answer or cancel the questions already open (or cancel those tool calls), then call this tool again; retrying before that is refused the same way. If `details.per` is \"server\", the whole server is full: retry in a few minutes or tell the user.",
};

/**
 * What a hint says when the `details` field it points at is absent (an adapter's NOT_CONFIGURED
 * without a list, an UNKNOWN_TOOL with no close name): a hint must never point at nothing.
 */
const HINTS_WITHOUT_DETAILS: Readonly<Partial<Record<ErrorCode, string>>> = {
  UNKNOWN_TOOL: "Search with a few words of what you need (the plugin's _discover tool, or agent_tools_search) and use a name it shows.",
  ARG_VALIDATION_FAILED: "Fix the arguments as `message` says, then call again.",
  UNKNOWN_SKILL: "Search to see the plugin's skills and their arguments.",
  UNKNOWN_FACADE_TOOL: "Nothing was run. agent_tools_help lists the tools this server has.",
  UNKNOWN_PLUGIN: "Nothing was run. agent_tools_help lists every plugin.",
  NOT_CONFIGURED: "Tell the user to set what `message` names in the environment of the agent-tools server (not in tool arguments), then restart it; do not try to set it yourself.",
};

export interface ErrorPayload {
  code: ErrorCode;
  message: string;
  hint: string;
  details?: Record<string, unknown>;
}

/**
 * A NOT_CONFIGURED hint as the model must read it: the fix is the user's (the server's environment,
 * a program to install, a file to correct), so a hint that does not already say whom to tell is
 * led by "Tell the user:". Models told only "set X in the environment" tried to set it themselves,
 * in tool arguments or a shell; a dozen throwers write their own hints, and this holds for all.
 */
function forTheUser(hint: string): string {
  return /\buser\b/i.test(hint) ? hint : `Tell the user: ${hint}`;
}

function pointsAtMissing(hint: string, details: Record<string, unknown> | undefined): boolean {
  for (const match of hint.matchAll(/`details\.([A-Za-z]+)`/g)) {
    const value = details?.[match[1] ?? ""];
    if (value === undefined || (Array.isArray(value) && value.length === 0)) return true;
  }
  return false;
}

export class RuntimeError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  readonly #hint: string | undefined;

  /** `hint` replaces the code's generic hint when the thrower knows the specific next step. */
  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, hint?: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "RuntimeError";
    this.code = code;
    this.details = details;
    this.#hint = hint;
  }

  /** The thrower's hint, else the code's — the fallback one when the code's names a `details` field this error lacks. */
  get hint(): string {
    const generic = HINTS[this.code];
    const hint = this.#hint ?? (pointsAtMissing(generic, this.details) ? (HINTS_WITHOUT_DETAILS[this.code] ?? generic) : generic);
    return this.code === "NOT_CONFIGURED" ? forTheUser(hint) : hint;
  }

  /** Whether the thrower supplied its own hint (an adapter's `errors` rule). */
  get hasOwnHint(): boolean {
    return this.#hint !== undefined;
  }

  toPayload(): ErrorPayload {
    const payload: ErrorPayload = { code: this.code, message: this.message, hint: this.hint };
    // An empty details object says nothing: it is left out, as an absent field is documented.
    // Made sure to become JSON: plugin code's details may hold a BigInt or a cycle, and one such
    // part must not turn the whole answer into a bare JSON-RPC error losing code, hint and writesSent.
    if (this.details === undefined) return payload;
    const details = jsonSafe(this.details, "details");
    // Details that could not be read at all (a Proxy whose traps throw) are said, not dropped.
    if (!details || typeof details !== "object") payload.details = { unreadable: details };
    else if (!isEmptyObject(details)) payload.details = details as Record<string, unknown>;
    return payload;
  }
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}

/**
 * Whether `value` is a RuntimeError; false, not a throw, for a value whose prototype cannot be
 * read (a revoked Proxy, a `getPrototypeOf` trap that throws), which `instanceof` would pass on.
 */
export function isRuntimeError(value: unknown): value is RuntimeError {
  try {
    return value instanceof RuntimeError;
  } catch {
    return false;
  }
}

/**
 * Any thrown value as a RuntimeError. Plugin code (module adapters, skills) may throw any Error
 * with a string `code` ("UPSTREAM_TIMEOUT", "NOT_CONFIGURED", ...); a known code is kept, unknown
 * ones become UPSTREAM_ERROR, and a carried `hint`/`details` are kept. A plain object thrown with
 * a string `message` is read as an Error is. A value with no words of its own (null, a number, a
 * Promise, …) is said as what it is, and the hint blames the plugin's code, not the arguments;
 * so does a bug the engine reports (isCodeFault) when `origin` says the plugin's own code raised it.
 */
export function fromThrown(value: unknown, context?: string, origin: ThrownOrigin = {}): RuntimeError {
  if (isRuntimeError(value)) return context ? new RuntimeError(value.code, `${context}: ${value.message}`, value.details, value.hasOwnHint ? value.hint : undefined, { cause: value }) : value;
  try {
    return fromReadable(value, context, origin);
  } catch (readError) {
    // Reading what was thrown threw (a `message` getter that throws, a Proxy): said as that, and
    // blamed on the plugin's code, not passed on as if the service had said it.
    const message = unreadableThrown(readError);
    return new RuntimeError("UPSTREAM_ERROR", context ? `${context}: ${message}` : message, undefined, NOT_AN_ERROR_HINT);
  }
}

/** What a thrown value that could not be read is said as. */
function unreadableThrown(readError: unknown): string {
  return `it threw a value that could not be read (reading it threw: ${textOfThrown(readError)})`;
}

/** Where a thrown value came from, as far as the thrower's caller knows. */
export interface ThrownOrigin {
  /**
   * Raised by the plugin's own code (a skill's run), not passed through from its adapter (the
   * service's failure, which keeps its own words and hint): a bug the JavaScript engine reports
   * there (isCodeFault) is then blamed on the plugin, not on the service or the arguments.
   */
  pluginCode?: boolean;
}

/** fromThrown of a value that is not a RuntimeError; may throw when reading the value throws. */
function fromReadable(value: unknown, context: string | undefined, origin: ThrownOrigin): RuntimeError {
  const code = value && typeof value === "object" ? (value as { code?: unknown }).code : undefined;
  const known = typeof code === "string" && (ERROR_CODES as readonly string[]).includes(code) ? (code as ErrorCode) : "UPSTREAM_ERROR";
  const message = context ? `${context}: ${describeThrown(value)}` : describeThrown(value);
  const variables = value && typeof value === "object" ? (value as { variables?: unknown }).variables : undefined;
  if (value instanceof Error && value.name === "MissingVariableError" && Array.isArray(variables)) {
    return new RuntimeError("NOT_CONFIGURED", message, { missing: variables });
  }
  const carried = value && typeof value === "object" ? (value as { hint?: unknown; details?: unknown }) : {};
  const hint =
    typeof carried.hint === "string" && carried.hint.trim()
      ? carried.hint
      : errorWords(value) === undefined
        ? NOT_AN_ERROR_HINT
        : origin.pluginCode && known === "UPSTREAM_ERROR" && isCodeFault(value)
          ? CODE_FAULT_HINT
          : undefined;
  const details = carried.details && typeof carried.details === "object" && !Array.isArray(carried.details) ? (carried.details as Record<string, unknown>) : undefined;
  return new RuntimeError(known, message, details, hint);
}

const NOT_AN_ERROR_HINT =
  "The plugin's code (a skill or its adapter) threw a value that is not an Error and says nothing of what went wrong: a fault in the plugin, not in your arguments, and calling it again fails the same way. Tell the user the plugin needs fixing (it should throw an Error with a message); meanwhile do the work another way if you can.";

const CODE_FAULT_HINT =
  "The plugin's code has a bug: `message` is the JavaScript engine's report of it (a TypeError or ReferenceError in a skill), not the service's answer and not a fault in your arguments, so retrying or trying other arguments will not help. Tell the user the plugin needs fixing by its author (quote `message`); meanwhile do the work another way if you can (the plugin's tools).";

/**
 * Whether a thrown value is the JavaScript engine's report of a bug in the code that ran
 * (`Cannot read properties of undefined`, `x is not a function`, `y is not defined`): a
 * TypeError or ReferenceError with neither a `code` nor a `cause`. Node's own API errors carry a
 * `code` (ERR_INVALID_URL, ERR_INVALID_ARG_TYPE: often a bad value from the arguments), and
 * fetch's network failure is a TypeError `fetch failed` whose `cause` is the socket's error:
 * neither is a bug, so neither is one here.
 */
export function isCodeFault(value: unknown): boolean {
  if (!(value instanceof TypeError || value instanceof ReferenceError)) return false;
  const { code, cause } = value as { code?: unknown; cause?: unknown };
  return code === undefined && cause === undefined && value.message !== "fetch failed";
}

/**
 * The words a thrown value (or an error body) carries: an Error's message (else its name), a
 * non-empty string, a plain object's `{error: "…"}`, `{error: {message}}` or `{message}`.
 * Undefined when it carries none. The plugin kit's describeError reads values the same way.
 */
export function errorWords(value: unknown): string | undefined {
  if (value instanceof Error) return value.message || value.name;
  if (typeof value === "string") return value.trim() ? value : undefined;
  if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
  const { error: inner, message } = value as { error?: unknown; message?: unknown };
  if (typeof inner === "string" && inner.trim()) return inner;
  if (inner && typeof inner === "object" && typeof (inner as { message?: unknown }).message === "string" && (inner as { message: string }).message.trim()) return (inner as { message: string }).message;
  if (typeof message === "string" && message.trim()) return message;
  return undefined;
}

/** A value as JSON, or undefined when it has none (a Symbol, a function, a cycle, a BigInt inside). */
function jsonOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/** What a thrown value with no words of its own is: `null`, `the number 42`, `a Promise`, `an object with no message ({"foo":1})`. */
function thrownKind(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === "string") return "an empty string";
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return `the ${typeof value} ${String(value)}`;
  if (typeof value === "symbol") return `a Symbol (${String(value)})`;
  if (typeof value === "function") return "a function";
  if (typeof (value as { then?: unknown }).then === "function") return "a Promise (code awaits a promise; it does not throw it)";
  const json = jsonOf(value);
  const kind = Array.isArray(value) ? "an array" : "an object";
  return json === undefined || json === "{}" ? `${kind} with no message` : `${kind} with no message (${json})`;
}

/**
 * Any thrown value as a readable one-line message, never `undefined`, `{}` or "[object Object]":
 * its words (errorWords), else what it is (`it threw null instead of an Error`).
 */
export function describeThrown(value: unknown): string {
  try {
    return errorWords(value) ?? `it threw ${thrownKind(value)} instead of an Error`;
  } catch (readError) {
    return unreadableThrown(readError);
  }
}

/**
 * Any value or error body as one readable line: its words (errorWords), else its JSON. For values
 * that were not thrown (a response body); describeThrown says what a thrown one is.
 */
export function describeValue(value: unknown): string {
  return errorWords(value) ?? jsonOf(value) ?? String(value);
}
