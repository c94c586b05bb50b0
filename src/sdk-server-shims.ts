import { createRequire } from "node:module";
import process from "node:process";
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/server";

/**
 * Used only by the bundled build (scripts/bundle.ts): what the server SDK's own
 * `@modelcontextprotocol/server/_shims` import resolves to inside the bundles.
 *
 * The SDK's Node shim is its Ajv-backed default validator, which inlines a whole copy of Ajv and
 * ajv-formats (~210 KB of code) that every start parsed and evaluated. The runtime never uses it:
 * every facade Server gets formAnswerValidator (facade/form-validator.ts), and `fromJsonSchema` is
 * not called. This stand-in has the same shape and loads the SDK's own validator (its CommonJS
 * build, synchronously) only if something does ask it to validate, so behaviour is unchanged.
 */
const require = createRequire(import.meta.url);

interface SdkShims {
  DefaultJsonSchemaValidator: new () => jsonSchemaValidator;
}

export class DefaultJsonSchemaValidator implements jsonSchemaValidator {
  #engine: jsonSchemaValidator | undefined;

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    this.#engine ??= new (require("@modelcontextprotocol/server/_shims") as SdkShims).DefaultJsonSchemaValidator();
    return this.#engine.getValidator<T>(schema);
  }
}

export { process };
