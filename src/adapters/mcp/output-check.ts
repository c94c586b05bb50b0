import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/client";
import { DefaultJsonSchemaValidator } from "@modelcontextprotocol/client/_shims";

/**
 * The SDK Client checks a tool's `structuredContent` against the tool's own `outputSchema` and,
 * when it does not match, throws the result away ("Structured content does not match the tool's
 * output schema"). The server did answer: losing its answer over its own schema helps nobody. This
 * validator, given to the Client, checks with the SDK's own engine, lets a mismatching object
 * through, and remembers the mismatch for that object, so the adapter passes the result on with a
 * warning that names it. A non-object (which MCP does not allow as structuredContent) still fails
 * as the SDK would.
 */
export class PassingOutputValidator implements jsonSchemaValidator {
  readonly #engine: jsonSchemaValidator = new DefaultJsonSchemaValidator();
  /** Mismatches by the structuredContent object they were found in: dropped with the result. */
  readonly #mismatches = new WeakMap<object, string>();

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const check = this.#engine.getValidator<T>(schema);
    return (input) => {
      const checked = check(input);
      if (checked.valid || !input || typeof input !== "object") return checked;
      this.#mismatches.set(input, checked.errorMessage ?? "it does not match");
      return { valid: true, data: input as T, errorMessage: undefined };
    };
  }

  /** What did not match in this structuredContent (the validator's message), if anything. */
  mismatchOf(structuredContent: unknown): string | undefined {
    return structuredContent && typeof structuredContent === "object" ? this.#mismatches.get(structuredContent) : undefined;
  }
}
