import type { TSchema } from "@sinclair/typebox";
import { CliBlockSchema } from "./cli/schema.js";
import { McpBlockSchema, McpFilesystemBlockSchema } from "./mcp/schema.js";
import { OpenApiBlockSchema, RestBlockSchema } from "./rest/schema.js";

/**
 * The schema of each built-in kind's `adapter` block, keyed by `kind`: what plugin.json is checked
 * against when it is read (every problem at its line and column), before any adapter code loads.
 * Only schemas here (TypeBox data), so reading a manifest imports no adapter machinery.
 */
export const BLOCK_SCHEMAS: Readonly<Record<string, TSchema>> = {
  mcp: McpBlockSchema,
  "mcp-filesystem": McpFilesystemBlockSchema,
  rest: RestBlockSchema,
  openapi: OpenApiBlockSchema,
  cli: CliBlockSchema,
};
