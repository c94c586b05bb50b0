import { CLI_BLOCK_SCHEMA, MCP_BLOCK_SCHEMA, MCP_FILESYSTEM_BLOCK_SCHEMA, OPENAPI_BLOCK_SCHEMA, REST_BLOCK_SCHEMA } from "./block-schema-data.js";

/**
 * The schema of each built-in kind's `adapter` block, keyed by `kind`: what plugin.json is checked
 * against when it is read (every problem at its line and column), before any adapter code loads.
 * Plain data (generated from the kinds' TypeBox schemas by scripts/spec-schemas.ts), so reading a
 * manifest loads neither TypeBox nor any adapter machinery.
 */
export const BLOCK_SCHEMAS: Readonly<Record<string, object>> = {
  mcp: MCP_BLOCK_SCHEMA,
  "mcp-filesystem": MCP_FILESYSTEM_BLOCK_SCHEMA,
  rest: REST_BLOCK_SCHEMA,
  openapi: OPENAPI_BLOCK_SCHEMA,
  cli: CLI_BLOCK_SCHEMA,
};
