import * as data from "./block-schema-data.js";
import { usePrecompiledSpec, type PrecompiledName } from "./shared/spec-check.js";

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
const PRECOMPILED: [object, PrecompiledName][] = [
  [data.MCP_BLOCK_SCHEMA, "mcpBlock"],
  [data.MCP_FILESYSTEM_BLOCK_SCHEMA, "mcpFilesystemBlock"],
  [data.REST_BLOCK_SCHEMA, "restBlock"],
  [data.REST_TOOL_SCHEMA, "restTool"],
  [data.REST_AUTH_SCHEMA, "restAuth"],
  [data.REST_PAGINATE_SCHEMA, "restPaginate"],
  [data.REST_RESULT_SHAPE_SCHEMA, "restResultShape"],
  [data.REST_ERROR_RULES_SCHEMA, "restErrorRules"],
  [data.OPENAPI_BLOCK_SCHEMA, "openapiBlock"],
  [data.CLI_BLOCK_SCHEMA, "cliBlock"],
  [data.CLI_TOOL_SCHEMA, "cliTool"],
  [data.CLI_ERROR_RULES_SCHEMA, "cliErrorRules"],
];
for (const [schema, validate] of PRECOMPILED) usePrecompiledSpec(schema, validate);
