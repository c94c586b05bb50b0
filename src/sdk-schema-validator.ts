import type { jsonSchemaValidator, JsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { compileSchema, toViolations } from "./json-schema.js";

/**
 * The JSON Schema validator handed to the SDK's Server (facade) and Client (each downstream
 * connection). Without it, every Server and Client the SDK makes builds its own Ajv instance with
 * formats — at start for the facade, and again on every downstream connection — next to the one
 * the runtime already has for manifests and arguments. This one compiles with the runtime's Ajv
 * (json-schema.ts), caching by schema object, so each schema is compiled once per process.
 */
export const sharedSchemaValidator: jsonSchemaValidator = {
  getValidator<T>(schema: Parameters<jsonSchemaValidator["getValidator"]>[0]): JsonSchemaValidator<T> {
    const validate = compileSchema(schema as Record<string, unknown>);
    return (input: unknown) => {
      // A schema Ajv cannot compile is not held against the data (the runtime's own rule).
      if (validate instanceof Error || validate(input)) return { valid: true, data: input as T, errorMessage: undefined };
      const message = toViolations(validate.errors).map((v) => `${v.path || "/"}: ${v.message}`).join("; ");
      return { valid: false, data: undefined, errorMessage: message };
    };
  },
};
