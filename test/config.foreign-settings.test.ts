import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { after, before, describe, it } from "node:test";
import { startHttpFixture, type HttpFixture } from "./fixtures/mcp/http-server.js";
import { STDIO_FIXTURE } from "./fixtures/mcp/support.js";
import { parseConfig } from "../src/config/config.js";
import { silentLogger } from "../src/log.js";
import { createRuntime } from "../src/runtime/runtime.js";
import { MCP_BIN, baseEnv, callJson, runCli } from "./helpers.js";

// Per-server settings of other clients that change what a server is or does, read from their files
// as they are: Gemini CLI's includeTools/excludeTools, Roo Code's disabledTools, and `transport`.
// Once they were ignored: excluded tools became callable and an SSE-only server was spoken to as
// Streamable HTTP. The built server and CLI, with the real fixture servers.

async function serve(file: string, env: Record<string, string>): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [MCP_BIN, "--config", file], env, cwd: path.dirname(file), stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
  const client = new Client({ name: "foreign-settings-test", version: "0.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

function writeConfig(doc: unknown): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "agent-tools-foreign-settings-")), "settings.json");
  writeFileSync(file, JSON.stringify(doc, null, 2));
  return file;
}

const names = (payload: Record<string, unknown>): string[] => ((payload.matches ?? []) as { name: string }[]).map((m) => m.name);

describe("a Gemini CLI settings.json: excludeTools, includeTools, disabledTools and transport sse", () => {
  let http: HttpFixture;
  let client: Client;
  let file: string;
  before(async () => {
    http = await startHttpFixture({ mode: "sse-only" });
    file = writeConfig({
      mcpServers: {
        local: { command: process.execPath, args: [STDIO_FIXTURE], excludeTools: ["crash"], disabledTools: ["hang"] },
        remote: { transport: "sse", url: http.url, includeTools: ["echo"] },
      },
    });
    ({ client } = await serve(file, baseEnv()));
  });
  after(async () => {
    await client.close();
    await http.close();
  });

  it("leaves the excluded tools out of discover, and keeps the others", async () => {
    const local = await callJson(client, "agent_tools_local_discover", {});
    assert.equal(local.isError, false, JSON.stringify(local.payload));
    assert.ok(names(local.payload).includes("echo"), JSON.stringify(local.payload));
    assert.ok(!names(local.payload).includes("crash"), "excludeTools");
    assert.ok(!names(local.payload).includes("hang"), "disabledTools is read as excludeTools");
    const remote = await callJson(client, "agent_tools_remote_discover", {});
    assert.deepEqual(names(remote.payload), ["echo"], "includeTools keeps only what it lists");
  });

  it("leaves them out of search", async () => {
    const found = await callJson(client, "agent_tools_search", { query: "Write to stderr and exit mid-call", limit: 50 });
    assert.equal(found.isError, false, JSON.stringify(found.payload));
    assert.doesNotMatch(JSON.stringify(found.payload.hits), /crash|Write to stderr/);
    // The same search finds a tool that is served (the index holds this server's tools).
    const served = await callJson(client, "agent_tools_search", { query: "The server's process id", limit: 50 });
    assert.match(JSON.stringify(served.payload.hits), /"pid"/, JSON.stringify(served.payload));
  });

  it("refuses a call to one, saying the config excludes it, and runs nothing", async () => {
    for (const [plugin, tool, why] of [
      ["local", "crash", /mcpServers\.local\.excludeTools lists 'crash'/],
      // Roo Code's disabledTools is read as excludeTools, and the refusal names the field the user wrote.
      ["local", "local_hang", /mcpServers\.local\.disabledTools lists 'hang'/],
      ["remote", "headers", /mcpServers\.remote\.includeTools does not list 'headers'/],
    ] as const) {
      const call = await callJson(client, `agent_tools_${plugin}_call`, { toolName: tool, arguments: {}, confirm: true });
      assert.equal(call.isError, true, JSON.stringify(call.payload));
      const error = call.payload.error as { code: string; message: string; hint: string };
      assert.equal(error.code, "FORBIDDEN");
      assert.match(error.message, /the config excludes it/);
      assert.match(error.message, why);
      assert.ok(error.message.includes(file), error.message);
      assert.match(error.hint, /do not retry it/);
    }
  });

  it("describe refuses an excluded tool as a call does (FORBIDDEN, naming the field), not as unknown", async () => {
    const config = parseConfig(file, { mcpServers: { local: { command: process.execPath, args: [STDIO_FIXTURE], excludeTools: ["crash"], disabledTools: ["hang"] } } }, undefined, baseEnv());
    const runtime = await createRuntime({ config, pluginDirs: [], env: { PATH: process.env.PATH ?? "", AGENT_TOOLS_SEMANTIC: "off" }, log: silentLogger, catalogCache: false });
    const session = runtime.createSession("describe-withheld");
    try {
      for (const [tool, why] of [
        ["crash", /mcpServers\.local\.excludeTools lists 'crash'/],
        ["hang", /mcpServers\.local\.disabledTools lists 'hang'/],
      ] as const) {
        const described = await runtime.describe(session, "local", tool);
        assert.equal(described.isError, true, JSON.stringify(described.payload));
        const error = (described.payload as { error: { code: string; message: string } }).error;
        assert.equal(error.code, "FORBIDDEN", JSON.stringify(error));
        assert.match(error.message, /the config excludes it/);
        assert.match(error.message, why);
      }
      // A served tool is still described, and a made-up one is still unknown.
      const echo = await runtime.describe(session, "local", "echo");
      assert.equal(echo.isError, false, JSON.stringify(echo.payload));
      const unknown = await runtime.describe(session, "local", "no_such_tool");
      assert.equal((unknown.payload as { error: { code: string } }).error.code, "UNKNOWN_TOOL");
    } finally {
      await runtime.close();
    }
  });

  it("speaks the old SSE transport to the server transport 'sse' names", async () => {
    const echo = await callJson(client, "agent_tools_remote_call", { toolName: "echo", arguments: { text: "over sse" } });
    assert.equal(echo.isError, false, JSON.stringify(echo.payload));
    assert.match(JSON.stringify(echo.payload.result), /over sse/);
    assert.equal(http.stats.streamablePosts, 0, "never tried as Streamable HTTP");
    assert.ok(http.stats.ssePosts > 0);
  });

  it("passes validate with no notice: nothing in it is ignored", async () => {
    const result = await runCli(["validate", "--config", file]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(JSON.parse(result.stdout).notices, undefined, result.stdout);
  });
});

describe("a catalog stored before excludeTools was added", () => {
  it("is filtered when restored, as a fresh listing is", async () => {
    const env = baseEnv({ AGENT_TOOLS_CATALOG_CACHE: "on", AGENT_TOOLS_CACHE_DIR: mkdtempSync(path.join(tmpdir(), "agent-tools-foreign-cache-")) });
    const entry = { command: process.execPath, args: [STDIO_FIXTURE] };
    const first = await serve(writeConfig({ mcpServers: { local: entry } }), env);
    const all = await callJson(first.client, "agent_tools_local_discover", {});
    assert.ok(names(all.payload).includes("crash"));
    await first.client.close();
    // Same server, same cache key: the stored list holds 'crash'.
    const second = await serve(writeConfig({ mcpServers: { local: { ...entry, excludeTools: ["crash"] } } }), env);
    try {
      const shown = await callJson(second.client, "agent_tools_local_discover", {});
      assert.ok(names(shown.payload).includes("echo"), JSON.stringify(shown.payload));
      assert.ok(!names(shown.payload).includes("crash"), JSON.stringify(shown.payload));
      const call = await callJson(second.client, "agent_tools_local_call", { toolName: "crash", confirm: true });
      assert.equal((call.payload.error as { code: string }).code, "FORBIDDEN");
    } finally {
      await second.client.close();
    }
  });
});

describe("validate on other clients' settings", () => {
  it("lists each setting still ignored as a notice, with its entries and its own reason", async () => {
    const file = writeConfig({
      mcpServers: {
        a: { command: process.execPath, args: [STDIO_FIXTURE], trust: true, timeout: 30 },
        b: { command: process.execPath, args: [STDIO_FIXTURE], alwaysAllow: ["echo"], timeout: 30000 },
      },
    });
    const result = await runCli(["validate", "--config", file]);
    assert.equal(result.code, 0, result.stderr);
    const notices = JSON.parse(result.stdout).notices as string[];
    const line = notices.find((n) => n.includes("ignored server settings")) ?? "";
    assert.match(line, /'trust' in mcpServers\.a \(Gemini CLI's switch that skips its confirmations[^)]*requireConfirm: false/);
    assert.match(line, /'timeout' in mcpServers\.a, mcpServers\.b \([^)]*set timeoutMs\)/);
    assert.match(line, /'alwaysAllow' in mcpServers\.b \(tools the client runs without asking/);
    assert.match(result.stderr, /agent-tools validate: note: .*ignored server settings/);
  });

  it("refuses a transport it does not know, one that contradicts type or the entry, and an empty includeTools", async () => {
    const file = writeConfig({
      mcpServers: {
        ws: { url: "http://127.0.0.1:1/mcp", transport: "websocket" },
        both: { url: "http://127.0.0.1:1/sse", transport: "sse", type: "http" },
        cmd: { command: "node", transport: "sse" },
        none: { command: "node", includeTools: [] },
        odd: { command: "node", disabledTools: "delete_all" },
      },
    });
    const result = await runCli(["validate", "--config", file]);
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stderr, /mcpServers\.ws: field 'transport' must be one of "stdio", "http", "streamable-http", .*"sse" \(got "websocket"\)/);
    assert.match(result.stderr, /mcpServers\.both: field 'transport' is "sse" but 'type' is "http"; keep one of the two/);
    assert.match(result.stderr, /mcpServers\.cmd: field 'transport' is 'sse' but the entry has a 'command'; use "stdio" or drop 'transport'/);
    assert.match(result.stderr, /mcpServers\.none: field 'includeTools' is empty, which would serve none of the server's tools/);
    assert.match(result.stderr, /mcpServers\.odd: field 'disabledTools' must be an array of tool names/);
  });
});

describe("Gemini CLI's httpUrl", () => {
  let http: HttpFixture;
  before(async () => {
    http = await startHttpFixture();
  });
  after(async () => {
    await http.close();
  });

  it("is read as a Streamable HTTP server's url: the call reaches the real fixture server over HTTP", async () => {
    const file = writeConfig({ mcpServers: { gem: { httpUrl: http.url, headers: { "X-Test": "1" }, timeout: 30000, trust: false, includeTools: ["echo"] } } });
    const validated = await runCli(["validate", "--config", file]);
    assert.equal(validated.code, 0, validated.stderr);
    assert.doesNotMatch(validated.stdout + validated.stderr, /httpUrl/, "not reported as an unknown or ignored setting");
    const { client } = await serve(file, baseEnv());
    try {
      const echo = await callJson(client, "agent_tools_gem_call", { toolName: "echo", arguments: { text: "over httpUrl" } });
      assert.equal(echo.isError, false, JSON.stringify(echo.payload));
      assert.match(JSON.stringify(echo.payload.result), /over httpUrl/);
      assert.ok(http.stats.streamablePosts > 0, "spoken to as Streamable HTTP");
      assert.equal(http.stats.ssePosts, 0);
    } finally {
      await client.close();
    }
  });

  it("refuses httpUrl written with url, with command, or with an SSE type, naming the field", async () => {
    const file = writeConfig({
      mcpServers: {
        both: { httpUrl: "http://127.0.0.1:1/mcp", url: "http://127.0.0.1:1/sse" },
        cmd: { httpUrl: "http://127.0.0.1:1/mcp", command: "node" },
        sse: { httpUrl: "http://127.0.0.1:1/mcp", type: "sse" },
        bad: { httpUrl: "127.0.0.1:1/mcp" },
      },
    });
    const result = await runCli(["validate", "--config", file]);
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stderr, /mcpServers\.both: field 'httpUrl' and 'url' are both set; keep one/);
    assert.match(result.stderr, /mcpServers\.cmd: field 'httpUrl' and 'command' are both set; keep one/);
    assert.match(result.stderr, /mcpServers\.sse: field 'httpUrl' names a Streamable HTTP server but 'type' is "sse"/);
    assert.match(result.stderr, /mcpServers\.bad: field 'httpUrl' must start with http:\/\/ or https:\/\//);
  });
});

describe("a misrouted call's details.next and the config's tool filter", () => {
  let client: Client;
  before(async () => {
    const file = writeConfig({ mcpServers: { local: { command: process.execPath, args: [STDIO_FIXTURE], excludeTools: ["crash"] } } });
    ({ client } = await serve(file, baseEnv()));
    // Listed, as a session that has looked at the plugin has it.
    await callJson(client, "agent_tools_local_discover", {});
  });
  after(async () => {
    await client.close();
  });

  for (const [facadeTool, args] of [
    ["agent_tools_local_run_skill", { skill: "crash" }],
    ["agent_tools_local_crash", {}],
    ["crash", {}],
  ] as const) {
    it(`${facadeTool} ${JSON.stringify(args)}: no next to an excluded tool, and the answer says the config excludes it`, async () => {
      const answer = await callJson(client, facadeTool, args);
      assert.equal(answer.isError, true, JSON.stringify(answer.payload));
      const error = answer.payload.error as { code: string; message: string; hint?: string; details?: Record<string, unknown> };
      assert.equal(error.details?.next, undefined, JSON.stringify(error));
      if (facadeTool !== "crash") {
        assert.match(error.message, /tool 'crash' of plugin 'local' is not served: the config excludes it \(mcpServers\.local\.excludeTools lists 'crash'/);
        assert.match(error.hint ?? "", /do not retry it/);
      }
    });
  }

  it("a served tool named the same ways still gets its next", async () => {
    const answer = await callJson(client, "agent_tools_local_run_skill", { skill: "echo", arguments: { text: "x" } });
    const error = answer.payload.error as { details?: { next?: { tool: string; arguments: Record<string, unknown> } } };
    assert.equal(error.details?.next?.tool, "agent_tools_local_call", JSON.stringify(answer.payload));
    assert.equal(error.details?.next?.arguments.toolName, "echo");
  });
});
