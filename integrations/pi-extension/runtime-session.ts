import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";

/**
 * One MCP session with a running agent-tools-runtime over Streamable HTTP. Nothing here knows
 * about Pi: index.ts turns the tools this lists into Pi tools and routes their calls back here.
 */

export const DEFAULT_URL = "http://127.0.0.1:8321/mcp";
export const START_COMMAND = "node /path/to/agent-tools-runtime/dist/bin/agent-tools-mcp-http.js (or: agent-tools http)";

export interface RuntimeSettings {
  url: string;
  token?: string;
}

/** AGENT_TOOLS_HTTP_URL (default http://127.0.0.1:8321/mcp) and the optional AGENT_TOOLS_HTTP_TOKEN. */
export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): RuntimeSettings {
  const url = env.AGENT_TOOLS_HTTP_URL?.trim() || DEFAULT_URL;
  try {
    new URL(url);
  } catch {
    throw new Error(`AGENT_TOOLS_HTTP_URL is not a URL: "${url}". Set it to the runtime's endpoint, e.g. ${DEFAULT_URL}`);
  }
  const token = env.AGENT_TOOLS_HTTP_TOKEN?.trim();
  return token ? { url, token } : { url };
}

/** Why the runtime could not be used, with the URL tried and the command that starts it. */
export function unreachableMessage(url: string, cause: unknown): string {
  const reason = cause instanceof Error ? describeCause(cause) : String(cause);
  const auth =
    cause instanceof StreamableHTTPError && cause.code === 401
      ? " The runtime wants a bearer token: set AGENT_TOOLS_HTTP_TOKEN to the value it was started with."
      : "";
  return (
    `agent-tools-runtime is not reachable at ${url} (${reason}).${auth} ` +
    `Start it with: ${START_COMMAND}; it listens on ${DEFAULT_URL} by default. ` +
    `If it runs elsewhere, set AGENT_TOOLS_HTTP_URL (and AGENT_TOOLS_HTTP_TOKEN if it has one) before starting pi.`
  );
}

/** A request that never got an HTTP answer (refused, reset, unknown host), as fetch reports it. */
function isConnectionFailure(error: unknown): boolean {
  let inner: unknown = error;
  for (let depth = 0; depth < 4 && inner && typeof inner === "object"; depth++) {
    const code = (inner as { code?: unknown }).code;
    if (typeof code === "string" && /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|UND_ERR_SOCKET)$/.test(code)) return true;
    if (inner instanceof TypeError && inner.message === "fetch failed") return true;
    inner = (inner as { cause?: unknown }).cause;
  }
  return false;
}

function describeCause(error: Error): string {
  // fetch hides the socket error (ECONNREFUSED and the like) a level or two down in `cause`
  let inner: unknown = error;
  for (let depth = 0; depth < 4 && inner && typeof inner === "object"; depth++) {
    const code = (inner as { code?: unknown }).code;
    if (typeof code === "string") return `${error.message}: ${code}`;
    inner = (inner as { cause?: unknown }).cause;
  }
  return error.message;
}

export class RuntimeSession {
  private client: Client | undefined;
  private transport: StreamableHTTPClientTransport | undefined;

  constructor(private readonly settings: RuntimeSettings) {}

  get url(): string {
    return this.settings.url;
  }

  /** Initialize a session; throws an Error whose message is unreachableMessage(). */
  async connect(): Promise<void> {
    const headers: Record<string, string> = this.settings.token ? { Authorization: `Bearer ${this.settings.token}` } : {};
    const transport = new StreamableHTTPClientTransport(new URL(this.settings.url), { requestInit: { headers } });
    const client = new Client({ name: "agent-tools-runtime-pi-extension", version: "0.1.0" });
    try {
      await client.connect(transport);
    } catch (error) {
      await transport.close().catch(() => undefined);
      throw new Error(unreachableMessage(this.settings.url, error), { cause: error });
    }
    this.client = client;
    this.transport = transport;
  }

  /** Every tool the facade offers, following nextCursor page by page. */
  async listAllTools(): Promise<Tool[]> {
    const client = this.requireClient();
    const tools: Tool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...page.tools);
      cursor = page.nextCursor;
      // a server that repeats a cursor would otherwise keep us here for ever
      if (cursor !== undefined) {
        if (seen.has(cursor)) throw new Error(`tools/list at ${this.settings.url} returned the cursor "${cursor}" twice`);
        seen.add(cursor);
      }
    } while (cursor !== undefined);
    return tools;
  }

  /**
   * tools/call in this session. A 404 means the runtime dropped the session (idle expiry or a
   * restart): initialize a new one and send the call once more.
   */
  async callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
    try {
      return (await this.requireClient().callTool({ name, arguments: args }, undefined, signal ? { signal } : undefined)) as CallToolResult;
    } catch (error) {
      // the runtime stopped since pi started: say so, with the command that starts it again
      if (isConnectionFailure(error)) throw new Error(unreachableMessage(this.settings.url, error), { cause: error });
      if (!(error instanceof StreamableHTTPError && error.code === 404)) throw error;
      await this.close();
      await this.connect();
      return (await this.requireClient().callTool({ name, arguments: args }, undefined, signal ? { signal } : undefined)) as CallToolResult;
    }
  }

  /** End the session on the server (DELETE) and close the transport. */
  async close(): Promise<void> {
    const { client, transport } = this;
    this.client = undefined;
    this.transport = undefined;
    if (!transport || !client) return;
    await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
  }

  private requireClient(): Client {
    if (!this.client) throw new Error(`no MCP session with ${this.settings.url}: connect() first`);
    return this.client;
  }
}

/** The text a model should read from a facade result: its text blocks, joined. */
export function resultText(result: CallToolResult): string {
  const texts = result.content.filter((c): c is { type: "text"; text: string } => c.type === "text").map((c) => c.text);
  if (texts.length > 0) return texts.join("\n");
  return JSON.stringify(result.structuredContent ?? result.content);
}

/**
 * The message of a facade error result: "CODE: message" and the runtime's hint first, so a model
 * reads what to do next, then the whole payload for the details.
 */
export function errorMessage(result: CallToolResult): string {
  const text = resultText(result);
  const payload = (result.structuredContent ?? safeParse(text)) as { error?: { code?: unknown; message?: unknown; hint?: unknown } } | undefined;
  const error = payload?.error;
  if (!error || typeof error.code !== "string") return text;
  const hint = typeof error.hint === "string" ? `\nHint: ${error.hint}` : "";
  return `${error.code}: ${String(error.message ?? "")}${hint}\n${text}`;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
