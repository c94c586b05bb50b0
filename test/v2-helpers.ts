import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport, type CallToolResult } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import path from "node:path";
import { baseEnv, FIXTURES, MCP_BIN, PLUGINS, ROOT, type Payload } from "./helpers.js";
import { raw } from "./http-helpers.js";

/** Helpers of the protocol-era tests: SDK v2 clients, pinned to 2026-07-28 or negotiating. */

export const MODERN = "2026-07-28";
export const V2_FIXTURE = path.join(ROOT, "test", "fixtures", "v2", "downstream.ts");
/** A 2025-era downstream (SDK v1) that asks its questions mid-call, the 2025 way (its header says which tools). */
export const LEGACY_ASKER = path.join(ROOT, "test", "fixtures", "v2", "legacy-asker.mjs");
/** The arguments that serve the dual-era v2 fixture over stdio (with `process.execPath` as the command). */
export const V2_DOWNSTREAM_ARGS: readonly string[] = ["--import", import.meta.resolve("tsx"), V2_FIXTURE, "serve"];

/** The first content block's text of a tool result ("" when it is not text); works for v1 and v2 clients' results. */
export function firstText(result: unknown): string {
  const first = (result as { content: { type: string; text?: string }[] }).content[0];
  return first?.type === "text" ? (first.text ?? "") : "";
}

/** A 2026-07-28 request's `_meta` envelope, as a raw client sends it (no capabilities declared unless `extra` adds them). */
export function modernEnvelope(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientInfo": { name: "raw-modern", version: "0" }, "io.modelcontextprotocol/clientCapabilities": {}, ...extra };
}

/** A raw 2026-07-28 `subscriptions/listen` request for tool-list changes. */
export const LISTEN = { jsonrpc: "2.0", id: 1, method: "subscriptions/listen", params: { notifications: { toolsListChanged: true }, _meta: modernEnvelope() } } as const;

/** The headers a raw 2026-07-28 POST of `method` needs (the standard headers the SDK checks), with `accept`. */
export function modernHeaders(method: string, accept = "application/json, text/event-stream"): Record<string, string> {
  return { "Content-Type": "application/json", Accept: accept, "MCP-Protocol-Version": MODERN, "Mcp-Method": method };
}

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

/** A facade tool's JSON payload: its one text block of one-line JSON (the payload is sent once). */
export async function callV2(client: Client, name: string, args: Record<string, unknown> = {}, options: Parameters<Client["callTool"]>[1] = {}): Promise<{ payload: Payload; isError: boolean }> {
  const result = (await client.callTool({ name, arguments: args }, options)) as CallToolResult;
  const first = result.content[0];
  if (!first || first.type !== "text") throw new Error(`no text content from ${name}`);
  if (result.structuredContent !== undefined) throw new Error(`${name} sent its payload twice (structuredContent)`);
  return { payload: JSON.parse(first.text) as Payload, isError: result.isError === true };
}

/** A tool call's retry of a 2026-07-28 input_required round: the answers and the state echoed. */
export interface ModernRetry {
  inputResponses: Record<string, unknown>;
  requestState: string;
}

/**
 * Raw 2026-07-28 `tools/call` requests over HTTP (no session: the envelope rides in `_meta` of each),
 * numbered from 1, each answered as JSON or as an event stream whose message of the same id is
 * returned. Raw, so that a test can send the same retry twice at once or tamper with it.
 */
export function modernToolCalls<Answer>(url: () => string, envelope: Record<string, unknown>): (name: string, args: Record<string, unknown>, retry?: ModernRetry) => Promise<Answer> {
  let id = 0;
  return async (name, args, retry) => {
    const rpcId = ++id;
    const params = { name, arguments: args, ...(retry ?? {}), _meta: envelope };
    const response = await raw(url(), {
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": name },
      body: JSON.stringify({ jsonrpc: "2.0", id: rpcId, method: "tools/call", params }),
    });
    assert.equal(response.status, 200, response.body);
    const text = response.body;
    const json = text.trimStart().startsWith("{") ? text : (text.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).find((l) => l.includes(`"id":${rpcId}`)) ?? "{}");
    return JSON.parse(json) as Answer;
  };
}
