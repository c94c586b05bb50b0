import { createRequire } from "node:module";
import { exactSizeWords } from "../../byte-size.js";
import { RuntimeError, type ErrorCode } from "../../errors.js";
import { describeProblems, specProblems, type SpecProblem } from "./spec-check.js";

/**
 * The errors adapters throw: the project's one error type (src/errors.ts) with an HTTP status
 * when there was one. The pipeline passes them on unchanged (code, hint, details). Each kind
 * subclasses this for its own name and extra fields.
 */

export type AdapterErrorCode = Extract<ErrorCode, "UPSTREAM_ERROR" | "UPSTREAM_TIMEOUT" | "NOT_CONFIGURED" | "ARG_VALIDATION_FAILED" | "UNKNOWN_TOOL" | "RESULT_TOO_LARGE">;

export interface AdapterErrorOptions {
  status?: number | undefined;
  cause?: unknown;
  hint?: string | undefined;
  details?: Record<string, unknown> | undefined;
  /**
   * The backend was stopped or died while it ran the call (the adapter's own timeout killed it, a
   * signal ended it): whatever the call changes may have been changed, in part or in full. The
   * runtime then tells a model calling a write to look at the data before calling again
   * (runtime/stopped-run.ts). A timeout (UPSTREAM_TIMEOUT) counts as cut off without it.
   */
  cutOff?: boolean | undefined;
}

export class AdapterError<C extends AdapterErrorCode = AdapterErrorCode> extends RuntimeError {
  declare readonly code: C;
  /** HTTP status of the upstream response, when there was one. */
  readonly status: number | undefined;
  /** See AdapterErrorOptions.cutOff. */
  readonly cutOff: boolean;
  constructor(code: C, message: string, options: AdapterErrorOptions = {}) {
    super(code, message, options.details, options.hint, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AdapterError";
    this.status = options.status;
    this.cutOff = options.cutOff === true;
  }
}

/**
 * Problems in a declarative `adapter` block, found when the adapter is built: one (a field and
 * what is wrong with it) or every problem the block's schema found at once. Each names its field.
 */
export class AdapterSpecError extends Error {
  readonly field: string;
  readonly problems: readonly SpecProblem[];
  constructor(field: string | readonly SpecProblem[], problem = "") {
    const problems: readonly SpecProblem[] = typeof field === "string" ? [{ segments: [], field, message: problem }] : field;
    super(describeProblems(problems));
    this.name = "AdapterSpecError";
    this.field = problems[0]?.field ?? "";
    this.problems = problems;
  }
}

/**
 * Check `value` against a block schema (plain data generated from the kind's TypeBox schema, whose
 * type is `T`); every problem at once, as `ErrorClass` (the kind's own SpecError).
 */
export function assertSpec<T>(ErrorClass: new (problems: readonly SpecProblem[]) => AdapterSpecError, schema: object, value: unknown, prefix: string): asserts value is T {
  const problems = specProblems(schema, value, prefix);
  if (problems.length) throw new ErrorClass(problems);
}

/** How deep messageWithCauses follows `cause`: fetch's is two down (TypeError "fetch failed" → the socket's error). */
const CAUSE_DEPTH = 4;

/**
 * An error's message with what its causes add: `fetch failed` says nothing of why, its cause's
 * code does (`fetch failed: ECONNREFUSED`). Each cause adds its code (a system error's, as
 * ECONNREFUSED, ENOTFOUND) or else its message, unless the text already holds it.
 */
export function messageWithCauses(error: unknown): string {
  let text = error instanceof Error ? error.message : String(error);
  let cause: unknown = error instanceof Error ? error.cause : undefined;
  for (let depth = 0; cause !== undefined && cause !== null && depth < CAUSE_DEPTH; depth++) {
    const { code, message } = cause as { code?: unknown; message?: unknown };
    const part = typeof code === "string" && code ? code : typeof message === "string" ? message : "";
    if (part && !text.includes(part)) text += `: ${part}`;
    cause = (cause as { cause?: unknown }).cause;
  }
  return text;
}

/** System errors that say a server's address answers nothing (not running, a wrong host or port). */
const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);

/** The first of an error's cause codes that says nothing answered at the address (UNREACHABLE), or undefined. */
export function unreachableCode(error: unknown): string | undefined {
  return causeCodes(error).find((code) => UNREACHABLE.has(code));
}

/** DNS failures: the host name did not resolve, so no connection was even tried. */
const UNRESOLVED = new Set(["ENOTFOUND", "EAI_AGAIN"]);

/** True when an unreachable code says the host name does not resolve (a misspelt host, no network or DNS), not that nothing answered. */
export function isUnresolvedHost(code: string): boolean {
  return UNRESOLVED.has(code);
}

/**
 * The words every adapter uses for an unreachable address (REST and MCP alike): `could not reach
 * HOST (ENOTFOUND: the host name does not resolve)` or `(ECONNREFUSED: nothing answered there)`.
 */
export function couldNotReach(place: string, code: string): string {
  return `could not reach ${place} (${code}: ${isUnresolvedHost(code) ? "the host name does not resolve" : "nothing answered there"})`;
}

/**
 * The hint for a host name that does not resolve (isUnresolvedHost): a spelling or the network to
 * check, not a server to start. `place` is what holds the name ("the base URL"); `setting` where it
 * is written, as a clause after "check" ("that `mcpServers.docs.url` in config.json").
 */
export function unresolvedHostHint(place: string, code: string, setting: string): string {
  return `The host name in ${place} does not resolve (${code}): check ${setting} spells the host right, or the network and its DNS`;
}

/** The system error codes of causes (ECONNREFUSED, ENOTFOUND…) and undici's own (UND_ERR_SOCKET: a connection the other side closed), outermost first. */
export function causeCodes(error: unknown): string[] {
  const codes: string[] = [];
  let cause: unknown = error;
  for (let depth = 0; cause !== undefined && cause !== null && depth <= CAUSE_DEPTH; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string" && /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/.test(code)) codes.push(code);
    cause = (cause as { cause?: unknown }).cause;
  }
  return codes;
}

/**
 * A response whose headers were more than Node reads (undici's UND_ERR_HEADERS_OVERFLOW: the
 * status line and all headers together over `http.maxHeaderSize`, 16 KiB unless node's
 * `--max-http-header-size` says otherwise; one 64 KB header, or 5,000 short ones): what to say of
 * it; undefined for any other error. No argument changes a service's headers, so the words say so
 * rather than leave the model to guess from undici's bare code.
 */
export function headersOverflow(error: unknown): { words: string; hint: string; details: Record<string, unknown> } | undefined {
  if (!causeCodes(error).includes("UND_ERR_HEADERS_OVERFLOW")) return undefined;
  // Read when it happens: node:http is not loaded for it otherwise, and the flag may have changed it.
  const limit = (createRequire(import.meta.url)("node:http") as { maxHeaderSize: number }).maxHeaderSize;
  return {
    words: `the service answered with headers over Node's ${exactSizeWords(limit)} limit (the status line and all headers together; UND_ERR_HEADERS_OVERFLOW), so its answer could not be read`,
    hint: `Changing the arguments will not help: the service (or a proxy in front of it) answered with more header bytes than Node reads; tell the user. Node's --max-http-header-size (in NODE_OPTIONS where the agent-tools server starts) raises the limit for the whole server.`,
    details: { code: "UND_ERR_HEADERS_OVERFLOW", maxHeaderBytes: limit },
  };
}
