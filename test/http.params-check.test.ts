import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { httpForSuite, MCP_HEADERS, raw } from "./http-helpers.js";

/**
 * A 2026-07-28 (stateless) tools/call or tools/list with malformed params is answered -32602 in
 * one sentence naming the member and what to send, as a 2025-era session's is (fuzz.protocol
 * covers that era and stdio), not with the SDK's multi-line zod dump; a well-formed call after it
 * is served. So is each element of a 2025-era JSON-RPC batch (2025-03-26), which the SDK's transport
 * is given whole: the bad ones get the sentence, the good ones their answers, in one reply.
 */

const VERSION = "2026-07-28";
const envelope = {
  "io.modelcontextprotocol/protocolVersion": VERSION,
  "io.modelcontextprotocol/clientInfo": { name: "params-check", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

function modern(method: string, params: Record<string, unknown>): { headers: Record<string, string>; body: string } {
  return {
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": VERSION, "mcp-method": method, ...(typeof params.name === "string" ? { "mcp-name": params.name } : {}) },
    body: JSON.stringify({ jsonrpc: "2.0", id: 9, method, params: { ...params, _meta: envelope } }),
  };
}

describe("malformed tools/call and tools/list params in the 2026-07-28 era over HTTP", () => {
  const http = httpForSuite();

  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ["tools/call", { name: "agent_tools_help", arguments: "foo" }, /^Invalid params for tools\/call: 'params\.arguments': expected an object, received string; nothing was run\. Send \{"name": /],
    ["tools/call", { name: "agent_tools_help", arguments: [1, 2] }, /'params\.arguments': expected an object, received array/],
    ["tools/call", { name: "agent_tools_help", arguments: null }, /'params\.arguments': expected an object, received null/],
    ["tools/call", { arguments: {} }, /'params\.name': missing \(expected string\)/],
    ["tools/call", { name: 7, arguments: {} }, /'params\.name': expected string, received number/],
    ["tools/list", { cursor: 3 }, /^Invalid params for tools\/list: 'params\.cursor': expected string, received number; nothing was run\. Send no params, or \{"cursor"/],
  ];
  for (const [method, params, says] of cases) {
    it(`${method} ${JSON.stringify(params)} answers -32602 in one line naming the member`, async () => {
      const res = await raw(http.url, { method: "POST", ...modern(method, params) });
      assert.equal(res.status, 200, res.body);
      const error = res.json().error;
      assert.equal(error?.code, -32602, res.body);
      assert.match(error?.message ?? "", says);
      assert.doesNotMatch(error?.message ?? "", /\n|"code": "invalid_type"/, "no zod dump");
    });
  }

  it("a well-formed call is served after them", async () => {
    const res = await raw(http.url, { method: "POST", ...modern("tools/call", { name: "agent_tools_help", arguments: {} }) });
    assert.equal(res.status, 200, res.body);
    assert.ok(res.json().result, res.body);
  });
});

describe("malformed params inside a 2025-03-26 JSON-RPC batch over HTTP", () => {
  const http = httpForSuite();

  it("each bad element answers -32602 in one line naming the member; the good one is served, all in the batch's one reply", async () => {
    const init = await raw(http.url, {
      headers: MCP_HEADERS,
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "batch", version: "0" } } }),
    });
    const session = init.headers["mcp-session-id"];
    assert.equal(typeof session, "string", init.body);
    const headers = { ...MCP_HEADERS, "Mcp-Session-Id": String(session), "Mcp-Protocol-Version": "2025-03-26" };
    await raw(http.url, { headers, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
    const res = await raw(http.url, {
      headers,
      body: JSON.stringify([
        { jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "agent_tools_help", arguments: {} } },
        { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "agent_tools_help", arguments: "bad" } },
        { jsonrpc: "2.0", id: 8, method: "logging/setLevel", params: { level: "loud" } },
      ]),
    });
    assert.equal(res.status, 200, res.body);
    const answers = res.json() as Array<{ id: number; result?: unknown; error?: { code: number; message: string } }>;
    assert.ok(Array.isArray(answers), res.body);
    const byId = new Map(answers.map((answer) => [answer.id, answer]));
    assert.ok(byId.get(6)?.result, res.body);
    assert.equal(byId.get(7)?.error?.code, -32602, res.body);
    assert.match(byId.get(7)?.error?.message ?? "", /^Invalid params for tools\/call: 'params\.arguments': expected an object, received string; nothing was run/);
    assert.equal(byId.get(8)?.error?.code, -32602, res.body);
    assert.match(byId.get(8)?.error?.message ?? "", /^Invalid params for logging\/setLevel: 'params\.level': .*; nothing was run\. Send \{"level": "info"\}/);
    for (const id of [7, 8]) assert.doesNotMatch(byId.get(id)?.error?.message ?? "", /\n|"code": "invalid/, "no zod dump");
  });
});
