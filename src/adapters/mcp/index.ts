/** Everything of the `mcp` adapter kind; the runtime itself imports the slimmer factory.ts. */
export { createMcpAdapter, mcpAdapterFromSpec, type CreateMcpAdapterExtras } from "./factory.js";
export { McpAdapter, type McpAdapterOptions } from "./adapter.js";
export { authFetch, createBearerSource, type BearerSource } from "./bearer-auth.js";
export { listAllTools, ToolCatalog } from "./catalog.js";
export { MAX_PAGES } from "./tools-list-walk.js";
export { buildChildEnv, safeBaseEnv, SAFE_BASE_ENV_VARS, SECRET_NAME } from "./child-env.js";
export { trackedChildren, isAlive } from "./child-registry.js";
export { McpConnection, type ConnectionOptions, type OpenedTransport, type RequestControl, type TransportOpener } from "./connection.js";
export { McpAdapterError, McpSpecError, type McpErrorCode } from "./errors.js";
export { mcpClientFromEnv, parseArgsValue, stdioMcpClientFromEnv, type FromEnvOptions } from "./from-env.js";
export { createHttpOpener, type HttpOpenerOptions } from "./http-transport.js";
export { expiresAtMs, OAuthTokenStore, resolveStorePath, writeTokenStore, type StoredTokens, type TokenStoreOptions } from "./oauth-token-store.js";
export { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, parseMcpSpec, type McpAuthSpec, type McpHttpSpec, type McpSpec, type McpStdioSpec } from "./spec.js";
export { createStdioOpener, resolveLaunch, type StdioOpenerOptions } from "./stdio-transport.js";
export { StderrTail } from "./stderr-tail.js";
