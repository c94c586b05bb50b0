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
