import process from "node:process";
import { lazyDefaultValidator } from "./sdk-lazy-validator.js";

/**
 * Used only by the bundled build (scripts/bundle.ts): what the server SDK's own
 * `@modelcontextprotocol/server/_shims` import resolves to inside the bundles. The runtime never
 * asks the server SDK's default validator anything (every facade Server gets formAnswerValidator,
 * facade/form-validator.ts, and `fromJsonSchema` is not called), so its Ajv never loads.
 */
export const DefaultJsonSchemaValidator = lazyDefaultValidator("@modelcontextprotocol/server/_shims");

export { process };
