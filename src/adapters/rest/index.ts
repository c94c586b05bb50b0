import type { DeclarativeAdapterFactory } from "../../plugins/loader.js";
import { createRedactor } from "../shared/redact.js";
import { createOperationsAdapter } from "./adapter.js";
import { parseRestSpec } from "./spec.js";

/**
 * The `rest` adapter kind:
 * ```json
 * { "kind": "rest", "baseUrl": "https://api.github.com", "headers": { "X-Api-Version": "2022-11-28" },
 *   "auth": { "type": "bearer", "token": "${GITHUB_TOKEN}" }, "timeoutMs": 30000,
 *   "tools": [ { "name": "list_issues", "method": "GET", "path": "/repos/{owner}/{repo}/issues",
 *                "query": ["state", "per_page"], "paginate": { "style": "link" } } ] }
 * ```
 * See spec.ts for every field; url-guard.ts for how the base URL is kept; adapter.ts for the
 * result shape.
 */
export const createRestAdapter: DeclarativeAdapterFactory = (spec, options) => {
  const { connection, tools } = parseRestSpec(spec);
  const variable = options.settings?.hostVariables?.baseUrl;
  return createOperationsAdapter(tools, connection, { env: options.env, log: options.log, redactor: options.redactor ?? createRedactor(), ...(variable ? { baseUrlSetting: { variable } } : {}) });
};

export { createOperationsAdapter, describeOperation, type OperationsAdapterOptions } from "./adapter.js";
export { RestClient, type BaseUrlSetting, type OutgoingRequest, type RestResponse, type RequestBody } from "./client.js";
export { applyRestErrorRules, parseRestErrorRules, type RestErrorRule } from "./error-rules.js";
export { parseResultShape, shapeBody, shapeItems, type ResultShape } from "./result-shape.js";
export { RestError, RestSpecError, UrlGuardError, type RestErrorCode } from "./errors.js";
export { nextLink, type PaginatedResult } from "./pagination.js";
export { restRequesterFromEnv, type RestRequester } from "./requester.js";
export {
  deriveInputSchema,
  parseAuth,
  parseConnection,
  parsePaginate,
  parseRestSpec,
  parseTool,
  readonlyByDefault,
  type AuthSpec,
  type BodyMapping,
  type PaginateSpec,
  type RestConnectionSpec,
  type RestOperation,
} from "./spec.js";
export { assertWithinBase, checkPathTemplate, checkRawPath, encodePathValue, parseBaseUrl, substitutePath, type BaseUrl } from "./url-guard.js";
