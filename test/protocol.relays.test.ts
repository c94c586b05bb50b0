import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as V1Stdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { baseEnv, MCP_BIN } from "./helpers.js";
import { startHttp, type RunningHttp } from "./http-helpers.js";
import { connectHttpV2, connectStdioV2, v2Client, V2_FIXTURE } from "./v2-helpers.js";

/**
 * Nothing dropped in between: a downstream v2 server's progress, log messages, elicitation and
 * sampling requests during a call reach the agent's client through the runtime (2025 era), and a
 * client that cannot answer gets a refusal that says why. Progress reaches modern clients too.
 */

const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-relay-"));
const pluginsDir = path.join(dir, "plugins");
mkdirSync(path.join(pluginsDir, "agent-tools-plugin-dn"), { recursive: true });
writeFileSync(
  path.join(pluginsDir, "agent-tools-plugin-dn", "plugin.json"),
  JSON.stringify({ name: "dn", prefix: "dn", description: "The v2 downstream fixture.", adapter: { kind: "mcp", command: process.execPath, args: ["--import", import.meta.resolve("tsx"), V2_FIXTURE, "serve"], timeoutMs: 30_000 } }),
);
const env = { AGENT_TOOLS_PLUGINS_DIR: pluginsDir };

type Progress = { progress: number; total?: number; message?: string };
const textOf = (result: unknown): string => JSON.stringify((result as CallToolResult).structuredContent ?? (result as CallToolResult).content);

describe("2025 era over stdio (v1 client declaring elicitation and sampling)", () => {
  let client: V1Client;
  const logs: string[] = [];
  const questions: string[] = [];
  before(async () => {
    client = new V1Client({ name: "relay-legacy", version: "0" }, { capabilities: { elicitation: {}, sampling: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      questions.push(request.params.message);
      return { action: "accept", content: { reply: "blue" } };
    });
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: "assistant", content: { type: "text", text: "a short summary" }, model: "test-model" }));
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logs.push(JSON.stringify(notification.params.data)));
    await client.connect(new V1Stdio({ command: process.execPath, args: [MCP_BIN], env: baseEnv(env), stderr: "pipe" }));
  });
  after(async () => {
    await client.close();
  });

  it("a downstream tool's 5 progress steps arrive on the client's progressToken", async () => {
    const seen: Progress[] = [];
    const result = await client.callTool({ name: "agent_tools_dn_call", arguments: { toolName: "slow_steps", arguments: { steps: 5 } } }, undefined, { onprogress: (p) => void seen.push(p) });
    assert.match(textOf(result), /done 5 steps/);
    assert.deepEqual(seen.map((p) => p.progress), [1, 2, 3, 4, 5]);
    assert.equal(seen[4]?.total, 5);
  });

  it("a downstream question reaches the user and the answer goes back", async () => {
    const result = await client.callTool({ name: "agent_tools_dn_call", arguments: { toolName: "ask_user", arguments: { question: "Favourite colour?" } } });
    assert.match(textOf(result), /the user said: blue/);
    assert.deepEqual(questions, ["Favourite colour?"]);
  });

  it("a downstream sampling request reaches the client's model", async () => {
    const result = await client.callTool({ name: "agent_tools_dn_call", arguments: { toolName: "summarize", arguments: { text: "a long text" } } });
    assert.match(textOf(result), /summary: a short summary/);
  });

  it("a downstream log message reaches the client", async () => {
    await client.setLoggingLevel("info");
    await client.callTool({ name: "agent_tools_dn_call", arguments: { toolName: "log_note", arguments: { note: "hello logs" } } });
    for (let i = 0; i < 50 && !logs.some((l) => l.includes("note: hello logs")); i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(logs.some((l) => l.includes("note: hello logs")), logs.join("\n"));
  });
});

describe("a client without the capability gets a clear refusal", () => {
  it("2025 era: no elicitation declared", async () => {
    const client = new V1Client({ name: "relay-bare", version: "0" });
    await client.connect(new V1Stdio({ command: process.execPath, args: [MCP_BIN], env: baseEnv(env), stderr: "pipe" }));
    try {
      const result = await client.callTool({ name: "agent_tools_dn_call", arguments: { toolName: "ask_user", arguments: { question: "?" } } });
      assert.match(textOf(result), /did not declare elicitation/);
    } finally {
      await client.close();
    }
  });
});

describe("2026-07-28 era", () => {
  let http: RunningHttp;
  before(async () => {
    http = await startHttp(env);
  });
  after(async () => {
    await http.stop();
  });

  it("progress reaches a pinned client over stdio and over HTTP; a downstream question is refused in words", async () => {
    const { client: stdio } = await connectStdioV2(v2Client("pin", { elicitation: { form: {} } }), env);
    const overHttp = await connectHttpV2(v2Client("pin", { elicitation: { form: {} } }), http.url);
    try {
      for (const client of [stdio, overHttp]) {
        const seen: number[] = [];
        const result = await client.callTool({ name: "agent_tools_dn_call", arguments: { toolName: "slow_steps", arguments: { steps: 5 } } }, { onprogress: (p) => void seen.push(p.progress) });
        assert.match(textOf(result), /done 5 steps/);
        assert.deepEqual(seen, [1, 2, 3, 4, 5]);
      }
      const asked = await stdio.callTool({ name: "agent_tools_dn_call", arguments: { toolName: "ask_user", arguments: { question: "?" } } });
      assert.match(textOf(asked), /cannot ask its user/);
    } finally {
      await stdio.close();
      await overHttp.close();
    }
  });
});
