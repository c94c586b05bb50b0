import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fleetConfig } from "./fleet-config.js";
import { callJson, connect, type Connected } from "./helpers.js";

/**
 * mcpServers entries without a description: once listed, each plugin says what it is about (its
 * serverInfo/instructions and the words its tools share), so the per-plugin _discover tools can be
 * told apart by a client's own tool search, and search answers name the server of each hit.
 */

describe("facade descriptions of mcpServers entries", () => {
  let dir: string;
  let server: Connected;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-descriptions-"));
    // Generous: under load three servers may take seconds to start; the default wait is 5 s.
    server = await connect(path.join(dir, "no-plugins"), { AGENT_TOOLS_CONFIG: fleetConfig(dir), AGENT_TOOLS_DESCRIBE_WAIT_MS: "60000" });
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("each _discover description says what its server is about", async () => {
    const { tools } = await server.client.listTools();
    const describe = (prefix: string) => tools.find((t) => t.name === `agent_tools_${prefix}_discover`)?.description ?? "";
    assert.match(describe("memory"), /knowledge, graph/, describe("memory"));
    assert.match(describe("files"), /file|director/, describe("files"));
    assert.match(describe("everything"), /Everything Reference Server/, "serverInfo.title is used");
    assert.doesNotMatch(describe("memory"), /director/);
    const search = tools.find((t) => t.name === "agent_tools_search")?.description ?? "";
    assert.match(search, /^Search for a tool/);
  });

  it("agent_tools_help and search answers say what each server is", async () => {
    const help = await callJson(server.client, "agent_tools_help");
    const plugins = help.payload.plugins as { prefix: string; description: string }[];
    assert.match(plugins.find((p) => p.prefix === "memory")?.description ?? "", /knowledge/);
    const found = await callJson(server.client, "agent_tools_search", { query: "add a person to the knowledge graph, then save the notes to a file" });
    const hits = found.payload.hits as { plugin: string; name: string }[];
    const servers = found.payload.servers as Record<string, string>;
    assert.ok(hits.some((h) => h.plugin === "memory") && hits.some((h) => h.plugin === "files"), `both servers among the hits: ${hits.map((h) => `${h.plugin}:${h.name}`).join(", ")}`);
    assert.deepEqual(Object.keys(servers).sort(), [...new Set(hits.map((h) => h.plugin))].sort(), "one line per server of the hits");
    assert.match(servers.memory ?? "", /knowledge/);
  });
});
