/** The runtime's errors are the project's one error type (src/errors.ts); re-exported for the runtime's modules. */
export { describeThrown, ERROR_CODES, fromThrown, HINTS, isRuntimeError, RuntimeError, type ErrorCode, type ErrorPayload } from "../errors.js";
