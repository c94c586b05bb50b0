import { ProtocolError, ProtocolErrorCode, type JsonSchemaType, type JsonSchemaValidator, type jsonSchemaValidator } from "@modelcontextprotocol/server";
import { compileTransient, toViolations } from "../json-schema.js";
import { CONFIRM_SCHEMA } from "./confirm-rounds.js";

/**
 * The one validator of users' form answers (elicitation results) for every facade Server of the
 * process. Without it the SDK gives each Server instance its own Ajv-backed validator, and a
 * Server is made per legacy HTTP session and per modern request: one more object per session,
 * and on a session's first form answer its own Ajv engines (with ajv-formats) plus every form
 * schema compiled, kept until the session ends. This one uses the runtime's shared Ajv and keeps
 * nothing per form (the schema is compiled when its answer comes back; confirmations and relayed
 * questions are human-paced, so compiling each time costs nothing that matters).
 *
 * A confirmation form's answer is passed through unchecked: decisionOf (confirm-rounds.ts) reads
 * it, failing closed (only `confirm: true` is a yes). Refused here, a malformed answer ("false",
 * 0, {}) would reach the agent as a failed question instead of the user's "not a yes".
 */
export const formAnswerValidator: jsonSchemaValidator = {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    if ((schema as unknown) === CONFIRM_SCHEMA) return (input) => ({ valid: true, data: input as T, errorMessage: undefined });
    const validate = compileTransient(schema as Record<string, unknown>);
    // The SDK reports a thrown error as "Error validating elicitation response: <message>".
    if (validate instanceof Error) throw new Error(`the form's schema does not compile: ${validate.message}`);
    return (input) =>
      validate(input)
        ? { valid: true, data: input as T, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: toViolations(validate.errors).map((v) => v.message).join("; ") };
  },
};

/**
 * Why the user's answer to a form question is refused, or undefined when it stands: an accept
 * whose content breaks the form's `requestedSchema`. The words and code are the ones the SDK's
 * elicitInput gives a 2025-era answer checked by formAnswerValidator, so the downstream (and the
 * agent after it) reads the same refusal whichever era the user answered in; a 2026-07-28 answer
 * comes back in the client's retry, where the SDK checks nothing (held-calls.ts asks this).
 */
export function formAnswerRefusal(params: Record<string, unknown>, result: Record<string, unknown>): ProtocolError | undefined {
  const schema = params.requestedSchema;
  if (params.mode === "url" || result.action !== "accept" || !result.content || !schema || typeof schema !== "object") return undefined;
  try {
    const checked = formAnswerValidator.getValidator(schema as JsonSchemaType)(result.content);
    return checked.valid ? undefined : new ProtocolError(ProtocolErrorCode.InvalidParams, `Elicitation response content does not match requested schema: ${checked.errorMessage}`);
  } catch (error) {
    return new ProtocolError(ProtocolErrorCode.InternalError, `Error validating elicitation response: ${error instanceof Error ? error.message : String(error)}`);
  }
}
