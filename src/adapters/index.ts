import type { DeclarativeAdapterFactory } from "../plugins/loader.js";

/**
 * The built-in declarative adapter kinds, keyed by a manifest's `adapter.kind`. Each kind's code
 * (the MCP client, the OpenAPI parser, REST and CLI machinery) is imported when the first plugin
 * of that kind is built, so a fleet without an OpenAPI plugin never loads the parser.
 */
const lazy =
  (load: () => Promise<DeclarativeAdapterFactory>): DeclarativeAdapterFactory =>
  async (spec, options) =>
    (await load())(spec, options);

export const BUILTIN_ADAPTER_KINDS: Readonly<Record<string, DeclarativeAdapterFactory>> = {
  mcp: lazy(async () => (await import("./mcp/factory.js")).createMcpAdapter),
  rest: lazy(async () => (await import("./rest/index.js")).createRestAdapter),
  openapi: lazy(async () => (await import("./openapi/index.js")).createOpenApiAdapter),
  cli: lazy(async () => (await import("./cli/index.js")).createCliAdapter),
  "mcp-filesystem": lazy(async () => (await import("./filesystem/index.js")).createFilesystemAdapter),
};
