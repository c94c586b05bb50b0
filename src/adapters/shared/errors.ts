import { RuntimeError, type ErrorCode } from "../../errors.js";

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
}

export class AdapterError<C extends AdapterErrorCode = AdapterErrorCode> extends RuntimeError {
  declare readonly code: C;
  /** HTTP status of the upstream response, when there was one. */
  readonly status: number | undefined;
  constructor(code: C, message: string, options: AdapterErrorOptions = {}) {
    super(code, message, options.details, options.hint, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AdapterError";
    this.status = options.status;
  }
}

/** A problem in a declarative `adapter` block, found when the adapter is built; names the field. */
export class AdapterSpecError extends Error {
  readonly field: string;
  constructor(field: string, problem: string) {
    super(`${field} ${problem}`);
    this.name = "AdapterSpecError";
    this.field = field;
  }
}
