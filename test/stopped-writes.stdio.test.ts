import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { CLI_FIXTURES } from "./fixtures/cli/helpers.js";
import { sendJson, startServer, type TestServer } from "./fixtures/rest/http-server.js";
import { STDIO_FIXTURE } from "./fixtures/mcp/support.js";
import { callJson, connect, writePlugin, type Connected } from "./helpers.js";
import { until } from "./wait.js";

// A tool that changes data and was stopped by its adapter (the cli block's or the REST block's own
// timeoutMs) or died mid-run (a program ended by a signal) may have made its change: over real
// stdio, against real programs and a real local HTTP server that never answers, its error says to
// look at the data first, as the runtime's deadline does; a read-only tool keeps "retry once".

const LOOK_FIRST = /'(\w+)' changes data, and it (was stopped|ended) before it answered.*Do not simply call it again: look at the data first/;

describe("writes stopped or ended by their adapter", () => {
  let backend: TestServer;
  let server: Connected;
  let dir: string;
  before(async () => {
    // Answers only /quick; every other request is left hanging until the test ends.
    backend = await startServer((req, res) => {
      if (req.url === "/quick") sendJson(res, 200, {});
    });
    dir = mkdtempSync(path.join(tmpdir(), "agent-tools-stopped-writes-"));
    const sleeper = path.join(CLI_FIXTURES, "sleeper");
    const selfKill = path.join(CLI_FIXTURES, "self-kill");
    writePlugin(path.join(dir, "agent-tools-plugin-wcli"), {
      name: "wcli",
      prefix: "wcli",
      description: "CLI writes that hang or crash (tests only)",
      adapter: {
        kind: "cli",
        program: sleeper,
        allowlist: [sleeper],
        timeoutMs: 500,
        tools: [
          { name: "write_slow", argv: [path.join(dir, "pids-w")] },
          { name: "read_slow", argv: [path.join(dir, "pids-r")], readonly: true },
        ],
      },
    });
    writePlugin(path.join(dir, "agent-tools-plugin-wcrash"), {
      name: "wcrash",
      prefix: "wcrash",
      description: "A CLI write that dies by a signal (tests only)",
      adapter: { kind: "cli", program: selfKill, allowlist: [selfKill], tools: [{ name: "write_crash", argv: [] }, { name: "read_crash", argv: [], readonly: true }] },
    });
    writePlugin(path.join(dir, "agent-tools-plugin-wrest"), {
      name: "wrest",
      prefix: "wrest",
      description: "A REST write that never answers (tests only)",
      adapter: { kind: "rest", baseUrl: backend.url, timeoutMs: 500, tools: [{ name: "create_item", method: "POST", path: "/items", body: ["name"] }] },
    });
    server = await connect(dir, { AGENT_TOOLS_CALL_TIMEOUT_MS: "60000" });
  });
  after(async () => {
    await server.close();
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a cli write killed at the block's timeoutMs says to look at the data first", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_wcli_call", { toolName: "write_slow", arguments: {}, confirm: true });
    assert.equal(isError, true);
    assert.equal(payload.error?.code, "UPSTREAM_TIMEOUT");
    assert.match(payload.error?.message ?? "", /did not finish within 500 ms and was killed/);
    assert.match(payload.error?.hint ?? "", LOOK_FIRST);
    assert.match(payload.error?.hint ?? "", /'write_slow' changes data/);
  });

  it("a read-only cli tool killed the same way keeps the retry-once hint", async () => {
    const { payload } = await callJson(server.client, "agent_tools_wcli_call", { toolName: "read_slow", arguments: {} });
    assert.equal(payload.error?.code, "UPSTREAM_TIMEOUT");
    assert.match(payload.error?.hint ?? "", /Retry once with a narrower request/);
  });

  it("a cli write ended by a signal says the change may have been made; a read keeps the generic hint", async () => {
    const write = await callJson(server.client, "agent_tools_wcrash_call", { toolName: "write_crash", arguments: {}, confirm: true });
    assert.equal(write.payload.error?.code, "UPSTREAM_ERROR");
    assert.match(write.payload.error?.message ?? "", /was ended by signal SIGKILL/);
    assert.match(write.payload.error?.hint ?? "", /'write_crash' changes data, and it ended before it answered: the change may have been made/);
    const read = await callJson(server.client, "agent_tools_wcrash_call", { toolName: "read_crash", arguments: {} });
    assert.doesNotMatch(read.payload.error?.hint ?? "", /changes data/);
  });

  it("a REST write past the block's timeoutMs says to look at the data first", async () => {
    const { payload } = await callJson(server.client, "agent_tools_wrest_call", { toolName: "create_item", arguments: { name: "w" }, confirm: true });
    assert.equal(payload.error?.code, "UPSTREAM_TIMEOUT");
    assert.match(payload.error?.hint ?? "", /'create_item' changes data, and it was stopped before it answered/);
  });
});

// An agent_tools_exec line stopped at its deadline while a write it sent was running: the line's
// stderr names that write (and the writes that had answered earlier in the line) with the same
// look-first wording, and the downstream's cancel says the deadline, not the client.
describe("a command line stopped at its deadline mid-write", () => {
  let server: Connected;
  let dir: string;
  let callLog: string;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "agent-tools-stopped-line-"));
    callLog = path.join(dir, "calls.log");
    writeFileSync(callLog, "");
    const config = path.join(dir, "agent-tools.config.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [STDIO_FIXTURE, "--call-log", callLog] } } }));
    server = await connect(dir, { AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_EXEC_TIMEOUT_MS: "5000", AGENT_TOOLS_CALL_TIMEOUT_MS: "60000" });
    // The shell made and the server started and listed before the timed line: on a loaded machine
    // they alone passed a 3 s deadline, which then fell during 'fx/sleep' instead of 'fx/hang'.
    const warm = await callJson(server.client, "agent_tools_exec", { command: "fx call sleep --ms 1 --confirm" });
    assert.equal(warm.payload.exitCode, 0, JSON.stringify(warm.payload));
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("names the write in flight and the one answered before, and the downstream's cancel names the deadline", async () => {
    const { payload } = await callJson(server.client, "agent_tools_exec", { command: "echo a; fx call sleep --ms 10 --confirm; fx call hang --confirm; echo b" });
    assert.equal(payload.exitCode, 124, JSON.stringify(payload));
    const stderr = String(payload.stderr);
    assert.match(stderr, /ran past its deadline of 5000 ms/);
    assert.match(stderr, /'fx\/hang' changes data, and the line ran past its deadline while it was running: the service may still have done the change\. Do not simply call it again: look at the data first/);
    assert.match(stderr, /Earlier in the line, 'fx\/sleep' \(changing data\) had already answered/);
    await until(() => readFileSync(callLog, "utf8").includes("cancelled"), "the downstream to be told the call was cancelled");
    const cancel = readFileSync(callLog, "utf8").split("\n").find((line) => line.startsWith("cancelled")) ?? "";
    assert.match(cancel, /the command line ran past its deadline of 5000 ms \(AGENT_TOOLS_EXEC_TIMEOUT_MS\)/);
    assert.doesNotMatch(cancel, /cancelled by the client/);
  });
});
