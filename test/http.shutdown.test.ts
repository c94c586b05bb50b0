import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, it } from "node:test";
import { isRunning, STDIO_FIXTURE } from "./fixtures/mcp/support.js";
import { textJson } from "./helpers.js";
import { httpClient, startHttp } from "./http-helpers.js";
import { until } from "./wait.js";
import { LISTEN, modernHeaders } from "./v2-helpers.js";

// A signal with sessions open, a call in flight and a stdio downstream running: the server closes
// everything and exits 0, leaving no child process behind. An open subscriptions/listen stream is
// no call: it does not hold the drain and ends with its final result.

function configWithStdioDownstream(): { dir: string; config: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-shutdown-"));
  const config = path.join(dir, "agent-tools.config.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [STDIO_FIXTURE] } } }));
  return { dir, config };
}

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  describe(`${signal} to the HTTP server`, () => {
    it("closes open sessions and the stdio downstream, exits 0 within 5 s, and leaves no child", async () => {
      const { dir, config } = configWithStdioDownstream();
      const http = await startHttp({ AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_PLUGINS_DIR: dir });
      const first = await httpClient(http.url);
      const second = await httpClient(http.url);
      const result = (await first.client.callTool({ name: "agent_tools_fx_call", arguments: { toolName: "pid", arguments: {} } })) as CallToolResult;
      const pid = Number(JSON.stringify(textJson(result)).match(/\d{2,}/)?.[0]);
      assert.ok(Number.isInteger(pid) && isRunning(pid), `the downstream runs: ${JSON.stringify(textJson(result))}`);
      // A call that never answers is in flight when the signal arrives.
      const hanging = second.client.callTool({ name: "agent_tools_fx_call", arguments: { toolName: "hang", arguments: {}, confirm: true } }).catch(() => "ended");

      const started = Date.now();
      http.child.kill(signal);
      const exit = await http.exited;
      assert.deepEqual(exit, { code: 0, signal: null }, http.stderr());
      assert.ok(Date.now() - started < 5500, "within the 5 s grace");
      await until(() => !isRunning(pid), "the stdio downstream to be gone");
      assert.equal(await hanging, "ended");
      await first.client.close().catch(() => undefined);
      await second.client.close().catch(() => undefined);
    });
  });
}

describe("an open 2026-07-28 subscriptions/listen stream when the HTTP server is told to stop", () => {
  it("is no call: the drain does not wait for it, and it ends with its final result, not as interrupted", async () => {
    // A drain far longer than the bound below: waited for, the stream would hold the exit for it.
    const http = await startHttp({ AGENT_TOOLS_DRAIN_MS: "60000" });
    const target = new URL(http.url);
    let events = "";
    const acknowledged = new Promise<void>((resolve, reject) => {
      const req = request({ host: target.hostname, port: target.port, path: target.pathname, method: "POST", headers: modernHeaders("subscriptions/listen") }, (res) => {
        res.on("data", (chunk: Buffer) => {
          events += chunk.toString();
          if (events.includes("notifications/subscriptions/acknowledged")) resolve();
        });
      });
      req.on("error", reject);
      req.end(JSON.stringify(LISTEN));
    });
    await acknowledged;
    const started = Date.now();
    http.child.kill("SIGTERM");
    assert.deepEqual(await http.exited, { code: 0, signal: null }, http.stderr());
    assert.ok(Date.now() - started < 20_000, `exited ${Date.now() - started} ms after SIGTERM, not after the 60 s drain`);
    const last = JSON.parse(events.trim().split("\n").at(-1)?.replace(/^data: /, "") ?? "{}") as { id?: unknown; result?: { resultType?: string }; error?: unknown };
    assert.equal(last.id, 1);
    assert.equal(last.result?.resultType, "complete", `the listen request's final result, the spec's graceful end: ${events}`);
    assert.doesNotMatch(http.stderr(), /interrupted|still running/, "no request was running");
    assert.match(http.stderr(), /http POST \/mcp subscriptions\/listen session=modern status=200 ok/);
  });
});
