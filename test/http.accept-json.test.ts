import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { textJson } from "./helpers.js";
import { raw, startHttp, type RunningHttp } from "./http-helpers.js";

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
