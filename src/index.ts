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
export { parseManifest, readManifest, ManifestError } from "./plugins/manifest.js";
export type { PluginManifest, DeclarativeAdapterSpec } from "./plugins/manifest.js";
export type { Skill, SkillMeta } from "./plugins/skills.js";
export { definePlugin, defineSkill } from "./define.js";
export { createTextLayer, textLayerFor, textLayerOptionsFromEnv } from "./text/text-layer.js";
export type { ExecOptions as TextExecOptions, TextLayer, TextLayerOptions } from "./text/text-layer.js";
export type { ExecAnswer } from "./text/answer.js";
export { EXIT as TEXT_EXIT_CODES } from "./text/exit-codes.js";
export type { ModuleCommand, ModuleHost, ModuleSetup, ModuleVariable, TextModule } from "./text/module-contract.js";
