import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, it } from "node:test";
import { STDIO_FIXTURE } from "./fixtures/mcp/support.js";
import { MCP_BIN, baseEnv, callJson } from "./helpers.js";

// The config file is read once, at start. A server added to it while the server runs is not
// loaded; a call that names it is told to restart, not that the name is wrong. The built server.

describe("a server added to the config file while the server runs", () => {
  it("is unknown until a restart, and the answer says so", async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "agent-tools-changed-")), "agent-tools.config.json");
    const one = { command: process.execPath, args: [STDIO_FIXTURE] };
    writeFileSync(file, JSON.stringify({ mcpServers: { one } }));
    const client = new Client({ name: "config-changed-test", version: "0.0.0" });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [MCP_BIN, "--config", file], env: baseEnv(), stderr: "pipe" }));
    try {
      const before = await callJson(client, "agent_tools_two_call", { toolName: "echo", arguments: { text: "x" } });
      assert.equal((before.payload.error as { code: string }).code, "UNKNOWN_FACADE_TOOL");
      assert.doesNotMatch(JSON.stringify(before.payload), /config changed/, "not in the file: no restart to suggest");

      writeFileSync(file, JSON.stringify({ mcpServers: { one, two: one } }));
      const facade = await callJson(client, "agent_tools_two_call", { toolName: "echo", arguments: { text: "x" } });
      const error = facade.payload.error as { code: string; message: string; hint: string };
      assert.equal(error.code, "UNKNOWN_FACADE_TOOL");
      assert.match(error.message, /the config changed since the server started; restart it \(or the client\) to load 'two'/);
      assert.match(error.hint, /tell the user to restart it \(or the client\), then call again/);

      const plugin = await callJson(client, "agent_tools_search", { query: "echo", plugin: "two" });
      const byPlugin = plugin.payload.error as { code: string; message: string } | undefined;
      assert.equal(byPlugin?.code, "UNKNOWN_PLUGIN", JSON.stringify(plugin.payload));
      assert.match(byPlugin.message, /restart it \(or the client\) to load 'two'/);

      const still = await callJson(client, "agent_tools_one_call", { toolName: "echo", arguments: { text: "still served" } });
      assert.equal(still.isError, false, JSON.stringify(still.payload));
    } finally {
      await client.close();
    }
  });
});
