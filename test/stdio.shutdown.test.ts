import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { isRunning, STDIO_FIXTURE } from "./fixtures/mcp/support.js";
import { baseEnv, callJson, MCP_BIN } from "./helpers.js";
import { until } from "./wait.js";
import { LISTEN } from "./v2-helpers.js";

// A signal to the stdio server with calls in flight: each is answered with an error saying the
// server shut down while it ran and its effect is unknown (the words the HTTP server uses), before
// the process exits 0; none is left waiting on a closed pipe.

function setup(fixtureArgs: string[] = []): { dir: string; config: string; callLog: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-stdio-shutdown-"));
  const callLog = path.join(dir, "calls.log");
  writeFileSync(callLog, "");
  const config = path.join(dir, "agent-tools.config.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [STDIO_FIXTURE, "--call-log", callLog, ...fixtureArgs] } } }));
  return { dir, config, callLog };
}

for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
  describe(`${signal} to the stdio server with calls in flight`, () => {
    it("answers each call still running as interrupted, its effect unknown, then exits 0", async () => {
      const { dir, config, callLog } = setup();
      const transport = new StdioClientTransport({ command: process.execPath, args: [MCP_BIN], env: baseEnv({ AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_PLUGINS_DIR: dir }), cwd: dir, stderr: "pipe" });
      let stderr = "";
      transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<void>((resolve) => (transport.onclose = () => resolve()));
      const client = new Client({ name: "stdio-shutdown-test", version: "0.0.0" });
      await client.connect(transport);
      const pid = transport.pid as number;
      const hang = { name: "agent_tools_fx_call", arguments: { toolName: "hang", arguments: {}, confirm: true } };
      // One plain call (the fast lane's) and one with a progress token (the SDK's own handling).
      const calls = [client.callTool(hang), client.callTool(hang, undefined, { onprogress: () => undefined })].map((call) =>
        call.then(
          (result) => ({ answered: "result" as const, result }),
          (error: { code?: number; message?: string }) => ({ answered: "error" as const, code: error.code, message: error.message ?? "" }),
        ),
      );
      await until(() => readFileSync(callLog, "utf8").split("\n").filter((l) => l === "hang").length === 2, "both calls to reach the downstream");

      const started = Date.now();
      process.kill(pid, signal);
      const answers = await Promise.all(calls);
      assert.ok(Date.now() - started < 5000, "answered before the exit, not when the pipe closed");
      for (const answer of answers) {
        assert.equal(answer.answered, "error", JSON.stringify(answer));
        if (answer.answered !== "error") continue;
        assert.equal(answer.code, -32000);
        assert.match(answer.message, new RegExp(`this server shut down \\(${signal}\\) while the request was running: it was stopped before it answered, so whether it took effect is unknown`));
        assert.match(answer.message, /for a call that changes data, first check whether it took effect/);
      }
      await exited;
      assert.match(stderr, /2 request\(s\) still running were answered as interrupted/);
      await client.close().catch(() => undefined);
    });
  });
}

describe("SIGHUP to the stdio server (the client's terminal closed)", () => {
  it("stops the downstream servers before exiting, even one that ignores stdin EOF and SIGTERM", async () => {
    // --stubborn: ignores stdin EOF, SIGTERM, SIGINT and SIGHUP; only the runtime's SIGKILL to its group ends it.
    const { dir, config } = setup(["--stubborn"]);
    const transport = new StdioClientTransport({ command: process.execPath, args: [MCP_BIN], env: baseEnv({ AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_PLUGINS_DIR: dir }), cwd: dir, stderr: "pipe" });
    const exited = new Promise<void>((resolve) => (transport.onclose = () => resolve()));
    const client = new Client({ name: "stdio-sighup-test", version: "0.0.0" });
    await client.connect(transport);
    const { payload } = await callJson(client, "agent_tools_fx_call", { toolName: "pid", arguments: {} });
    const downstream = Number(payload.result);
    assert.ok(downstream > 0 && isRunning(downstream), JSON.stringify(payload));
    process.kill(transport.pid as number, "SIGHUP");
    await exited;
    await until(() => !isRunning(downstream), "the downstream server to be ended with the runtime");
    await client.close().catch(() => undefined);
  });
});

describe("the client closes the runtime's stdout but keeps stdin open", () => {
  it("logs one line on stderr and shuts down as when stdin closes", async () => {
    const { dir, config, callLog } = setup();
    const runtime = spawn(process.execPath, [MCP_BIN], { env: baseEnv({ AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_PLUGINS_DIR: dir }), cwd: dir, stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    runtime.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exit = once(runtime, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
    const send = (message: Record<string, unknown>): boolean => runtime.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
    send({ id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "stdout-closed-test", version: "0" } } });
    await once(runtime.stdout, "data");
    send({ method: "notifications/initialized" });
    runtime.stdout.destroy();
    // The first answer it writes meets the closed pipe (EPIPE): the client is gone.
    send({ id: 2, method: "tools/list", params: {} });
    const started = Date.now();
    const [code] = await exit;
    assert.equal(code, 0);
    assert.ok(Date.now() - started < 15_000, `exited after ${Date.now() - started} ms`);
    assert.equal(stderr.match(/stdout was closed by the client/g)?.length, 1, stderr);
    assert.equal(readFileSync(callLog, "utf8"), "", "no downstream call ran");
  });
});

describe("SIGTERM to the stdio server with a 2026-07-28 subscriptions/listen open", () => {
  it("ends the stream with its final result, not as an interrupted request", async () => {
    const { dir, config } = setup();
    const runtime = spawn(process.execPath, [MCP_BIN], { env: baseEnv({ AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_PLUGINS_DIR: dir }), cwd: dir, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    runtime.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    runtime.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exit = once(runtime, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
    runtime.stdin.write(`${JSON.stringify(LISTEN)}\n`);
    await until(() => stdout.includes("notifications/subscriptions/acknowledged"), "the subscription to be acknowledged");
    runtime.kill("SIGTERM");
    const [code] = await exit;
    assert.equal(code, 0, stderr);
    const lines = stdout.trim().split("\n").map((line) => JSON.parse(line) as { id?: unknown; result?: { resultType?: string }; error?: unknown });
    assert.deepEqual(lines.at(-1)?.result?.resultType, "complete", `the listen request's final result (the spec's graceful end):\n${stdout}`);
    assert.equal(lines.at(-1)?.id, 1);
    assert.ok(!lines.some((line) => line.error !== undefined), `no error answered it:\n${stdout}`);
    assert.doesNotMatch(stderr, /interrupted/);
  });
});
