import { Client, StreamableHTTPClientTransport, type CallToolResult } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import path from "node:path";
import { baseEnv, FIXTURES, MCP_BIN, PLUGINS, ROOT, type Payload } from "./helpers.js";

/** Helpers of the protocol-era tests: SDK v2 clients, pinned to 2026-07-28 or negotiating. */

export const MODERN = "2026-07-28";
export const V2_FIXTURE = path.join(ROOT, "test", "fixtures", "v2", "downstream.ts");

export type Negotiation = "pin" | "auto" | "legacy";

export function v2Client(negotiation: Negotiation = "pin", capabilities: Record<string, unknown> = {}): Client {
  const versionNegotiation = negotiation === "pin" ? { mode: { pin: MODERN } } : negotiation === "auto" ? { mode: "auto" as const } : { mode: "legacy" as const };
  return new Client({ name: "era-test", version: "0.0.0" }, { capabilities, versionNegotiation });
}

/** The built stdio server, spawned by a v2 client. */
export async function connectStdioV2(client: Client, extraEnv: Record<string, string> = {}, cwd: string = FIXTURES): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCP_BIN],
    env: baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, ...extraEnv }),
    cwd,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

export async function connectHttpV2(client: Client, url: string, fetchImpl?: (url: string | URL, init?: RequestInit) => Promise<Response>): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), fetchImpl ? { fetch: fetchImpl } : {});
  await client.connect(transport);
  return client;
}

/** A facade tool's JSON payload, text and structuredContent checked to agree. */
export async function callV2(client: Client, name: string, args: Record<string, unknown> = {}, options: Parameters<Client["callTool"]>[1] = {}): Promise<{ payload: Payload; isError: boolean }> {
  const result = (await client.callTool({ name, arguments: args }, options)) as CallToolResult;
  const first = result.content[0];
  if (!first || first.type !== "text") throw new Error(`no text content from ${name}`);
  const fromText = JSON.parse(first.text) as Payload;
  const structured = result.structuredContent as Payload;
  if (JSON.stringify(fromText) !== JSON.stringify(structured)) throw new Error(`text and structuredContent differ for ${name}`);
  return { payload: structured, isError: result.isError === true };
}
