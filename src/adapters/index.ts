import type { DeclarativeAdapterFactory } from "../plugins/loader.js";
import { createCliAdapter } from "./cli/index.js";
import { createFilesystemAdapter } from "./filesystem/index.js";
import { createMcpAdapter } from "./mcp/index.js";
import { createOpenApiAdapter } from "./openapi/index.js";
import { createRestAdapter } from "./rest/index.js";

/** The built-in declarative adapter kinds, keyed by a manifest's `adapter.kind`. */
export const BUILTIN_ADAPTER_KINDS: Readonly<Record<string, DeclarativeAdapterFactory>> = {
  mcp: createMcpAdapter,
  rest: createRestAdapter,
  openapi: createOpenApiAdapter,
  cli: createCliAdapter,
  "mcp-filesystem": createFilesystemAdapter,
};
