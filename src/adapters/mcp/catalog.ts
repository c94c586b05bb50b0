import type { Client, RequestOptions } from "@modelcontextprotocol/client";
import type { ToolDescriptor } from "../types.js";
import { LenientClient } from "./lenient-handshake.js";
import { listLifetime } from "../../list-lifetime.js";

/**
 * The server's tool list, read page by page (the SDK's own list-changed refresh reads only the
 * first page) and cached until the server says it changed.
 */

/**
 * A listing: the tools, a sentence for each entry of the server's list that was mended or left
 * out (tools-list-mend.ts), and how long the server said they stay current (`ttlMs` of the first page).
 */
export interface ListedTools {
  tools: ToolDescriptor[];
  notes: string[];
  ttlMs?: number;
}

/**
 * The cache lifetime a 2026-07-28 list result states (`ttlMs`, ms), raised to the minimum
 * re-list interval (list-lifetime.ts: the SDK writes 0 when its author said nothing); a value that
 * is not a finite number ≥ 0 is no lifetime.
 */
export function listLifetimeOf(result: unknown): number | undefined {
  return listLifetime((result as { ttlMs?: unknown } | undefined)?.ttlMs);
}

/**
 * Every page of `tools/list`: the SDK's listTools without a cursor follows `nextCursor` itself,
 * through LenientClient's guard against pagination that never ends (tools-list-walk.ts), whose
 * stop is one of the listing's notes.
 */
export async function listAllTools(client: Client, options: RequestOptions): Promise<ListedTools> {
  const lenient = client instanceof LenientClient ? client : undefined;
  // Notes of an earlier listing that failed midway are not this listing's.
  lenient?.takeToolsListNotes();
  const result = await client.listTools(undefined, options);
  const ttlMs = listLifetimeOf(result);
  return { tools: result.tools as ToolDescriptor[], notes: lenient?.takeToolsListNotes() ?? [], ...(ttlMs === undefined ? {} : { ttlMs }) };
}

export class ToolCatalog {
  private tools: ListedTools | undefined;
  /** When the kept list goes stale (its ttlMs ran out); undefined: kept until invalidated. */
  private expiresAt: number | undefined;
  private generation = 0;
  private loading: { generation: number; promise: Promise<ListedTools> } | undefined;

  constructor(private readonly now: () => number = Date.now) {}
  /** The names of the tools with an outputSchema in the last list read, kept past a list_changed (for sdkChecksOutputOf); undefined before any list was read. */
  private lastWithOutputSchema: Set<string> | undefined;
  /** The names of the tools the last list read marked `readOnlyHint: true` (for declaresReadOnly). */
  private lastReadOnly: ReadonlySet<string> = new Set();

  /** The cached list while it is current, or `load()` once (concurrent callers share it). */
  async get(load: () => Promise<ListedTools>): Promise<ListedTools> {
    if (this.tools && (this.expiresAt === undefined || this.now() < this.expiresAt)) return this.tools;
    if (this.loading?.generation === this.generation) return this.loading.promise;
    const generation = this.generation;
    const promise = load().then((listed) => {
      // The catalog keeps the MCP tool objects as listed (outputSchema included).
      this.lastWithOutputSchema = new Set(listed.tools.filter((t) => (t as { outputSchema?: unknown }).outputSchema !== undefined).map((t) => t.name));
      this.lastReadOnly = new Set(listed.tools.filter((t) => t.annotations?.readOnlyHint === true).map((t) => t.name));
      // A list_changed that arrived while loading makes this result stale: do not cache it.
      if (generation === this.generation) {
        this.tools = listed;
        this.expiresAt = listed.ttlMs === undefined ? undefined : this.now() + listed.ttlMs;
      }
      return listed;
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

  /**
   * Whether the last list read marked this tool `readOnlyHint: true` (the server's own word that
   * it does not write). A tool not in it, or no list read yet: false, so it is handled as a write.
   */
  declaresReadOnly(name: string): boolean {
    return this.lastReadOnly.has(name);
  }

  invalidate(): void {
    this.tools = undefined;
    this.expiresAt = undefined;
    this.generation++;
  }

  get cached(): boolean {
    return this.tools !== undefined;
  }
}
