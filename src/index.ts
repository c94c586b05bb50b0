/** Public API: named exports only. */
export type { Adapter, AdapterOptions, CallContext, JsonSchema, Logger, Match, ToolAnnotations, ToolDescriptor } from "./adapters/types.js";
export { createRuntime } from "./runtime/runtime.js";
export type { OperationResult, PluginSummary, Runtime, RuntimeOptions } from "./runtime/runtime.js";
export { createToolIndex } from "./runtime/search/index.js";
export type { SearchDocument, SearchHit, ToolIndex } from "./runtime/search/index.js";
export { ERROR_CODES, HINTS, RuntimeError } from "./runtime/errors.js";
export type { ErrorCode, ErrorPayload } from "./runtime/errors.js";
export { createFacadeServer } from "./facade/server.js";
export { serveStdio } from "./transports/stdio.js";
export { serveHttp } from "./transports/http.js";
export { startHttpFacade, type HttpFacade } from "./transports/http/server.js";
export { resolveHttpOptions, HttpOptionsError, type HttpOptions } from "./transports/http/options.js";
export { parseManifest, readManifest, ManifestError } from "./plugins/manifest.js";
export type { PluginManifest, DeclarativeAdapterSpec } from "./plugins/manifest.js";
export type { Skill, SkillMeta } from "./plugins/skills.js";
export { definePlugin, defineSkill } from "./define.js";
// Pieces for hand-written plugin adapters and skills (the bundled n8n plugin composes these).
export { mcpAdapterFromSpec, parseMcpSpec, McpAdapter } from "./adapters/mcp/index.js";
export { RestClient, RestError } from "./adapters/rest/index.js";
export { createRedactor, type Redactor } from "./adapters/shared/redact.js";
