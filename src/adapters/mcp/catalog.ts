import type { Client, RequestOptions } from "@modelcontextprotocol/client";
import type { ToolDescriptor } from "../types.js";
import { McpAdapterError } from "./errors.js";
import { LenientClient } from "./lenient-handshake.js";

/**
 * The server's tool list, read page by page (the SDK's own list-changed refresh reads only the
 * first page) and cached until the server says it changed.
 */

export const MAX_PAGES = 200;

/** What one listing read: the tools, and a sentence for each entry of the server's list that was mended or left out (tools-list-mend.ts). */
export interface ListedTools {
  tools: ToolDescriptor[];
  notes: string[];
}

/** Every page of `tools/list`, following `nextCursor`. A cursor seen twice is a server bug, not a loop. */
export async function listAllTools(client: Client, options: RequestOptions, server: string, maxPages = MAX_PAGES): Promise<ListedTools> {
  const lenient = client instanceof LenientClient ? client : undefined;
  // Notes of an earlier listing that failed midway are not this listing's.
  lenient?.takeToolsListNotes();
  const tools = await listPages(client, options, server, maxPages);
  return { tools, notes: lenient?.takeToolsListNotes() ?? [] };
}

async function listPages(client: Client, options: RequestOptions, server: string, maxPages: number): Promise<ToolDescriptor[]> {
  const tools: ToolDescriptor[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor }, options);
    for (const tool of result.tools) tools.push(tool as ToolDescriptor);
    cursor = result.nextCursor;
    if (cursor === undefined || cursor === "") return tools;
    if (seen.has(cursor)) throw new McpAdapterError("UPSTREAM_ERROR", `${server} repeated the tools/list cursor '${cursor}'`);
    seen.add(cursor);
  }
  throw new McpAdapterError("UPSTREAM_ERROR", `${server} returned more than ${maxPages} pages of tools/list`);
}

export class ToolCatalog {
  private tools: ToolDescriptor[] | undefined;
  private generation = 0;
  private loading: { generation: number; promise: Promise<ToolDescriptor[]> } | undefined;
  /** The names of the tools with an outputSchema in the last list read, kept past a list_changed (for sdkChecksOutputOf); undefined before any list was read. */
  private lastWithOutputSchema: Set<string> | undefined;

  /** The cached list, or `load()` once (concurrent callers share it). */
  async get(load: () => Promise<ToolDescriptor[]>): Promise<ToolDescriptor[]> {
    if (this.tools) return this.tools;
    if (this.loading?.generation === this.generation) return this.loading.promise;
    const generation = this.generation;
    const promise = load().then((tools) => {
      // The catalog keeps the MCP tool objects as listed (outputSchema included).
      this.lastWithOutputSchema = new Set(tools.filter((t) => (t as { outputSchema?: unknown }).outputSchema !== undefined).map((t) => t.name));
      // A list_changed that arrived while loading makes this result stale: do not cache it.
      if (generation === this.generation) this.tools = tools;
      return tools;
    });
    this.loading = { generation, promise };
    try {
      return await promise;
    } finally {
      if (this.loading?.promise === promise) this.loading = undefined;
    }
  }

  /**
   * Whether the SDK client's callTool may check this tool's answer against an outputSchema, as far
   * as this catalog can tell (true when unsure). The SDK takes the schema from its own cached
   * tools/list, which only this catalog's loads fill (the SDK's aggregate listTools) and every
   * list_changed or reconnect empties. So that cache holds nothing or the last list read here:
   * a tool without an outputSchema in the last list read (or absent from it, or no list ever read)
   * is never checked. While a load runs the SDK's cache may already hold its newer list: unsure.
   */
  sdkChecksOutputOf(name: string): boolean {
    if (this.loading) return true;
    // A lookup rather than a scan of the list on every call.
    return this.lastWithOutputSchema?.has(name) === true;
  }

  invalidate(): void {
    this.tools = undefined;
    this.generation++;
  }

  get cached(): boolean {
    return this.tools !== undefined;
  }
}
