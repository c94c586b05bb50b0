import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { textJson } from "./helpers.js";
import { httpForSuite, raw, startHttp, type RawResponse, type RunningHttp } from "./http-helpers.js";
import { LISTEN, modernEnvelope, modernHeaders, V2_DOWNSTREAM_ARGS } from "./v2-helpers.js";

/**
 * Clients in the wild (the original runtime's Pi extension) POST with `Accept: application/json`
 * only, or no Accept at all. The spec asks for both media types; the server answers such clients
 * with plain JSON rather than 406, for the whole session.
 */

let server: RunningHttp;
before(async () => {
  server = await startHttp();
});
after(async () => {
  await server?.stop();
});

const INITIALIZE = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "pi-extension-like", version: "0.2.7" } } });

for (const accept of ["application/json", undefined]) {
  describe(`a client sending ${accept ? `only 'Accept: ${accept}'` : "no Accept header"}`, () => {
    it("opens a session, lists and calls tools, and gets JSON every time", async () => {
      const headers = (extra: Record<string, string> = {}) => ({ "Content-Type": "application/json", ...(accept ? { Accept: accept } : {}), ...extra });
      const init = await raw(server.url, { headers: headers(), body: INITIALIZE });
      assert.equal(init.status, 200, init.body);
      assert.match(String(init.headers["content-type"]), /^application\/json/);
      assert.equal(init.json().result?.protocolVersion, "2025-06-18");
      const session = String(init.headers["mcp-session-id"]);
      assert.ok(session.length > 8);
      const withSession = headers({ "Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-06-18" });
      const initialized = await raw(server.url, { headers: withSession, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
      assert.equal(initialized.status, 202, initialized.body);
      const list = await raw(server.url, { headers: withSession, body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) });
      assert.equal(list.status, 200, list.body);
      assert.match(String(list.headers["content-type"]), /^application\/json/);
      const names = (list.json().result?.tools as { name: string }[]).map((t) => t.name);
      assert.ok(names.includes("agent_tools_help"));
      const help = await raw(server.url, { headers: withSession, body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "agent_tools_help", arguments: {} } }) });
      assert.equal(help.status, 200, help.body);
      assert.match(String(help.headers["content-type"]), /^application\/json/);
      assert.equal(textJson<{ ok: boolean }>(help.json().result).ok, true);
    });
  });
}

describe("a client listing both media types", () => {
  it("is served as before (SSE when it prefers it)", async () => {
    const init = await raw(server.url, { headers: { "Content-Type": "application/json", Accept: "text/event-stream, application/json" }, body: INITIALIZE });
    assert.equal(init.status, 200);
    assert.match(String(init.headers["content-type"]), /^text\/event-stream/);
  });
});

describe("a client that refuses SSE with q=0", () => {
  it("gets JSON even when text/event-stream is listed first (q=0 is 'not acceptable')", async () => {
    for (const accept of ["text/event-stream;q=0, application/json", "text/event-stream;q=0"]) {
      const init = await raw(server.url, { headers: { "Content-Type": "application/json", Accept: accept }, body: INITIALIZE });
      assert.equal(init.status, 200, `${accept}: ${init.body}`);
      assert.match(String(init.headers["content-type"]), /^application\/json/, accept);
    }
  });
});

/**
 * A 2026-07-28 request is answered in a media type its Accept names: the SDK's modern leg would
 * turn the answer into an SSE stream as soon as a progress notification went out, whatever the
 * client accepted. The spec asks clients to list both; one that lists JSON alone (or nothing) gets
 * JSON without the notifications, and a listen, which is only a stream, gets 406 saying so.
 */
describe("a 2026-07-28 request whose Accept does not name text/event-stream", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-modern-accept-"));
  const config = path.join(dir, "agent-tools.config.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { db: { command: process.execPath, args: [...V2_DOWNSTREAM_ARGS] } } }));
  const http = httpForSuite({ AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_PLUGINS_DIR: dir });
  const stepsWithProgress = (accept?: string): Promise<RawResponse> => {
    const { Accept: _both, ...headers } = modernHeaders("tools/call");
    const body = { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "agent_tools_db_call", arguments: { toolName: "slow_steps", arguments: { steps: 2 } }, _meta: modernEnvelope({ progressToken: "p" }) } };
    return raw(http.url, { headers: { ...headers, "Mcp-Name": "agent_tools_db_call", ...(accept ? { Accept: accept } : {}) }, body: JSON.stringify(body) });
  };

  for (const accept of ["application/json", undefined]) {
    it(`is answered in JSON, its progress dropped (${accept ? `Accept: ${accept}` : "no Accept"})`, async () => {
      const answer = await stepsWithProgress(accept);
      assert.equal(answer.status, 200, answer.body);
      assert.match(String(answer.headers["content-type"]), /^application\/json/, "not text/event-stream, which it did not accept");
      assert.equal(answer.json().id, 3);
      assert.match(answer.body, /done 2 steps/);
    });
  }

  it("gets its progress over SSE when it names both media types, as before", async () => {
    const answer = await stepsWithProgress("application/json, text/event-stream");
    assert.match(String(answer.headers["content-type"]), /^text\/event-stream/);
    assert.match(answer.body, /notifications\/progress/);
    assert.match(answer.body, /done 2 steps/);
  });

  for (const accept of ["application/json", undefined]) {
    it(`subscriptions/listen, which is only a stream, answers 406 naming the Accept to send (${accept ? `Accept: ${accept}` : "no Accept"})`, async () => {
      const { Accept: _both, ...headers } = modernHeaders("subscriptions/listen");
      const refused = await raw(http.url, { headers: { ...headers, ...(accept ? { Accept: accept } : {}) }, body: JSON.stringify(LISTEN) });
      assert.equal(refused.status, 406, refused.body);
      assert.equal(refused.json().id, 1);
      assert.match(refused.json().error?.message ?? "", new RegExp(`does not admit \\(${accept ? `'${accept}'` : "none was sent"}\\); send 'Accept: application/json, text/event-stream'`));
    });
  }
});
