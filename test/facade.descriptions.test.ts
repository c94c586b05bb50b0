import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fleetConfig } from "./fleet-config.js";
import { callJson, connect, FIXTURES, type Connected } from "./helpers.js";
import { untilValue } from "./wait.js";

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

describe("server instructions of mcpServers entries with a cached catalog", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-instructions-"));
    // Thousands of tools: their catalog takes a while to read back and index, past the moment the
    // facade is made (a few tools' catalog is back before it, which would hide a late read).
    const verbs = ["open", "close", "paint", "count"];
    const tools = Array.from({ length: 3000 }, (_, i) => ({
      name: `${verbs[i % 4]}_widget_${i}`,
      description: `${verbs[i % 4]} a widget in the widget factory, batch ${i}`,
      inputSchema: { type: "object", properties: { widget: { type: "string" } } },
    }));
    writeFileSync(path.join(dir, "tools.json"), JSON.stringify(tools));
    writeFileSync(path.join(dir, "config.json"), JSON.stringify({ mcpServers: { widgets: { command: process.execPath, args: [path.join(FIXTURES, "mcp", "file-tools-server.mjs"), path.join(dir, "tools.json")] } } }));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("a start with the catalog cached says at initialize what the entry is about; the first start, before any listing, cannot", async () => {
    const env = { AGENT_TOOLS_CONFIG: path.join(dir, "config.json"), AGENT_TOOLS_CATALOG_CACHE: "on", AGENT_TOOLS_CACHE_DIR: path.join(dir, "cache") };
    const catalogs = path.join(dir, "cache", "catalogs");
    const first = await connect(path.join(dir, "no-plugins"), env);
    try {
      assert.match(first.client.getInstructions() ?? "", /- widgets: MCP server 'widgets' \(node over stdio\)/);
      await untilValue("the catalog stored", () => (existsSync(catalogs) && readdirSync(catalogs).some((n) => n.endsWith(".json")) ? true : undefined));
    } finally {
      await first.close();
    }
    const second = await connect(path.join(dir, "no-plugins"), env);
    try {
      const instructions = second.client.getInstructions() ?? "";
      assert.match(instructions, /- widgets: 3000 tools on widget/, instructions);
      assert.doesNotMatch(instructions, /MCP server 'widgets'/);
    } finally {
      await second.close();
    }
  });
});

describe("an mcpServers entry whose tools share no meaningful word", () => {
  let dir: string;
  let server: Connected;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-names-listed-"));
    // The stdio fixture's tools (echo, pid, env, crash, hang, sleep, add_tool) share only "answers",
    // of two descriptions ("Never answers", "Answers after ms milliseconds").
    const config = path.join(dir, "config.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { demo: { command: process.execPath, args: [path.join(FIXTURES, "mcp", "stdio-server.mjs")] } } }));
    server = await connect(path.join(dir, "no-plugins"), { AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_DESCRIBE_WAIT_MS: "60000" });
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("is described by a few of its tools' names, not by a word two descriptions happen to share", async () => {
    // The description is made once the tools are listed: a discover lists them.
    assert.equal((await callJson(server.client, "agent_tools_demo_discover", {})).payload.ok, true);
    const help = await callJson(server.client, "agent_tools_help");
    const description = (help.payload.plugins as { prefix: string; description: string }[]).find((p) => p.prefix === "demo")?.description ?? "";
    assert.equal(description, "7 tools: echo, pid, env, crash, …");
    const { tools } = await server.client.listTools();
    assert.match(tools.find((t) => t.name === "agent_tools_demo_discover")?.description ?? "", /7 tools: echo, pid, env, crash, …/);
  });
});
