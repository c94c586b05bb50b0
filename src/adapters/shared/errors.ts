/**
 * The one error shape every adapter kind throws. Adapters do not import the runtime: a failure is
 * an Error with a string `code` that the runtime maps to its own codes (see fromThrown in
 * src/runtime/errors.ts). Each kind subclasses these for its own name and extra fields.
 */

export type AdapterErrorCode = "UPSTREAM_ERROR" | "UPSTREAM_TIMEOUT" | "NOT_CONFIGURED" | "ARG_VALIDATION_FAILED" | "UNKNOWN_TOOL" | "RESULT_TOO_LARGE";

export interface AdapterErrorOptions {
  status?: number | undefined;
  cause?: unknown;
  hint?: string | undefined;
  details?: Record<string, unknown> | undefined;
}

export class AdapterError<C extends AdapterErrorCode = AdapterErrorCode> extends Error {
  readonly code: C;
  /** HTTP status of the upstream response, when there was one. */
  readonly status: number | undefined;
  /** What the model should do next, when the adapter knows better than the code's generic hint (an `errors` rule). */
  readonly hint: string | undefined;
  /** Structured facts for the model (`error.details` in the answer), e.g. a service's validation errors. */
  readonly details: Record<string, unknown> | undefined;
  constructor(code: C, message: string, options: AdapterErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AdapterError";
    this.code = code;
    this.status = options.status;
    this.hint = options.hint;
    this.details = options.details;
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
