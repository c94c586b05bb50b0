import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { after, before, describe, it } from "node:test";
import { startHttpFixture, type HttpFixture } from "./fixtures/mcp/http-server.js";
import { serverEntry } from "./fixtures/mcp/support.js";
import { MCP_BIN, baseEnv, callJson } from "./helpers.js";

// mcpServers config entries and the embedded default, through the built server over stdio.

async function spawnServer(cwd: string, env: Record<string, string>): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [MCP_BIN], env, cwd, stderr: "pipe" });
  const client = new Client({ name: "config-test", version: "0.0.0" });
  await client.connect(transport);
  return client;
}

describe("a config with three mcpServers entries (two stdio, one HTTP)", () => {
  let http: HttpFixture;
  let client: Client;
  before(async () => {
    http = await startHttpFixture();
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-cfg-"));
    writeFileSync(path.join(dir, "hello.txt"), "hello from the config test\n");
    writeFileSync(
      path.join(dir, "agent-tools.config.json"),
      JSON.stringify({
        mcpServers: {
          files: { command: process.execPath, args: [serverEntry("filesystem"), dir] },
          memory: { command: process.execPath, args: [serverEntry("memory")], env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") } },
          remote: { url: http.url, readonlyTools: ["headers"] },
        },
      }),
    );
    client = await spawnServer(dir, baseEnv({ AGENT_TOOLS_NO_BUNDLED_PLUGINS: "0" }));
  });
  after(async () => {
    await client.close();
    await http.close();
  });

  it("gives three plugins whose tools are discoverable and callable", async () => {
    const { tools } = await client.listTools();
    for (const prefix of ["files", "memory", "remote"]) assert.ok(tools.some((t) => t.name === `agent_tools_${prefix}_call`), prefix);
    assert.ok(!tools.some((t) => t.name.includes("filesystem")), "with a config file, no embedded default");
    const found = await callJson(client, "agent_tools_files_discover", { query: "read file contents", limit: 10 });
    assert.ok((found.payload.matches as { name: string }[]).some((m) => m.name === "read_text_file"));
    const read = await callJson(client, "agent_tools_files_call", { toolName: "read_text_file", arguments: { path: "hello.txt" } });
    assert.equal(read.isError, false, JSON.stringify(read.payload));
    assert.match(JSON.stringify(read.payload.result), /hello from the config test/);
    const write = await callJson(client, "agent_tools_memory_call", { toolName: "create_entities", arguments: { entities: [{ name: "ci", entityType: "run", observations: ["green"] }] } });
    assert.equal(write.payload.error?.code, "CONFIRM_REQUIRED", "readOnlyHint false: writes need confirm");
    const confirmed = await callJson(client, "agent_tools_memory_call", { toolName: "create_entities", arguments: { entities: [{ name: "ci", entityType: "run", observations: ["green"] }] }, confirm: true });
    assert.equal(confirmed.isError, false, JSON.stringify(confirmed.payload));
    const echo = await callJson(client, "agent_tools_remote_call", { toolName: "echo", arguments: { text: "over http" } });
    assert.equal(echo.isError, false, JSON.stringify(echo.payload));
    assert.match(JSON.stringify(echo.payload.result), /over http/);
  });
});

describe("the embedded default (no config file)", () => {
  let client: Client;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "agent-tools-default-"));
    writeFileSync(path.join(dir, "notes.md"), "# default works\n");
    client = await spawnServer(dir, baseEnv({ AGENT_TOOLS_NO_BUNDLED_PLUGINS: "0", AGENT_TOOLS_MEMORY_FILE: path.join(dir, "memory.jsonl") }));
  });
  after(async () => {
    await client.close();
  });

  it("lists the filesystem and memory plugins and reads a file in the working directory", async () => {
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === "agent_tools_filesystem_call"));
    assert.ok(tools.some((t) => t.name === "agent_tools_memory_call"));
    const read = await callJson(client, "agent_tools_filesystem_call", { toolName: "read_text_file", arguments: { path: path.join(dir, "notes.md") } });
    assert.equal(read.isError, false, JSON.stringify(read.payload));
    assert.match(JSON.stringify(read.payload.result), /default works/);
    const write = await callJson(client, "agent_tools_filesystem_call", { toolName: "write_file", arguments: { path: path.join(dir, "x.txt"), content: "x" } });
    assert.equal(write.payload.error?.code, "CONFIRM_REQUIRED");
  });
});
