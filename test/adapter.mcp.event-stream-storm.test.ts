import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { withOwnRequestSignal } from "../src/adapters/mcp/own-request-signal.js";
import { listenOnLoopback } from "./fixtures/loopback.js";
import { startStormServer } from "./fixtures/mcp/event-stream-storm.js";
import { callJson, connect } from "./helpers.js";
import { until } from "./wait.js";

// A downstream MCP server over Streamable HTTP that ends its event stream (the GET) at once with
// `retry: 0` was reopened about 45 times a second forever, and Node warned of an abort-listener
// leak from the 1,501st time. Through the built server over stdio: the reopening is paced and
// then given up, calls keep working, and nothing leaks.

const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-storm-"));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("a downstream that ends its event stream at once with retry: 0", () => {
  it("is reopened at a bounded pace, then given up with one warning; calls keep working and no listener leaks", { timeout: 120_000 }, async () => {
    const storm = await startStormServer();
    const config = path.join(dir, "agent-tools.config.json");
    // An idle timeout longer than the test: the connection must stay up while its event stream is paced.
    writeFileSync(config, JSON.stringify({ mcpServers: { storm: { url: storm.url, idleTimeoutMs: 300_000 } } }));
    const server = await connect(dir, { AGENT_TOOLS_CONFIG: config });
    try {
      const first = await callJson(server.client, "agent_tools_storm_call", { toolName: "echo", arguments: { text: "before" } });
      assert.equal(first.isError, false, JSON.stringify(first.payload));
      await until(() => storm.gets() >= 1, "the event stream to be opened");
      // Unpaced, 6 s was about 270 GETs. Paced: the first, then 1 s, 2 s, 4 s after each end.
      await new Promise((resolve) => setTimeout(resolve, 6000));
      assert.ok(storm.gets() <= 4, `at most 4 GETs in the first 6 s, got ${storm.gets()}`);

      await until(() => server.stderr().includes("stopped reopening it"), "the runtime to give the event stream up", 60_000);
      const given = storm.gets();
      assert.equal(given, 5, "given up after the fifth stream that ended at once");
      assert.match(server.stderr(), /MCP server 'storm' at http:\/\/127\.0\.0\.1:\d+\/mcp ended its event stream \(GET\) 5 times in a row right after opening it; the runtime stopped reopening it\. Calls still work/);
      assert.equal(server.stderr().match(/stopped reopening it/g)?.length, 1, "said once");
      await new Promise((resolve) => setTimeout(resolve, 3000));
      assert.equal(storm.gets(), given, "no GET after giving up");

      const later = await callJson(server.client, "agent_tools_storm_call", { toolName: "echo", arguments: { text: "after" } });
      assert.equal(later.isError, false, JSON.stringify(later.payload));
      assert.match(JSON.stringify(later.payload), /after/);
      assert.doesNotMatch(server.stderr(), /MaxListenersExceededWarning/);
    } finally {
      await server.close();
      await storm.close();
    }
  });
});

describe("withOwnRequestSignal (own-request-signal.ts)", () => {
  it("leaves no abort listener on the caller's signal once each body is over, and still aborts a body being read", async () => {
    const server = createServer((req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      if (req.url === "/hold") res.write("data: 1\n\n");
      else res.end("retry: 0\n\n");
    });
    const listening = await listenOnLoopback(server);
    try {
      const fetchOwn = withOwnRequestSignal(fetch);
      const connection = new AbortController();
      for (let i = 0; i < 300; i++) await (await fetchOwn(`${listening.origin}/`, { signal: connection.signal })).text();
      // Node's fetch keeps its listener on the signal it was given until the request is collected: on the connection's signal, 300 would pile up.
      assert.equal(getEventListeners(connection.signal, "abort").length, 0, "no listener left on the caller's signal");

      const held = await fetchOwn(`${listening.origin}/hold`, { signal: connection.signal });
      const reader = held.body!.getReader();
      await reader.read();
      assert.equal(getEventListeners(connection.signal, "abort").length, 1, "one listener while a body is being read");
      connection.abort(new Error("connection closed"));
      await assert.rejects(reader.read(), "aborting the caller's signal aborts the body being read");
      assert.equal(getEventListeners(connection.signal, "abort").length, 0);
    } finally {
      await listening.close();
    }
  });
});
