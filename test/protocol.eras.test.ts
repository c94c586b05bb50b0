import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { silentLogger } from "../src/log.js";
import { createRuntime, type Runtime } from "../src/runtime/runtime.js";
import { createModernEntry, type ModernEntry } from "../src/transports/http/modern.js";
import { startV2Http, type V2Http } from "./fixtures/v2/downstream.js";
import { baseEnv, callJson, connect, FIXTURES, MCP_BIN, PLUGINS } from "./helpers.js";
import { httpForSuite, raw, rawInitialize, sessionHeaders, startHttp } from "./http-helpers.js";
import { callV2, connectHttpV2, connectStdioV2, MODERN, v2Client, V2_FIXTURE } from "./v2-helpers.js";
import { until } from "./wait.js";

/**
 * Both protocol eras on the facade and on the mcp adapter: a v2 client pinned to 2026-07-28 over
 * the in-process handler, stdio and HTTP; Claude Code's opening exchange replayed byte for byte
 * in shape; modern-only downstream servers reached through `_call`.
 */

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "claude-code", version: "2.1.332" },
  "io.modelcontextprotocol/clientCapabilities": { roots: {}, elicitation: { form: {}, url: {} } },
};

/** What a modern client must be able to do with the facade, whatever the transport. */
async function exerciseFacade(client: ReturnType<typeof v2Client>): Promise<void> {
  assert.equal(client.getProtocolEra(), "modern");
  const { tools } = await client.listTools();
  for (const name of ["agent_tools_help", "agent_tools_search", "agent_tools_notes_discover", "agent_tools_notes_call"]) assert.ok(tools.some((t) => t.name === name), name);
  const search = await callV2(client, "agent_tools_search", { query: "read a note" });
  assert.equal(search.isError, false, JSON.stringify(search.payload));
  const discover = await callV2(client, "agent_tools_notes_discover", { query: "get note" });
  assert.ok((discover.payload.matches as { name: string }[]).some((m) => m.name === "get_note"));
  const call = await callV2(client, "agent_tools_notes_call", { toolName: "get_note", arguments: { id: "n1" } });
  assert.equal(call.isError, false, JSON.stringify(call.payload));
  assert.equal((call.payload.result as { title: string }).title, "Shopping");
}

describe("modern era in-process (createMcpHandler's fetch, no socket)", () => {
  let runtime: Runtime;
  let entry: ModernEntry;
  const fetchIt = (url: string | URL, init?: RequestInit): Promise<Response> => entry.handler.fetch(new Request(url, init));
  before(async () => {
    runtime = await createRuntime({ pluginDirs: [path.join(PLUGINS, "agent-tools-plugin-notes")], log: silentLogger, env: {} });
    entry = createModernEntry(runtime);
  });
  after(async () => {
    await entry.close();
    await runtime.close();
  });

  it("a client pinned to 2026-07-28 lists the facade and runs search, discover and call", async () => {
    const client = await connectHttpV2(v2Client("pin"), "http://in-process.test/mcp", fetchIt);
    await exerciseFacade(client);
    await client.close();
  });

  it("tools/list carries a real ttlMs and every result the server identity", async () => {
    const response = await fetchIt("http://in-process.test/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": MODERN, "mcp-method": "tools/list" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: ENVELOPE } }),
    });
    assert.equal(response.status, 200);
    const body = (await response.json()) as { result: { ttlMs: number; cacheScope: string; tools: unknown[]; _meta: Record<string, { name: string }> } };
    assert.equal(body.result.ttlMs, 3_600_000);
    assert.equal(body.result.cacheScope, "public");
    assert.equal(body.result._meta["io.modelcontextprotocol/serverInfo"]?.name, "agent-tools-runtime");
  });

  it("a factory call costs microseconds: the runtime is not rebuilt per request", async () => {
    const client = await connectHttpV2(v2Client("pin"), "http://in-process.test/mcp", fetchIt);
    const before = runtime.plugins;
    for (let i = 0; i < 5; i++) await client.listTools(undefined, { cacheMode: "bypass" });
    assert.equal(runtime.plugins, before);
    await client.close();
  });
});

describe("Claude Code's opening exchange (server/discover first) gets a modern answer", () => {
  it("over stdio", async () => {
    const child = spawn(process.execPath, [MCP_BIN], { env: baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS }), cwd: FIXTURES, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const answer = (id: number): Promise<Record<string, unknown>> =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer to ${id}: ${out}`)), 15_000);
        const check = (): void => {
          for (const line of out.split("\n")) {
            if (!line.trim()) continue;
            const message = JSON.parse(line) as { id?: number };
            if (message.id === id) {
              clearTimeout(timer);
              child.stdout.off("data", check);
              resolve(message as Record<string, unknown>);
              return;
            }
          }
        };
        child.stdout.on("data", check);
        check();
      });
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "server/discover", params: { _meta: ENVELOPE } })}\n`);
    const discover = (await answer(0)) as { result?: { supportedVersions: string[]; capabilities: Record<string, unknown> }; error?: unknown };
    assert.equal(discover.error, undefined, JSON.stringify(discover));
    assert.ok(discover.result?.supportedVersions.includes(MODERN));
    assert.ok(discover.result?.capabilities.tools);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: ENVELOPE } })}\n`);
    const list = (await answer(1)) as { result: { tools: { name: string }[] } };
    assert.ok(list.result.tools.some((t) => t.name === "agent_tools_search"));
    child.stdin.end();
    await new Promise((resolve) => child.once("exit", resolve));
  });

  it("over HTTP: no session, no 400", async () => {
    const http = await startHttp();
    try {
      const response = await fetch(http.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": MODERN, "mcp-method": "server/discover" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "server/discover", params: { _meta: ENVELOPE } }),
      });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("mcp-session-id"), null);
      const body = (await response.json()) as { result: { supportedVersions: string[] } };
      assert.ok(body.result.supportedVersions.includes(MODERN));
    } finally {
      await http.stop();
    }
  });
});

describe("a v2 client pinned to 2026-07-28, end to end", () => {
  it("over stdio", async () => {
    const { client } = await connectStdioV2(v2Client("pin"));
    try {
      await exerciseFacade(client);
    } finally {
      await client.close();
    }
  });

  it("over stdio, a negotiating client lands in the modern era too", async () => {
    const { client } = await connectStdioV2(v2Client("auto"));
    try {
      assert.equal(client.getProtocolEra(), "modern");
    } finally {
      await client.close();
    }
  });

  describe("over HTTP, beside a legacy client", () => {
    const http = httpForSuite();

    it("the pinned client runs search, discover and call", async () => {
      const client = await connectHttpV2(v2Client("pin"), http.url);
      await exerciseFacade(client);
      await client.close();
      // The request log line is written when the response closes.
      await until(() => /tool=agent_tools_notes_call session=modern status=200 ok/.test(http.stderr()), "the call's request log line");
      assert.match(http.stderr(), /http POST \/mcp tools\/call tool=agent_tools_notes_call session=modern status=200 ok/);
    });

    it("a 2026-07-28 request carrying the Mcp-Session-Id of an open 2025 session is told to drop the header, with its id; the session still works", async () => {
      const sid = await rawInitialize(http.url);
      const envelope = { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientInfo": { name: "mixed", version: "0" }, "io.modelcontextprotocol/clientCapabilities": {} };
      const call = (id: number, meta?: Record<string, unknown>) =>
        JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "agent_tools_notes_call", arguments: { toolName: "get_note", arguments: { id: "n1" } }, ...(meta ? { _meta: meta } : {}) } });
      const modernHeaders = { ...sessionHeaders(sid), "Mcp-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "agent_tools_notes_call" };
      for (const [label, headers, body, id] of [
        ["modern header and envelope", modernHeaders, call(21, envelope), 21],
        ["modern header, no envelope", modernHeaders, call(22), 22],
        ["the session's version header, modern envelope", sessionHeaders(sid), call(23, envelope), 23],
      ] as const) {
        const answer = await raw(http.url, { headers, body });
        assert.equal(answer.status, 400, `${label}: ${answer.body}`);
        const json = answer.json();
        assert.equal(json.id, id, `${label}: the request's id`);
        assert.equal(json.error?.code, -32000, label);
        assert.match(json.error?.message ?? "", /2026-07-28 requests belong to no session: send it without the Mcp-Session-Id header/, label);
        assert.doesNotMatch(json.error?.message ?? "", /Unsupported protocol version/, label);
      }
      // Nothing of that touched the session: its own request is served.
      const own = await raw(http.url, { headers: sessionHeaders(sid), body: call(24) });
      assert.equal(own.status, 200, own.body);
      assert.match(own.body, /"id":24/);
      assert.doesNotMatch(own.body, /"error"/);
    });

    it("a 2025-era client still gets its session", async () => {
      const client = await connectHttpV2(v2Client("legacy"), http.url);
      assert.equal(client.getProtocolEra(), "legacy");
      const call = await callV2(client, "agent_tools_notes_call", { toolName: "get_note", arguments: { id: "n1" } });
      assert.equal(call.isError, false);
      await client.close();
    });
  });
});

describe("mcpServers entries pointing at modern-only v2 servers", () => {
  let v2http: V2Http;
  let dir: string;
  before(async () => {
    v2http = await startV2Http("reject");
    dir = mkdtempSync(path.join(tmpdir(), "agent-tools-eras-"));
    const tsx = import.meta.resolve("tsx");
    writeFileSync(
      path.join(dir, "agent-tools.config.json"),
      JSON.stringify({
        mcpServers: {
          modstdio: { command: process.execPath, args: ["--import", tsx, V2_FIXTURE, "reject"] },
          modhttp: { url: v2http.url },
          dead: { command: process.execPath, args: ["-e", "process.stderr.write('cannot start: missing licence file\\n'); process.exit(3)"] },
        },
      }),
    );
  });
  after(async () => {
    await v2http.close();
  });

  it("are listed and called through _call (stdio and HTTP); one that cannot connect shows failing in help", async () => {
    const { client } = await connectStdioV2(v2Client("pin"), { AGENT_TOOLS_NO_BUNDLED_PLUGINS: "0", AGENT_TOOLS_PLUGINS_DIR: "" }, dir);
    try {
      for (const prefix of ["modstdio", "modhttp"]) {
        const found = await callV2(client, `agent_tools_${prefix}_discover`, { query: "echo" });
        assert.equal(found.isError, false, `${prefix}: ${JSON.stringify(found.payload)}`);
        const echo = await callV2(client, `agent_tools_${prefix}_call`, { toolName: "echo", arguments: { text: `hello ${prefix}` } });
        assert.equal(echo.isError, false, `${prefix}: ${JSON.stringify(echo.payload)}`);
        assert.match(JSON.stringify(echo.payload.result), new RegExp(`hello ${prefix}`));
      }
      assert.ok(v2http.requests.protocolVersions.every((v) => v === MODERN || v === "-"), `the HTTP server only saw modern requests: ${v2http.requests.protocolVersions.join(",")}`);
      const dead = await callV2(client, "agent_tools_dead_discover", {});
      assert.equal(dead.isError, true);
      const again = await callV2(client, "agent_tools_dead_discover", {});
      assert.match(again.payload.error?.message ?? "", /not retried for \d+ s/, "no respawn on every call");
      const help = await callV2(client, "agent_tools_help");
      const plugins = help.payload.plugins as { prefix: string; status: string }[];
      assert.match(plugins.find((p) => p.prefix === "dead")?.status ?? "", /^failing: [\s\S]*missing licence file/);
      assert.equal(plugins.find((p) => p.prefix === "modhttp")?.status, "ready");
    } finally {
      await client.close();
    }
  });
});

// A legacy (v1 SDK) client keeps working over stdio against the v2 facade.
describe("the v1 SDK client (2025 era) over stdio", () => {
  it("lists and calls as before", async () => {
    const server = await connect();
    try {
      const call = await callJson(server.client, "agent_tools_notes_call", { toolName: "get_note", arguments: { id: "n1" } });
      assert.equal(call.isError, false);
    } finally {
      await server.close();
    }
  });
});
