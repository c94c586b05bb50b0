/** Public API: named exports only. */
export type { Adapter, AdapterOptions, CallContext, JsonSchema, ListToolsOptions, Logger, Match, ToolAnnotations, ToolDescriptor } from "./adapters/types.js";
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
export { serveHttp } from "./transports/http.js";
export { startHttpFacade, type HttpFacade } from "./transports/http/server.js";
export { resolveHttpOptions, HttpOptionsError, type HttpOptions } from "./transports/http/options.js";
export { parseManifest, readManifest, ManifestError } from "./plugins/manifest.js";
export type { PluginManifest, DeclarativeAdapterSpec } from "./plugins/manifest.js";
export type { Skill, SkillMeta } from "./plugins/skills.js";
export { definePlugin, defineSkill } from "./define.js";
export { createTextLayer, textLayerFor, textLayerOptionsFromEnv } from "./text/text-layer.js";
export type { ExecOptions as TextExecOptions, TextLayer, TextLayerOptions } from "./text/text-layer.js";
export type { ExecAnswer } from "./text/answer.js";
export { EXIT as TEXT_EXIT_CODES } from "./text/exit-codes.js";
export type { ModuleCommand, ModuleHost, ModuleSetup, ModuleVariable, TextModule } from "./text/module-contract.js";
export type { SkillContext } from "./plugins/skills.js";
export { createJobStore, jobStoreFor, DEFAULT_MAX_JOBS } from "./runtime/jobs.js";
export type { JobState, JobStatus, JobStore, JobStoreOptions, StartOptions } from "./runtime/jobs.js";
// Pieces for hand-written plugin adapters, also on the slim subpath `agent-tools-runtime/adapters`.
export { createRestAdapter, mcpAdapterFromSpec, parseMcpSpec, McpAdapter, RestClient, RestError, createRedactor, type Redactor } from "./adapter-kit.js";
export { runSteps, type SkillStep, type StepFailure } from "./plugins/skill-steps.js";
// The plugin author's kit, also on its own slim subpath `agent-tools-runtime/plugin` (README "Plugin kit").
export { createAndVerify, describeError, outcomeUnknown, SkillError, skillContext, skillError, unknownOutcomeError, unwrapResult as unwrapToolResult } from "./plugin.js";
export type { FieldCheck, KitContext, SkillErrorOptions, Verified, VerifyPlan } from "./plugin.js";
