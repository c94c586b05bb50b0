import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { listenOnLoopback } from "./fixtures/loopback.js";
import { sendJson, startServer } from "./fixtures/rest/http-server.js";
import { buildV2Server } from "./fixtures/v2/downstream.js";
import { callJson, connect, type Connected } from "./helpers.js";

/**
 * An HTTP mcpServers entry whose URL answers HTTP 400 or 404 to the listing (tools/list) or to the
 * start before it, through the built server over stdio, each downstream a real server on
 * 127.0.0.1. A listing carries none of the caller's arguments: the hint says the address or the
 * server is at fault and names the entry's `url` setting, never "fix the argument" (a 400 to a
 * tool call) or "look the id up first" (a 404 to one), and never "call again" for a session that
 * was not lost.
 */

interface Downstream {
  url: string;
  close: () => Promise<void>;
}

/** Not an MCP endpoint at all: every request answered `status`, as a web app's wrong path is. */
async function refusesEverything(status: number): Promise<Downstream> {
  const server = await startServer((_req, res) => res.writeHead(status, { "content-type": "text/plain" }).end(status === 404 ? "Cannot POST /mcp" : "Bad Request"));
  return { url: `${server.url}/mcp`, close: server.close };
}

/** The SDK v2 fixture, modern-only (2026-07-28, no session), with tools/list answered `status` in front of it. */
async function modernRefusingListing(status: number): Promise<Downstream> {
  const handler = createMcpHandler(buildV2Server, { legacy: "reject" });
  const node = toNodeHandler(handler);
  const server = createServer((req, res) => {
    if (req.headers["mcp-method"] === "tools/list") return void res.writeHead(status, { "content-type": "text/plain" }).end("Not here");
    void node(req, res);
  });
  const listening = await listenOnLoopback(server);
  return {
    url: `${listening.origin}/mcp`,
    close: async () => {
      await handler.close();
      await listening.close();
    },
  };
}

/** A 2025-era server with sessions: initialize answered, tools/list answered `status` on every session. */
async function sessionRefusingListing(status: number): Promise<Downstream & { initializes: () => number }> {
  let opened = 0;
  const server = await startServer((req, res) => {
    if (req.method === "DELETE") return void res.writeHead(200).end();
    if (req.method !== "POST") return void res.writeHead(405).end();
    const message = JSON.parse(req.body) as { id?: number | string; method: string };
    if (message.method === "initialize") {
      opened++;
      return void sendJson(res, 200, { jsonrpc: "2.0", id: message.id, result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "lister", version: "1" } } }, { "mcp-session-id": `S${opened}` });
    }
    if (message.id === undefined) return void res.writeHead(202).end();
    if (message.method === "tools/list") return void res.writeHead(status, { "content-type": "text/plain" }).end("Not here");
    // server/discover (the 2026-07-28 probe): not found, so the client speaks 2025.
    sendJson(res, 200, { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } });
  });
  return { url: `${server.url}/mcp`, close: server.close, initializes: () => opened };
}

const CALL_HINTS = /fix the argument|Look it up first|The service behind this plugin failed/i;

describe("an HTTP MCP server that refuses the listing with 400 or 404", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-listing-refused-"));
  const configFile = path.join(dir, "agent-tools.config.json");
  let downstreams: Record<string, Downstream>;
  let session404: Awaited<ReturnType<typeof sessionRefusingListing>>;
  let server: Connected;
  before(async () => {
    session404 = await sessionRefusingListing(404);
    downstreams = {
      web404: await refusesEverything(404),
      web400: await refusesEverything(400),
      modern404: await modernRefusingListing(404),
      modern400: await modernRefusingListing(400),
      session404,
      session400: await sessionRefusingListing(400),
    };
    writeFileSync(configFile, JSON.stringify({ mcpServers: Object.fromEntries(Object.entries(downstreams).map(([name, { url }]) => [name, { url, timeoutMs: 30_000 }])) }));
    mkdirSync(path.join(dir, "no-plugins"));
    server = await connect(path.join(dir, "no-plugins"), { AGENT_TOOLS_CONFIG: configFile });
  });
  after(async () => {
    await server?.close();
    for (const downstream of Object.values(downstreams ?? {})) await downstream.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const discoverError = async (prefix: string) => {
    const { payload, isError } = await callJson(server.client, `agent_tools_${prefix}_discover`, {});
    assert.ok(isError && payload.error, JSON.stringify(payload));
    return payload.error as { code: string; message: string; hint: string; details?: { status?: number } };
  };
  const urlSetting = (prefix: string) => new RegExp(`\`mcpServers\\.${prefix}\\.url\` in ${configFile.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`);

  for (const status of [404, 400]) {
    it(`a URL that answers ${status} to MCP's first request over both transports is not an MCP endpoint: the hint says so and names the url setting`, async () => {
      const error = await discoverError(`web${status}`);
      assert.equal(error.code, "UPSTREAM_ERROR");
      assert.match(error.message, /speaks neither Streamable HTTP .* nor SSE/);
      assert.match(error.hint, new RegExp(`refused MCP's first request \\(HTTP ${status}\\) over both transports, so it is most likely not the server's MCP endpoint`));
      assert.match(error.hint, urlSetting(`web${status}`));
      assert.doesNotMatch(error.hint, CALL_HINTS);
    });

    it(`a modern-era server whose tools/list is answered ${status}: the listing's hint (its address or the server), not a call's`, async () => {
      const error = await discoverError(`modern${status}`);
      assert.match(error.message, new RegExp(`answered tools/list with HTTP ${status}`));
      assert.match(error.hint, new RegExp(`answered the request for its tool list with HTTP ${status}`));
      assert.match(error.hint, /A listing changes nothing, so nothing was changed on the server/);
      assert.match(error.hint, urlSetting(`modern${status}`));
      assert.doesNotMatch(error.hint, CALL_HINTS);
      assert.deepEqual(error.details, { status });
    });
  }

  it("a 2025-era server that answers 400 to tools/list on its session: the listing's hint", async () => {
    const error = await discoverError("session400");
    assert.match(error.message, /answered tools\/list with HTTP 400/);
    assert.match(error.hint, /answered the request for its tool list with HTTP 400/);
    assert.match(error.hint, urlSetting("session400"));
    assert.doesNotMatch(error.hint, CALL_HINTS);
  });

  it("a 2025-era server that answers 404 to tools/list on a session it had just opened, again on the next one: a refused listing, not a lost session to call again for", async () => {
    const before = session404.initializes();
    const error = await discoverError("session404");
    assert.equal(session404.initializes() - before, 2, "the 404 was first taken for a lost session: one new session, once");
    assert.match(error.message, /answered tools\/list with HTTP 404, again on a session it had just opened .*: a refusal, not a lost session/);
    assert.doesNotMatch(error.message, /lost the session/);
    assert.match(error.hint, /answered the request for its tool list with HTTP 404/);
    assert.match(error.hint, urlSetting("session404"));
    assert.doesNotMatch(error.hint, /the next call connects to the server anew/);
    assert.doesNotMatch(error.hint, CALL_HINTS);
  });
});
