import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { baseEnv, connect, FIXTURES, MCP_BIN, PLUGINS, writePlugin } from "./helpers.js";
import { until } from "./wait.js";

/**
 * One logger call is one stderr line, whatever text it carries: the logger itself escapes control
 * characters (src/log.ts), so text a client chose (a tool name) or a downstream printed (its
 * stderr) cannot start a forged line or send escape sequences to a terminal, and no call site can
 * forget to. And a line the JSON-RPC schema refuses is logged as one short line naming what was
 * wrong, not the schema's pretty-printed issue dump.
 */

const ESC = "\u001b";
const LOG_LINE = /^\[agent-tools\] (debug|info|warn|error): /;

/** Every stderr line is a logger line: none starts mid-message, none holds a raw control character. */
function assertOneLinePerCall(stderr: string): void {
  for (const line of stderr.split("\n").filter(Boolean)) {
    assert.match(line, LOG_LINE, `a stderr line that is no logger line (forged or split): ${JSON.stringify(line)}`);
    // eslint-disable-next-line no-control-regex -- the point is that none is left
    assert.doesNotMatch(line, /[\u0000-\u001f\u007f-\u009f]/, `a raw control character in ${JSON.stringify(line)}`);
  }
}

const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-log-line-"));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("the logger writes one line per call", () => {
  it("a tool name with a newline and an escape sequence is logged escaped", async () => {
    const server = await connect(PLUGINS, { AGENT_TOOLS_LOG: "debug" });
    try {
      await server.client.callTool({ name: "agent_tools_notes_call", arguments: { toolName: `fail\n[agent-tools] error: FORGED ${ESC}[31mRED`, arguments: {} } });
      await until(() => server.stderr().includes("FORGED"), "the call's log line");
      const stderr = server.stderr();
      assertOneLinePerCall(stderr);
      assert.ok(stderr.includes(String.raw`notes/fail\n[agent-tools] error: FORGED \u001b[31mRED`), stderr);
    } finally {
      await server.close();
    }
  });

  it("a downstream server's stderr with escape sequences and carriage returns is logged escaped", async () => {
    const wrapper = path.join(dir, "loud-stderr.mjs");
    writeFileSync(wrapper, `process.stderr.write("starting \\u001b[31mred\\u001b[0m\\rOVERWRITE\\r\\n");\nawait import(${JSON.stringify(path.join(FIXTURES, "mcp", "stdio-server.mjs"))});\n`);
    const plugins = path.join(dir, "plugins");
    writePlugin(path.join(plugins, "agent-tools-plugin-loud"), { name: "loud", prefix: "loud", description: "A downstream that colours its stderr.", adapter: { kind: "mcp", command: process.execPath, args: [wrapper] } });
    const server = await connect(plugins, { AGENT_TOOLS_LOG: "debug" });
    try {
      await server.client.callTool({ name: "agent_tools_loud_discover", arguments: {} });
      await until(() => server.stderr().includes("OVERWRITE"), "the downstream's stderr line");
      const stderr = server.stderr();
      assertOneLinePerCall(stderr);
      assert.ok(stderr.includes(String.raw`[loud stderr] starting \u001b[31mred\u001b[0m\rOVERWRITE`), stderr);
    } finally {
      await server.close();
    }
  });
});

/** The built server over raw stdio: `lines` written as they are (a client the SDK would not let us be). */
async function rawStdio(lines: string[], done: (stderr: string) => boolean): Promise<string> {
  const child = spawn(process.execPath, [MCP_BIN], { env: baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_LOG: "debug" }), cwd: FIXTURES, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.resume();
  const closed = new Promise((resolve) => child.on("close", resolve));
  try {
    for (const line of lines) child.stdin.write(`${line}\n`);
    await until(() => done(stderr), "the log lines");
  } finally {
    child.stdin.end();
    await closed;
  }
  return stderr;
}

describe("a message the JSON-RPC schema refuses", () => {
  it("is logged as one short line naming the first problem, with the client's key text escaped", async () => {
    const lines = [
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: "not an object" }),
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", "x\n[agent-tools] error: FORGED-KEY": 1 }),
    ];
    const stderr = await rawStdio(lines, (text) => (text.match(/stdio: /g) ?? []).length >= 2);
    assertOneLinePerCall(stderr);
    const refused = stderr.split("\n").filter((line) => line.includes("stdio: "));
    assert.equal(refused.length, 2, stderr);
    for (const line of refused) assert.ok(line.length < 400, `a long line: ${line}`);
    assert.match(refused[0]!, /not a valid JSON-RPC message: params: .*expected object/i);
    assert.match(refused[1]!, /not a valid JSON-RPC message: .*Unrecognized key.*FORGED-KEY/);
  });
});
