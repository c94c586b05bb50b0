import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { describe, it } from "node:test";
import { baseEnv, callJson, FIXTURES, MCP_BIN, runCli, stdioForSuite } from "./helpers.js";

// Plugin code that prints to stdout (console.log/info/debug/dir/table, process.stdout.write) at
// import and during calls: over stdio, stdout carries only JSON-RPC, and a CLI command that
// answers JSON prints only that JSON; the plugin's lines reach stderr.

const LOUD = path.join(FIXTURES, "loud");
const env = baseEnv({ AGENT_TOOLS_PLUGINS_DIR: LOUD });
const POLLUTION = ["at adapter import", "at adapter import without a line end", "at import", "at run", "at call (info)", "at call (debug)", "at call (dir)", "at call (table)", "at call (write)"];

/** The built stdio server driven line by line: every stdout line is kept as sent. */
async function rawSession(requests: Record<string, unknown>[], answersWanted: number): Promise<{ lines: string[]; stderr: string }> {
  const child = spawn(process.execPath, [MCP_BIN], { env, cwd: FIXTURES, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const lines: string[] = [];
  const reader = createInterface({ input: child.stdout, crlfDelay: Infinity });
  const answered = new Promise<void>((resolve) => {
    let answers = 0;
    reader.on("line", (line) => {
      lines.push(line);
      if (line.includes('"id"') && ++answers === answersWanted) resolve();
    });
  });
  for (const request of requests) child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...request })}\n`);
  const deadline = setTimeout(() => child.kill(), 60_000);
  await answered;
  child.stdin.end();
  await new Promise((resolve) => child.once("close", resolve));
  clearTimeout(deadline);
  return { lines, stderr };
}

describe("plugin output on stdout", () => {
  it("over raw stdio every stdout line is a JSON-RPC message; the plugin's prints are on stderr", async () => {
    const { lines, stderr } = await rawSession(
      [
        { id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } },
        { method: "notifications/initialized" },
        { id: 2, method: "tools/list" },
        { id: 3, method: "tools/call", params: { name: "agent_tools_loud_run_skill", arguments: { skill: "shout", arguments: { text: "hi" } } } },
        { id: 4, method: "tools/call", params: { name: "agent_tools_loud_call", arguments: { toolName: "echo", arguments: { text: "yo" } } } },
      ],
      4,
    );
    assert.ok(lines.length >= 4, `four answers (got ${lines.length} lines)`);
    for (const line of lines) {
      let message: { jsonrpc?: unknown } | undefined;
      assert.doesNotThrow(() => (message = JSON.parse(line) as { jsonrpc?: unknown }), `stdout line is JSON: ${line}`);
      assert.equal(message?.jsonrpc, "2.0", `stdout line is JSON-RPC: ${line}`);
    }
    const skill = lines.map((line) => JSON.parse(line) as { id?: number; result?: { content: { text: string }[] } }).find((m) => m.id === 3);
    assert.deepEqual((JSON.parse(skill?.result?.content[0]?.text ?? "{}") as { result?: unknown }).result, { echoed: "hi" });
    for (const piece of POLLUTION) assert.ok(stderr.includes(piece), `'${piece}' reached stderr:\n${stderr}`);
  });

  describe("with the SDK client", () => {
    const server = stdioForSuite(LOUD);

    it("a skill and a tool that print still answer, and the prints are on the server's stderr", async () => {
      const skill = await callJson(server.client, "agent_tools_loud_run_skill", { skill: "shout", arguments: { text: "one" } });
      assert.equal(skill.isError, false, JSON.stringify(skill.payload));
      assert.deepEqual(skill.payload.result, { echoed: "one" });
      const tool = await callJson(server.client, "agent_tools_loud_call", { toolName: "echo", arguments: { text: "two" } });
      assert.equal(tool.isError, false, JSON.stringify(tool.payload));
      assert.match(server.stderr(), /I pollute stdout at run/);
      assert.match(server.stderr(), /I pollute stdout at call \(write\)/);
    });
  });

  for (const command of ["validate", "status"]) {
    it(`agent-tools ${command} prints only its JSON on stdout`, async () => {
      const run = await runCli([command], env);
      const answer = JSON.parse(run.stdout) as { ok?: boolean };
      assert.equal(typeof answer, "object", run.stdout);
      assert.match(run.stderr, /I pollute stdout at (adapter )?import/);
      // Written last at import with no line end: out by the command's exit at the latest.
      assert.match(run.stderr, /I pollute stdout at adapter import without a line end/);
    });
  }
});
