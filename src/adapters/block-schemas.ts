import * as data from "./block-schema-data.js";
import { usePrecompiledSpec } from "./shared/spec-check.js";

/**
 * The schema of each built-in kind's `adapter` block, keyed by `kind`: what plugin.json is checked
 * against when it is read (every problem at its line and column), before any adapter code loads.
 * Plain data (generated from the kinds' TypeBox schemas by scripts/spec-schemas.ts), so reading a
 * manifest loads neither TypeBox nor any adapter machinery.
 */
export const BLOCK_SCHEMAS: Readonly<Record<string, object>> = {
  mcp: data.MCP_BLOCK_SCHEMA,
  "mcp-filesystem": data.MCP_FILESYSTEM_BLOCK_SCHEMA,
  rest: data.REST_BLOCK_SCHEMA,
  openapi: data.OPENAPI_BLOCK_SCHEMA,
  cli: data.CLI_BLOCK_SCHEMA,
};

// Every block schema (and the parts the kinds check on their own) is also checked by code made
// ahead of time (scripts/config-schema.ts): a valid block costs no Ajv compile at start.
for (const [schema, name] of data.PRECOMPILED) usePrecompiledSpec(schema, name);
