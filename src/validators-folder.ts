/**
 * The folder of the precompiled validators, under src/ and, copied by the build, dist/. A module
 * of its own, without imports, so the bundle script and the runtime can name it without loading
 * the schemas that scripts/config-schema.ts generates them from.
 */
export const VALIDATORS_FOLDER = "validators.generated";
