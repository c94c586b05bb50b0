import type { DeclarativeAdapterFactory } from "../../plugins/loader.js";
import { createOperationsAdapter } from "../rest/adapter.js";
import { RestSpecError } from "../rest/errors.js";
import { OPENAPI_BLOCK_SCHEMA } from "../block-schema-data.js";
import type { OpenApiBlock } from "../rest/schema.js";
import { assertSpec } from "../shared/errors.js";
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
  assertSpec<OpenApiBlock>(RestSpecError, OPENAPI_BLOCK_SCHEMA, spec, "");
  const block: OpenApiBlock = spec;
  const loaded = await loadOpenApiDocument(block.spec, options.pluginDir, block.timeoutMs);
  const baseUrl = block.baseUrl ?? serverUrl(loaded.document, loaded.location, loaded.isUrl);
  if (baseUrl === undefined) throw new RestSpecError("baseUrl", `is needed: the spec '${block.spec}' names no absolute server URL`);
  const connection = parseConnection(block, baseUrl);
  const derived = operationsFromDocument(loaded.document, { include: block.include, readonly: block.readonly, log: options.log });
  const tools = dropAuthParameters(derived, connection.auth);
  if (tools.length === 0) throw new Error(`spec '${block.spec}' has no operations to expose`);
  const variable = options.settings?.hostVariables?.baseUrl;
  return createOperationsAdapter(tools, connection, { env: options.env, log: options.log, redactor: options.redactor ?? createRedactor(), baseUrlSetting: { openapi: true, ...(variable ? { variable } : {}) } });
};

export { loadOpenApiDocument, type LoadedDocument } from "./load.js";
export { buildOperation, dropAuthParameters, operationsFromDocument, sanitizeName, serverUrl, type OperationFilter } from "./operations.js";
export { toJsonSchema } from "./schema.js";
