import path from "node:path";
import type { DeclarativeAdapterFactory } from "../../plugins/loader.js";
import type { Adapter } from "../types.js";
import { createMcpAdapter } from "../mcp/index.js";
import { McpSpecError } from "../mcp/errors.js";
import { MCP_FILESYSTEM_BLOCK_SCHEMA } from "../block-schema-data.js";
import type { McpFilesystemBlock } from "../mcp/schema.js";
import { assertSpec } from "../shared/errors.js";
import { createFilesystemGuard } from "./guard.js";
import { isDirectory } from "../../is-directory.js";
import { RuntimeError } from "../../errors.js";

/**
 * The `mcp-filesystem` adapter kind: an `mcp` block for a filesystem server (the reference
 * `@modelcontextprotocol/server-filesystem` or one that names its path arguments the same way)
 * with the sandbox's credential-file rule in front of it. Two fields of its own:
 * ```json
 * { "kind": "mcp-filesystem", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/proj"],
 *   "roots": ["/proj"], "hide": ["/proj/conf/agent-tools.json"] }
 * ```
 * `roots` defaults to the arguments that are existing folders; `hide` adds files beyond the rule.
 * The embedded default's filesystem plugin is of this kind.
 */

/**
 * A refusal is the plugin's policy, not a failure of the server behind it: FORBIDDEN (the policy
 * code) with a hint that says so, so a model neither retries it nor reports a broken service.
 */
const HIDDEN_FILE_HINT =
  "Refused by policy: the filesystem plugin never serves files that commonly hold credentials (`details.hidden`); nothing was read or written. Do not retry or look for another way to the file: work with other files, or ask the user for the value you need.";

/** A folder too large to check before it is moved (carried-entries.ts): policy too, with its own way forward. */
const TOO_MANY_TO_CHECK_HINT =
  "Refused by policy: a folder is checked for hidden files before it is moved, and this one holds more entries than are checked (`details.limit`); nothing was moved. Move its sub-folders or files one by one.";

/** Tools whose answers list names: hidden entries are taken out of them. */
const LISTINGS = new Set(["list_directory", "list_directory_with_sizes", "directory_tree", "search_files"]);

interface TextResult {
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: { content?: unknown };
}

export const createFilesystemAdapter: DeclarativeAdapterFactory = async (spec, options) => {
  assertSpec<McpFilesystemBlock>(McpSpecError, MCP_FILESYSTEM_BLOCK_SCHEMA, spec, "adapter");
  const { roots, hide, ...rest }: McpFilesystemBlock = spec;
  const mcpSpec = { ...rest, kind: "mcp" };
  const served = roots?.length ? roots : (rest.args ?? []).map(String).filter((a) => path.isAbsolute(a) && isDirectory(a));
  const guard = createFilesystemGuard(served, hide ?? []);
  const inner = await createMcpAdapter(mcpSpec, options);
  const adapter: Adapter = {
    listTools: (listing) => inner.listTools(listing),
    async call(name, args, ctx) {
      const refusal = await guard.refusal(args);
      if (refusal) {
        const details = { hidden: refusal.hidden, ...(refusal.tooMany ? { limit: refusal.tooMany } : {}) };
        throw new RuntimeError("FORBIDDEN", refusal.message, details, refusal.tooMany ? TOO_MANY_TO_CHECK_HINT : HIDDEN_FILE_HINT);
      }
      const result = (await inner.call(name, args, ctx)) as TextResult;
      if (!LISTINGS.has(name) || !result || typeof result !== "object") return result;
      const content = result.content?.map((item) => (item.type === "text" && typeof item.text === "string" ? { ...item, text: guard.filterText(item.text, args.path) } : item));
      const structured = typeof result.structuredContent?.content === "string" ? { ...result.structuredContent, content: guard.filterText(result.structuredContent.content, args.path) } : result.structuredContent;
      return { ...result, ...(content ? { content } : {}), ...(structured ? { structuredContent: structured } : {}) };
    },
    close: () => inner.close?.() ?? Promise.resolve(),
  };
  if (inner.onToolsChanged) adapter.onToolsChanged = (listener) => inner.onToolsChanged?.(listener);
  return adapter;
};
