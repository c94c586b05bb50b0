import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/server";
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
