import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Adapter, CallContext, Logger, ServerDescription, ToolDescriptor } from "../types.js";
import type { Redactor } from "../shared/redact.js";
import { listAllTools, ToolCatalog } from "./catalog.js";
import { McpConnection, type TransportOpener } from "./connection.js";
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_TIMEOUT_MS } from "./spec.js";

/**
 * The Adapter over one MCP server. Tools pass through in MCP shape (annotations included);
 * results are MCP CallToolResult objects (the runtime unwraps them), with registered secrets masked.
 */

export interface McpAdapterOptions {
  name: string;
  open: TransportOpener;
  redactor: Redactor;
  log: Logger;
  timeoutMs?: number;
  idleTimeoutMs?: number;
}

export class McpAdapter implements Adapter {
  private readonly connection: McpConnection;
  private readonly catalog = new ToolCatalog();
  private readonly listeners = new Set<() => void>();
  private readonly timeoutMs: number;
  readonly name: string;
  private server: ServerDescription | undefined;

  constructor(private readonly options: McpAdapterOptions) {
    this.name = options.name;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.connection = new McpConnection({
      name: options.name,
      open: options.open,
      idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
      log: options.log,
      redactor: options.redactor,
      onToolsChanged: () => this.toolsChanged(),
    });
  }

  async listTools(): Promise<{ tools: ToolDescriptor[] }> {
    const tools = await this.catalog.get(() =>
      this.connection.request("tools/list", { timeoutMs: this.timeoutMs }, (client, options) => {
        // What the server said of itself at initialize: its plugin's description when the config gives none.
        const info = client.getServerVersion();
        this.server = { ...(info ? { name: info.name, title: info.title, version: info.version, description: (info as { description?: string }).description } : {}), instructions: client.getInstructions() };
        return listAllTools(client, options, `MCP server '${this.name}'`);
      }),
    );
    return { tools: tools.map((tool) => ({ ...tool })) };
  }

  async call(name: string, args: Record<string, unknown>, ctx?: CallContext): Promise<CallToolResult> {
    const result = await this.connection.request(
      `tools/call '${name}'`,
      { timeoutMs: this.timeoutMs, ...(ctx?.signal ? { signal: ctx.signal } : {}) },
      (client, options) => client.callTool({ name, arguments: args }, undefined, options),
    );
    return this.options.redactor.redactValue(result as CallToolResult);
  }

  serverDescription(): ServerDescription | undefined {
    return this.server;
  }

  onToolsChanged(listener: () => void): void {
    this.listeners.add(listener);
  }

  async close(): Promise<void> {
    await this.connection.close();
  }

  /** Stop the server now (as the idle timer does); the next use starts it again. */
  async stop(): Promise<void> {
    await this.connection.stop();
  }

  /** The stdio child's pid while it runs (diagnostics and tests). */
  get pid(): number | undefined {
    return this.connection.pid;
  }

  get connected(): boolean {
    return this.connection.connected;
  }

  /** The server's last stderr lines (stdio), redacted. */
  stderrTail(): string {
    return this.options.redactor.redact(this.connection.diagnostics());
  }

  private toolsChanged(): void {
    this.catalog.invalidate();
    for (const listener of this.listeners) {
      try {
        listener();
      } catch (error) {
        this.options.log.warn(`MCP server '${this.name}': a tools-changed listener failed: ${this.options.redactor.redact((error as Error).message)}`);
      }
    }
  }
}
