import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ToolListChangedNotificationSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { after, before, describe, it } from "node:test";
import { STDIO_FIXTURE } from "./fixtures/mcp/support.js";
import { callJson, connect, textJson } from "./helpers.js";
import { eventually, httpClient, httpForSuite, INITIALIZE, MCP_HEADERS, raw, rawInitialize, type RunningHttp, sessionHeaders, startHttp } from "./http-helpers.js";

// The facade over Streamable HTTP: the same tools as stdio, sessions apart, JSON or SSE, the GET
// stream for notifications, DELETE.

describe("the HTTP facade", () => {
  const http = httpForSuite();

  it("serves the same tools as stdio, and a call gives the same answer", async () => {
    const stdio = await connect();
    const { client } = await httpClient(http.url);
    try {
      const overStdio = await stdio.client.listTools();
      const overHttp = await client.listTools();
      assert.deepEqual(overHttp.tools, overStdio.tools);
      assert.ok(overHttp.tools.length > 3);
      const args = { toolName: "get_note", arguments: { id: "n1" } };
      const a = await callJson(stdio.client, "agent_tools_notes_call", args);
      const b = await callJson(client, "agent_tools_notes_call", args);
      assert.equal(b.isError, false, JSON.stringify(b.payload));
      assert.deepEqual(b.payload, a.payload);
    } finally {
      await client.close();
      await stdio.close();
    }
  });

  it("keeps two concurrent sessions apart: one session's loop memory is not the other's", async () => {
    const first = await httpClient(http.url);
    const second = await httpClient(http.url);
    try {
      assert.notEqual(first.transport.sessionId, second.transport.sessionId);
      const failing = { toolName: "get_note", arguments: { wrong: true } };
      const codes: string[] = [];
      for (let i = 0; i < 3; i++) codes.push(String((await callJson(first.client, "agent_tools_notes_call", failing)).payload.error?.code));
      assert.equal(codes[2], "LOOP_DETECTED", `the third identical failure in one session is a loop: ${codes.join(",")}`);
      const other = await callJson(second.client, "agent_tools_notes_call", failing);
      assert.notEqual(other.payload.error?.code, "LOOP_DETECTED", "the other session has its own loop memory");
      assert.equal(other.payload.error?.code, codes[0]);
    } finally {
      await first.client.close();
      await second.client.close();
    }
  });

  it("answers JSON by default and SSE to a client that prefers text/event-stream", async () => {
    const json = await raw(http.url, { headers: MCP_HEADERS, body: INITIALIZE });
    assert.equal(json.status, 200);
    assert.match(String(json.headers["content-type"]), /application\/json/);
    assert.equal(json.json().result?.serverInfo !== undefined, true);

    const sse = await raw(http.url, { headers: { ...MCP_HEADERS, Accept: "text/event-stream, application/json" }, body: INITIALIZE });
    assert.equal(sse.status, 200);
    assert.match(String(sse.headers["content-type"]), /text\/event-stream/);
    const data = sse.body.split("\n").find((line) => line.startsWith("data: {"));
    assert.ok(data, sse.body);
    assert.equal((JSON.parse(data.slice(6)) as { id: number }).id, 1);
  });

  it("DELETE ends a session; its id then answers 404", async () => {
    const id = await rawInitialize(http.url);
    const headers = sessionHeaders(id);
    const listed = await raw(http.url, { headers, body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) });
    assert.equal(listed.status, 200);
    const deleted = await raw(http.url, { method: "DELETE", headers });
    assert.equal(deleted.status, 200);
    const after = await raw(http.url, { headers, body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }) });
    assert.equal(after.status, 404);
    assert.equal(after.json().error?.code, -32001);
  });

  it("logs one line per request with session, method, tool, status, outcome and duration", async () => {
    const { client } = await httpClient(http.url);
    await callJson(client, "agent_tools_notes_call", { toolName: "get_note", arguments: { id: "n1" } });
    await callJson(client, "agent_tools_notes_call", { toolName: "create_note", arguments: { title: "t", body: "b" } });
    await client.close();
    await eventually(() => /tool-error CONFIRM_REQUIRED/.test(http.stderr()), "the log line of the refused call");
    const lines = http.stderr().split("\n");
    assert.ok(lines.some((l) => /http POST \/mcp tools\/call tool=agent_tools_notes_call session=[0-9a-f]{8} status=200 ok \d+ms/.test(l)), http.stderr());
    assert.ok(lines.some((l) => /tool=agent_tools_notes_call .*status=200 tool-error CONFIRM_REQUIRED \d+ms/.test(l)), http.stderr());
    assert.ok(lines.some((l) => /http POST \/mcp initialize session=[0-9a-f]{8} status=200 ok/.test(l)));
  });
});

describe("server notifications over the GET stream", () => {
  let http: RunningHttp;
  before(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-http-"));
    const config = path.join(dir, "agent-tools.config.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [STDIO_FIXTURE] } } }));
    http = await startHttp({ AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_PLUGINS_DIR: dir });
  });
  after(async () => {
    await http.stop();
  });

  it("carries tools/list_changed to the client when a downstream catalog changes", async () => {
    const { client } = await httpClient(http.url);
    try {
      await client.listTools(); // as a client does first: list changes are for a list it has
      const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
      const added = (await client.callTool({ name: "agent_tools_fx_call", arguments: { toolName: "add_tool", arguments: { name: "fresh_tool" }, confirm: true } })) as CallToolResult;
      assert.equal(added.isError, false, JSON.stringify(textJson(added)));
      await changed;
      const found = await callJson(client, "agent_tools_fx_discover", { query: "fresh_tool" });
      assert.ok(JSON.stringify(found.payload).includes("fresh_tool"));
    } finally {
      await client.close();
    }
  });
});

describe("the text layer over HTTP", () => {
  const http = httpForSuite();

  const exec = async (client: Awaited<ReturnType<typeof httpClient>>["client"], command: string) =>
    textJson<{ exitCode: number; stdout: string }>(await client.callTool({ name: "agent_tools_exec", arguments: { command } }));

  it("gives each HTTP session its own sandbox filesystem, env and cwd", async () => {
    const a = await httpClient(http.url);
    const b = await httpClient(http.url);
    try {
      assert.equal((await exec(a.client, "mkdir -p /tmp/mine && cd /tmp/mine && echo from-a > note.txt && export WHO=a")).exitCode, 0);
      const inA = await exec(a.client, 'cat note.txt && echo "$WHO" && pwd');
      assert.equal(inA.stdout, "from-a\na\n/tmp/mine\n");
      const missing = await exec(b.client, "cat /tmp/mine/note.txt");
      assert.notEqual(missing.exitCode, 0, "session b cannot see session a's file");
      const inB = await exec(b.client, 'echo "who=$WHO" && pwd');
      assert.doesNotMatch(inB.stdout, /who=a|\/tmp\/mine/);
    } finally {
      await a.client.close();
      await b.client.close();
    }
  });
});
