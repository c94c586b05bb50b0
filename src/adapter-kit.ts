/**
 * Building blocks for hand-written plugin adapters: `import { … } from "agent-tools-runtime/adapters"`.
 * The built-in kinds' pieces (an MCP client adapter from a spec, the REST adapter and client, the
 * secret redactor) and nothing of the server: this entry loads no facade, no HTTP server, no
 * sandbox and no search index, so a plugin's adapter module costs only what it uses. The main
 * entry re-exports the same names.
 */
export type { Adapter, AdapterOptions, CallContext, JsonSchema, ListToolsOptions, Logger, ToolAnnotations, ToolDescriptor } from "./adapters/types.js";
export { mcpAdapterFromSpec, type CreateMcpAdapterExtras } from "./adapters/mcp/factory.js";
export { McpAdapter } from "./adapters/mcp/adapter.js";
export { parseMcpSpec } from "./adapters/mcp/spec.js";
export { createRestAdapter, RestClient, RestError } from "./adapters/rest/index.js";
export { createRedactor, type Redactor } from "./adapters/shared/redact.js";
