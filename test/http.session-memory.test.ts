import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { silentLogger } from "../src/log.js";
import { createRuntime } from "../src/runtime/runtime.js";
import type { Runtime } from "../src/runtime/runtime.js";
import { resolveHttpOptions } from "../src/transports/http/options.js";
import { startHttpFacade, type HttpFacade } from "../src/transports/http/server.js";

/**
 * What an open HTTP session holds: its own state, not its past answers (issue #16: ≤ 0.05 MiB
 * per session at 500; bench/perf.ts measures).
 */

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

async function rpc(url: string, body: unknown, session?: string): Promise<Response> {
  const response = await fetch(url, { method: "POST", headers: { ...HEADERS, ...(session ? { "mcp-session-id": session } : {}) }, body: JSON.stringify(body) });
  assert.ok(response.ok, `HTTP ${response.status}`);
  return response;
}

describe("HTTP session memory", () => {
  let runtime: Runtime;
  let facade: HttpFacade;
  before(async () => {
    runtime = await createRuntime({ pluginDirs: [], env: {}, log: silentLogger });
    facade = await startHttpFacade(runtime, resolveHttpOptions({ AGENT_TOOLS_HTTP_PORT: "0" }), silentLogger);
  });
  after(async () => {
    await facade.close();
    await runtime.close();
  });

  test("a JSON-mode session keeps none of the answers it was sent", async () => {
    const init = await rpc(facade.url, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } } });
    const id = init.headers.get("mcp-session-id") ?? "";
    await init.text();
    await (await rpc(facade.url, { jsonrpc: "2.0", method: "notifications/initialized" }, id)).text();
    for (let i = 0; i < 20; i++) {
      const list = (await (await rpc(facade.url, { jsonrpc: "2.0", id: 10 + i, method: "tools/list" }, id)).json()) as { result: { tools: unknown[] } };
      assert.ok(list.result.tools.length > 0);
    }
    const entry = facade.sessions.get(id);
    assert.ok(entry, "the session is open");
    // SDK 1.x kept one stream entry per JSON POST (holding the response) until the session closed; v2 releases it.
    const streams = (entry.transport as unknown as { _streamMapping?: Map<unknown, unknown> })._streamMapping;
    assert.ok(streams instanceof Map, "the SDK transport still has the stream table this works around");
    assert.equal(streams.size, 0, "no finished answer is held");
  });
});
