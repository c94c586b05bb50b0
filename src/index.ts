/** Public API: named exports only. */
export type { Adapter, AdapterOptions, CallContext, JsonSchema, Logger, Match, ToolAnnotations, ToolDescriptor } from "./adapters/types.js";
export { createRuntime } from "./runtime/runtime.js";
export type { OperationResult, PluginSummary, Runtime, RuntimeOptions } from "./runtime/runtime.js";
export { createToolIndex } from "./runtime/search/index.js";
export type { SearchDocument, SearchHit, ToolIndex, SearchEngineName } from "./runtime/search/index.js";
export { retrievalMetrics } from "./runtime/search/evaluate.js";
export type { FacadeMode } from "./runtime/facade-mode.js";
export { ERROR_CODES, HINTS, RuntimeError } from "./runtime/errors.js";
export type { ErrorCode, ErrorPayload } from "./runtime/errors.js";
export { createFacadeServer } from "./facade/server.js";
export { serveStdio } from "./transports/stdio.js";
export { parseManifest, readManifest, ManifestError } from "./plugins/manifest.js";
export type { PluginManifest, DeclarativeAdapterSpec } from "./plugins/manifest.js";
export type { Skill, SkillMeta } from "./plugins/skills.js";
export { definePlugin, defineSkill } from "./define.js";
