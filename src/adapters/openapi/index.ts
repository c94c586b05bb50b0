import type { DeclarativeAdapterFactory } from "../../plugins/loader.js";
import { createOperationsAdapter } from "../rest/adapter.js";
import { RestSpecError } from "../rest/errors.js";
import { parseConnection } from "../rest/spec.js";
import { createRedactor } from "../shared/redact.js";
import { loadOpenApiDocument } from "./load.js";
import { dropAuthParameters, operationsFromDocument, serverUrl } from "./operations.js";

/**
 * The `openapi` adapter kind:
 * ```json
 * { "kind": "openapi", "spec": "./openapi.json",            // file (relative to the plugin) or https URL
 *   "baseUrl": "https://api.example.com/v1",               // optional: default is the spec's first server
 *   "auth": { "type": "header", "name": "api_key", "value": "${PETSTORE_KEY}" },  // as for rest
 *   "headers": {}, "timeoutMs": 30000,
 *   "include": ["getPetById", "findPetsByStatus"],         // optional: only these operationIds
 *   "readonly": ["searchPets"] }                           // optional: read-only beyond GET/HEAD
 * ```
 * Each operation becomes a REST tool (operations.ts); calling is the REST kind's (../rest).
 */
export const createOpenApiAdapter: DeclarativeAdapterFactory = async (spec, options) => {
  if (typeof spec.spec !== "string" || spec.spec === "") throw new RestSpecError("spec", "must be a file path or URL of an OpenAPI 3 document");
  for (const field of ["include", "readonly"] as const) {
    const value = spec[field];
    if (value !== undefined && (!Array.isArray(value) || !value.every((v) => typeof v === "string"))) throw new RestSpecError(field, "must be an array of operationIds");
  }
  const timeoutMs = typeof spec.timeoutMs === "number" ? spec.timeoutMs : undefined;
  const loaded = await loadOpenApiDocument(spec.spec, options.pluginDir, timeoutMs);
  const baseUrl = spec.baseUrl ?? serverUrl(loaded.document, loaded.location, loaded.isUrl);
  if (baseUrl === undefined) throw new RestSpecError("baseUrl", `is needed: the spec '${spec.spec}' names no absolute server URL`);
  const connection = parseConnection(spec, baseUrl);
  const derived = operationsFromDocument(loaded.document, { include: spec.include as string[] | undefined, readonly: spec.readonly as string[] | undefined, log: options.log });
  const tools = dropAuthParameters(derived, connection.auth);
  if (tools.length === 0) throw new Error(`spec '${spec.spec}' has no operations to expose`);
  return createOperationsAdapter(tools, connection, { env: options.env, log: options.log, redactor: options.redactor ?? createRedactor() });
};

export { loadOpenApiDocument, type LoadedDocument } from "./load.js";
export { buildOperation, dropAuthParameters, operationsFromDocument, sanitizeName, serverUrl, type OperationFilter } from "./operations.js";
export { toJsonSchema } from "./schema.js";
