/**
 * Errors of the REST adapter. Adapters do not import the runtime: a failure is signalled by an
 * Error with a string `code` the runtime maps to its own error codes (UPSTREAM_ERROR,
 * UPSTREAM_TIMEOUT, NOT_CONFIGURED, ARG_VALIDATION_FAILED).
 */

export type RestErrorCode = "UPSTREAM_ERROR" | "UPSTREAM_TIMEOUT" | "NOT_CONFIGURED" | "ARG_VALIDATION_FAILED" | "UNKNOWN_TOOL";

export class RestError extends Error {
  readonly code: RestErrorCode;
  /** HTTP status of the upstream response, when there was one. */
  readonly status: number | undefined;
  constructor(code: RestErrorCode, message: string, status?: number) {
    super(message);
    this.name = "RestError";
    this.code = code;
    this.status = status;
  }
}

/** A spec (manifest block) problem, found when the adapter is built; names the field. */
export class RestSpecError extends Error {
  readonly field: string;
  constructor(field: string, problem: string) {
    super(`${field} ${problem}`);
    this.name = "RestSpecError";
    this.field = field;
  }
}

/** A URL or path that would leave the configured base URL. */
export class UrlGuardError extends RestError {
  constructor(message: string) {
    super("ARG_VALIDATION_FAILED", message);
    this.name = "UrlGuardError";
  }
}
