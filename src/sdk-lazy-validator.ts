import { createRequire } from "node:module";
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/server";

/**
 * Used only by the bundled build (scripts/bundle.ts, lazySdkShims): the class the MCP SDK packages'
 * `_shims` modules export as `DefaultJsonSchemaValidator` becomes this stand-in in the bundles.
 *
 * The SDKs' Node shim is their Ajv-backed default validator, which inlines a whole copy of Ajv and
 * ajv-formats (~210 KB of code per package, evaluated when the package is imported: every Ajv
 * dialect's modules run at import). The stand-in has the same shape and loads the package's own
 * validator (its CommonJS build, synchronously, as `getValidator` is synchronous) the first time
 * something asks it to validate, so the same engine with the same options checks the same schemas.
 */
const require = createRequire(import.meta.url);

interface SdkShims {
  DefaultJsonSchemaValidator: new () => jsonSchemaValidator;
}

/** The stand-in class for one SDK package's shims (`@modelcontextprotocol/server/_shims`, `.../client/_shims`). */
export function lazyDefaultValidator(shims: string): new () => jsonSchemaValidator {
  return class DefaultJsonSchemaValidator implements jsonSchemaValidator {
    #engine: jsonSchemaValidator | undefined;

    getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
      this.#engine ??= new (require(shims) as SdkShims).DefaultJsonSchemaValidator();
      return this.#engine.getValidator<T>(schema);
    }
  };
}
