import { CliBlockSchema, CliErrorRulesSchema, CliToolSchema } from "../src/adapters/cli/schema.js";
import { McpBlockSchema, McpFilesystemBlockSchema } from "../src/adapters/mcp/schema.js";
import { AuthSchema, OpenApiBlockSchema, PaginateSchema, RestBlockSchema, RestErrorRulesSchema, RestToolSchema, ResultShapeSchema } from "../src/adapters/rest/schema.js";
import { FlatManifestSchema, SpecManifestSchema } from "../src/plugins/manifest-schema.js";

/**
 * The one list of the plugin.json and adapter block schemas a start checks with precompiled code:
 * each TypeBox schema, the file its plain data is written to and that data's name
 * (scripts/spec-schemas.ts), and the name of its validator in src/validators.generated/
 * (scripts/config-schema.ts). The data files also carry each schema's validator name
 * (`PRECOMPILED`), which is how block-schemas.ts and manifest.ts register them, so a schema added
 * here is written, compiled and used without being named anywhere else.
 */

export const BLOCK_DATA_FILE = "src/adapters/block-schema-data.ts";
export const MANIFEST_DATA_FILE = "src/plugins/manifest-schema-data.ts";

export interface SpecSchema {
  file: string;
  /** The exported constant in `file`. */
  data: string;
  /** Its file and export in src/validators.generated/ (spec-check.ts PrecompiledName). */
  validator: string;
  doc: string;
  schema: object;
}

const spec = (file: string, data: string, validator: string, doc: string, schema: object): SpecSchema => ({ file, data, validator, doc, schema });

// In this order in the generated files.
export const SPEC_SCHEMAS: readonly SpecSchema[] = [
  spec(MANIFEST_DATA_FILE, "FLAT_MANIFEST_SCHEMA", "flatManifest", "plugin.json in the flat form (manifest-schema.ts).", FlatManifestSchema),
  spec(MANIFEST_DATA_FILE, "SPEC_MANIFEST_SCHEMA", "specManifest", "plugin.json in the Agent Plugins Spec form.", SpecManifestSchema),
  spec(BLOCK_DATA_FILE, "MCP_BLOCK_SCHEMA", "mcpBlock", "The `mcp` block (mcp/schema.ts).", McpBlockSchema),
  spec(BLOCK_DATA_FILE, "MCP_FILESYSTEM_BLOCK_SCHEMA", "mcpFilesystemBlock", "The `mcp-filesystem` block (mcp/schema.ts).", McpFilesystemBlockSchema),
  spec(BLOCK_DATA_FILE, "REST_BLOCK_SCHEMA", "restBlock", "The `rest` block (rest/schema.ts).", RestBlockSchema),
  spec(BLOCK_DATA_FILE, "REST_TOOL_SCHEMA", "restTool", "One tool of a `rest` block.", RestToolSchema),
  spec(BLOCK_DATA_FILE, "REST_AUTH_SCHEMA", "restAuth", "A rest or openapi block's `auth`.", AuthSchema),
  spec(BLOCK_DATA_FILE, "REST_PAGINATE_SCHEMA", "restPaginate", "A rest tool's `paginate`.", PaginateSchema),
  spec(BLOCK_DATA_FILE, "REST_RESULT_SHAPE_SCHEMA", "restResultShape", "A rest tool's `result`.", ResultShapeSchema),
  spec(BLOCK_DATA_FILE, "REST_ERROR_RULES_SCHEMA", "restErrorRules", "A rest or openapi block's `errors`.", RestErrorRulesSchema),
  spec(BLOCK_DATA_FILE, "OPENAPI_BLOCK_SCHEMA", "openapiBlock", "The `openapi` block (rest/schema.ts).", OpenApiBlockSchema),
  spec(BLOCK_DATA_FILE, "CLI_BLOCK_SCHEMA", "cliBlock", "The `cli` block (cli/schema.ts).", CliBlockSchema),
  spec(BLOCK_DATA_FILE, "CLI_TOOL_SCHEMA", "cliTool", "One tool of a `cli` block.", CliToolSchema),
  spec(BLOCK_DATA_FILE, "CLI_ERROR_RULES_SCHEMA", "cliErrorRules", "A cli block's `errors`.", CliErrorRulesSchema),
];
