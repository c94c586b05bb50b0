/**
 * Errors of the CLI adapter. A failed call throws an AdapterError (shared/errors.ts), the project's
 * one error type for calls, so the pipeline passes its code (UPSTREAM_ERROR, UPSTREAM_TIMEOUT, NOT_CONFIGURED,
 * ARG_VALIDATION_FAILED, UNKNOWN_TOOL), hint and details on unchanged.
 * A bad `adapter` block throws CliSpecError, an AdapterSpecError naming the field.
 */

import { AdapterError, AdapterSpecError, type AdapterErrorCode } from "../shared/errors.js";

export type CliErrorCode = AdapterErrorCode;

export interface CliErrorDetails {
  /** Exit code of the program, when it ran to completion (null when a signal ended it). */
  exitCode?: number | null;
  /** The signal that ended the program, when one did. */
  signal?: string | null;
  /** The last part of the program's stderr (redacted). */
  stderr?: string;
  /** The argument at fault, for ARG_VALIDATION_FAILED. */
  argument?: string;
  /** Host variables to set, for NOT_CONFIGURED. */
  variables?: string[];
  /** From a matching `errors` rule: the next step for the model, and facts shown as `error.details`. */
  hint?: string;
  details?: Record<string, unknown>;
  /** The program was killed or died mid-run (see AdapterErrorOptions.cutOff). */
  cutOff?: boolean;
}

export class CliError extends AdapterError<CliErrorCode> {
  readonly exitCode: number | null | undefined;
  readonly signal: string | null | undefined;
  readonly stderr: string | undefined;
  readonly argument: string | undefined;
  readonly variables: string[] | undefined;
  constructor(code: CliErrorCode, message: string, details: CliErrorDetails = {}) {
    super(code, message, { hint: details.hint, details: details.details, cutOff: details.cutOff });
    this.name = "CliError";
    this.exitCode = details.exitCode;
    this.signal = details.signal;
    this.stderr = details.stderr;
    this.argument = details.argument;
    this.variables = details.variables;
  }
}

/** A problem in the manifest's `cli` block, found when the adapter is built; names the field. */
export class CliSpecError extends AdapterSpecError {
  override readonly name = "CliSpecError";
}
