import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { silentLogger } from "../src/log.js";
import { createRedactor } from "../src/adapters/shared/redact.js";
import { McpConnection, type TransportOpener } from "../src/adapters/mcp/connection.js";
import { createStdioOpener } from "../src/adapters/mcp/stdio-transport.js";
import { parseMcpSpec, trackedChildren, type McpAdapter, type McpStdioSpec } from "../src/adapters/mcp/index.js";
import { fixtureAdapter, isRunning, liveChildren, MCP_FIXTURES, rejectsWith, textOf } from "./fixtures/mcp/support.js";
import { baseEnv, callJson, MCP_BIN } from "./helpers.js";
import { until } from "./wait.js";

// How the end of a downstream stdio server's connection is read: a start under way when the
// runtime shuts down, a server that closes its stdout and runs on, and a request the server was
// already gone for before it was written.

const SERVER = path.join(MCP_FIXTURES, "connection-ends-server.mjs");

function scratch(): string {
  return mkdtempSync(path.join(tmpdir(), "agent-tools-connection-ends-"));
}

/** The built server over stdio with one downstream `fx`, its config written in `dir`. */
async function runtimeWith(dir: string, server: Record<string, unknown>): Promise<{ client: Client; transport: StdioClientTransport; pid: number; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> }> {
  const config = path.join(dir, "agent-tools.config.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { fx: server } }));
  const transport = new StdioClientTransport({ command: process.execPath, args: [MCP_BIN], env: baseEnv({ AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_PLUGINS_DIR: dir }), cwd: dir, stderr: "pipe" });
  const client = new Client({ name: "connection-ends-test", version: "0.0.0" });
  await client.connect(transport);
  const child = (transport as unknown as { _process: import("node:child_process").ChildProcess })._process;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  return { client, transport, pid: transport.pid as number, exited };
}

describe("a downstream still starting when the runtime shuts down", () => {
  // An npx-like wrapper still "installing": the MCP server is exec'd only after 30 s. The wrapper
  // notes a SIGTERM it receives: the runtime's stop of the start, not the SIGKILL its exit handler
  // (or the client's close, after 4 s) would deal the group once the start was waited for.
  const wrapper = (dir: string): Record<string, unknown> => ({
    command: "sh",
    args: ["-c", `echo $$ > '${dir}/wrapper.pid'; trap 'echo TERM >> "${dir}/wrapper.signals"; exit 0' TERM; sleep 30 & wait; exec '${process.execPath}' '${SERVER}'`],
  });

  for (const how of ["SIGTERM", "the client's close"] as const) {
    it(`${how}: the start is stopped at once (its group gets SIGTERM), and the runtime exits by itself`, async () => {
      const dir = scratch();
      const runtime = await runtimeWith(dir, wrapper(dir));
      const waiting = runtime.client.callTool({ name: "agent_tools_fx_call", arguments: { toolName: "echo", arguments: { text: "x" } } }).catch((error: unknown) => error);
      await until(() => existsSync(path.join(dir, "wrapper.pid")) && readFileSync(path.join(dir, "wrapper.pid"), "utf8").trim() !== "", "the wrapper to start");
      const wrapperPid = Number(readFileSync(path.join(dir, "wrapper.pid"), "utf8"));
      assert.ok(isRunning(wrapperPid));
      if (how === "SIGTERM") process.kill(runtime.pid, "SIGTERM");
      else void runtime.client.close();
      const exit = await runtime.exited;
      // The client's close SIGKILLs a runtime still there after 4 s: one that waited for the start was.
      assert.deepEqual(exit, { code: 0, signal: null }, "the runtime exited by itself");
      assert.equal(readFileSync(path.join(dir, "wrapper.signals"), "utf8").trim(), "TERM", "the start under way was stopped with SIGTERM, not left for the exit's SIGKILL");
      await until(() => !isRunning(wrapperPid), "the wrapper to be gone");
      await waiting;
      await runtime.client.close().catch(() => undefined);
    });
  }
});

describe("a downstream that closes its stdout and runs on", () => {
  it("the call in flight fails at once, the server is stopped, and the next call starts it again", async () => {
    const dir = scratch();
    // A call deadline far past the test's bound: an answer within the bound shows the end of stdout, not the deadline, ended the call.
    const runtime = await runtimeWith(dir, { command: process.execPath, args: [SERVER], timeoutMs: 120_000, requireConfirm: false });
    const first = await callJson(runtime.client, "agent_tools_fx_call", { toolName: "pid", arguments: {} });
    const firstPid = Number(first.payload.result);
    assert.ok(firstPid > 0 && isRunning(firstPid), JSON.stringify(first.payload));

    const started = Date.now();
    const closed = await callJson(runtime.client, "agent_tools_fx_call", { toolName: "close_stdout", arguments: {} });
    assert.ok(Date.now() - started < 60_000, `the call took ${Date.now() - started} ms`);
    assert.equal(closed.payload.ok, false);
    assert.equal(closed.payload.error?.code, "UPSTREAM_ERROR");
    assert.match(closed.payload.error?.message ?? "", /MCP server 'fx' closed its stdout while its process kept running \(no answer can arrive without it: the runtime stopped the server, and the next call starts it again\) during tools\/call 'close_stdout', before its answer arrived; whether tools\/call 'close_stdout' took effect is unknown; its last stderr lines:\s+closed stdout/);
    assert.doesNotMatch(closed.payload.error?.hint ?? "", /narrower/);
    await until(() => !isRunning(firstPid), "the server that closed its stdout to be stopped");

    const again = await callJson(runtime.client, "agent_tools_fx_call", { toolName: "pid", arguments: {} });
    assert.equal(again.payload.ok, true, JSON.stringify(again.payload));
    assert.notEqual(Number(again.payload.result), firstPid, "a new server process answers");
    await runtime.client.close();
  });
});

describe("a request the server was gone for before it was written", () => {
  const opened: McpAdapter[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((adapter) => adapter.close()));
    assert.deepEqual(liveChildren(), [], "no child process left behind");
    assert.deepEqual(trackedChildren(), []);
  });

  it("is sent once more on a new start, where it runs once (it never reached the first)", async () => {
    const dir = scratch();
    const log = path.join(dir, "messages.log");
    // The first start closes its stdin on tools/list (before answering it) and runs on: the call
    // written after it meets EPIPE, with nothing of it taken. The second start is plain.
    const adapter = fixtureAdapter([], { command: process.execPath, args: [SERVER, "--log", log, "--close-stdin-on", "tools/list", "--once", path.join(dir, "once")] });
    opened.push(adapter);
    await adapter.listTools();
    const firstPid = adapter.pid as number;
    assert.equal(textOf(await adapter.call("echo", { text: "hello" })), "hello");
    assert.notEqual(adapter.pid, firstPid, "answered by a new start");
    const lines = readFileSync(log, "utf8").trim().split("\n");
    assert.deepEqual(
      lines.filter((line) => line.endsWith("tools/call echo")),
      [`${adapter.pid} tools/call echo`],
      "the call reached the second start once, and the first never",
    );
  });

  it("when it cannot be sent again, it says it never reached the server, with the exit code and last stderr lines", async () => {
    const dir = scratch();
    const spec = parseMcpSpec({ kind: "mcp", command: process.execPath, args: [SERVER, "--close-stdin-on", "notifications/initialized", "--exit-after-close", "300"] }) as McpStdioSpec;
    const real = createStdioOpener(spec, { name: "gone", hostEnv: process.env, baseDir: dir, redactor: createRedactor(), log: silentLogger, killGraceMs: 2_000 });
    // Every start closes its stdin as soon as its handshake is done, then exits with code 9; the
    // opener hands the connection over only once the stdin is closed, so the call written on the
    // first start and the one sent again on the second both find it gone, whatever the machine's speed.
    const open: TransportOpener = async (makeClient, options) => {
      const connected = await real(makeClient, options);
      await until(() => connected.opened.diagnostics?.().includes("closed stdin") === true, "the server to close its stdin");
      return connected;
    };
    const connection = new McpConnection({ name: "gone", open, idleTimeoutMs: 0, log: silentLogger, redactor: createRedactor(), onToolsChanged: () => undefined });
    try {
      const error = await rejectsWith(connection.request("tools/call 'echo'", { timeoutMs: 60_000 }, (client, options) => client.callTool({ name: "echo", arguments: { text: "x" } }, options)));
      assert.equal((error as { code?: string }).code, "UPSTREAM_ERROR");
      assert.match(error.message, /^MCP server 'gone' exited with code 9 before tools\/call 'echo' could be written to it, so tools\/call 'echo' never reached the server; its last stderr lines:\nclosed stdin on notifications\/initialized\nexiting with code 9$/);
      assert.doesNotMatch(error.message, /effect|EPIPE|after the request was sent/);
      assert.match((error as { hint?: string }).hint ?? "", /^Nothing ran on the server: it stopped right after starting, before the request could be sent \(sending it once more on a new start met the same\)/);
    } finally {
      await connection.close();
    }
  });
});
