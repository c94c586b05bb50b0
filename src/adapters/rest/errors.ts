/**
 * Errors of the REST adapter. A failed call throws an AdapterError (shared/errors.ts), the project's
 * one error type for calls, so the pipeline passes its code (UPSTREAM_ERROR, UPSTREAM_TIMEOUT, NOT_CONFIGURED,
 * ARG_VALIDATION_FAILED, UNKNOWN_TOOL, RESULT_TOO_LARGE), hint, details and HTTP status on unchanged.
 * A bad `adapter` block throws RestSpecError, an AdapterSpecError naming the field.
 */

import { AdapterError, AdapterSpecError, type AdapterErrorCode } from "../shared/errors.js";

export type RestErrorCode = AdapterErrorCode;

export class RestError extends AdapterError<RestErrorCode> {
  constructor(code: RestErrorCode, message: string, status?: number, extra: { hint?: string; details?: Record<string, unknown> } = {}) {
    super(code, message, { status, ...extra });
    this.name = "RestError";
  }
}

/** A spec (manifest block) problem, found when the adapter is built; names the field. */
export class RestSpecError extends AdapterSpecError {
  override readonly name = "RestSpecError";
}

/** A URL or path that would leave the configured base URL. */
export class UrlGuardError extends RestError {
  constructor(message: string) {
    super("ARG_VALIDATION_FAILED", message);
    this.name = "UrlGuardError";
  }
}
