import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { after, before, describe, it } from "node:test";
import { callJson, FIXTURES, MCP_BIN } from "./helpers.js";

// A prober's session (findings item 4): with a notes server configured and the bundled plugins
// loaded, most of them not configured, "find my release checklist note" answered n8n's
// find-node-types first, above the notes server's search_notes; 4 of its 10 hits were of
// unconfigured plugins (n8n, github), whose calls can only answer NOT_CONFIGURED. An unconfigured
// plugin's match is now never a hit: one line in `setup` says what to set and what matched.

type Hit = { plugin: string; name: string; next?: { tool: string } };
const UNCONFIGURED = ["ccdd", "ghcli", "github", "kite", "n8n", "pocketbase", "tasks"];

/** The built server with the bundled plugins and a notes server from the config file, in an environment that configures none of the bundled ones but ollama. */
async function start(extraEnv: Record<string, string> = {}): Promise<Client> {
  const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-search-unconfigured-"));
  const config = path.join(dir, "agent-tools.config.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { notes: { command: process.execPath, args: [path.join(FIXTURES, "mcp", "notes-server.mjs")] } } }));
  // Not the test's own environment: a GITHUB_TOKEN there would configure the github plugin.
  const env = { PATH: path.dirname(process.execPath), HOME: dir, XDG_STATE_HOME: dir, XDG_CONFIG_HOME: dir, AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_CATALOG_CACHE: "off", AGENT_TOOLS_AUDIT: "off", ...extraEnv };
  const client = new Client({ name: "search-unconfigured-test", version: "0.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [MCP_BIN], env, cwd: dir, stderr: "pipe" }));
  return client;
}

describe("search with unconfigured bundled plugins beside a configured notes server (BM25F alone)", () => {
  let client: Client;
  // BM25F alone is what answers while the sentence model loads, and it put n8n first.
  before(async () => (client = await start({ AGENT_TOOLS_SEMANTIC: "off" })));
  after(async () => client.close());

  it("'find my release checklist note': the notes server's search_notes first, every hit configured, n8n in one setup line", async () => {
    const { payload, isError } = await callJson(client, "agent_tools_search", { query: "find my release checklist note" });
    assert.equal(isError, false, JSON.stringify(payload));
    const hits = payload.hits as Hit[];
    const order = hits.map((h) => `${h.plugin}/${h.name}`);
    assert.equal(order[0], "notes/search_notes", order.join(", "));
    assert.equal(hits.length, Math.min(10, Number(payload.total)), "the places unconfigured hits took go to configured ones");
    for (const hit of hits) assert.ok(!UNCONFIGURED.includes(hit.plugin), `no hit of an unconfigured plugin: ${order.join(", ")}`);
    assert.ok(hits.every((h) => h.next?.tool.startsWith(`agent_tools_${h.plugin}_`)), "every next names a configured plugin's tool");
    const setup = payload.setup as Record<string, string>;
    assert.match(setup.n8n ?? "", /^set N8N_MCP_URL or N8N_INSTANCE_URL to use: find-node-types\b/, JSON.stringify(setup));
    for (const [prefix, line] of Object.entries(setup)) {
      assert.ok(UNCONFIGURED.includes(prefix), `${prefix} is not configured`);
      assert.ok(line.split(": ")[1]!.split(", ").length <= 4, `at most three names and a count: ${line}`);
    }
    // The first search of a session names every unconfigured plugin.
    assert.deepEqual([...(payload.notConfigured as string[])].sort(), UNCONFIGURED.filter((p) => p !== "tasks").concat("tasks").sort());
  });

  it("'list github issues': GitHub's list_issues is named with what to set, never as a hit whose call fails", async () => {
    const { payload } = await callJson(client, "agent_tools_search", { query: "list github issues" });
    const hits = payload.hits as Hit[];
    assert.ok(!hits.some((h) => h.plugin === "github"), JSON.stringify(hits.map((h) => `${h.plugin}/${h.name}`)));
    assert.match((payload.setup as Record<string, string>).github ?? "", /^set GITHUB_TOKEN to use: (\S+, )*list_issues\b/, JSON.stringify(payload.setup));
    assert.ok((payload.notConfigured as string[]).includes("github"), "a setup line names it, so the list is said");
  });

  it("a query only unconfigured plugins match: no hits, their setup lines, and a note that says so (not 'try other words')", async () => {
    const { payload, isError } = await callJson(client, "agent_tools_search", { query: "n8n workflow executions" });
    assert.equal(isError, false, JSON.stringify(payload));
    assert.deepEqual(payload.hits, []);
    assert.equal(payload.total, 0);
    assert.match((payload.setup as Record<string, string>).n8n ?? "", /^set N8N_MCP_URL or N8N_INSTANCE_URL to use: [a-z-]+, [a-z-]+, [a-z-]+, \+\d+ more$/, JSON.stringify(payload.setup));
    assert.equal(payload.note, "no configured plugin's tool matches; the plugins under 'setup' have tools that do once configured: tell the user what to set");
  });

  it("a query only configured tools match has no setup line", async () => {
    const { payload } = await callJson(client, "agent_tools_search", { query: "delete a note by id", limit: 1 });
    assert.deepEqual((payload.hits as Hit[]).map((h) => `${h.plugin}/${h.name}`), ["notes/delete_note"]);
    assert.equal(payload.setup, undefined, JSON.stringify(payload.setup));
  });
});

describe("search with unconfigured bundled plugins, ranked with the sentence model", () => {
  let client: Client;
  before(async () => (client = await start({ AGENT_TOOLS_SEMANTIC_WAIT_MS: "forever", AGENT_TOOLS_SEMANTIC_MODEL_WAIT_MS: "forever" })));
  after(async () => client.close());

  it("'find my release checklist note': search_notes first and no unconfigured hit", async () => {
    const { payload } = await callJson(client, "agent_tools_search", { query: "find my release checklist note" });
    const order = (payload.hits as Hit[]).map((h) => `${h.plugin}/${h.name}`);
    assert.equal(order[0], "notes/search_notes", order.join(", "));
    assert.ok(!(payload.hits as Hit[]).some((h) => UNCONFIGURED.includes(h.plugin)), order.join(", "));
    assert.equal(payload.notice, undefined, "ranked with the model, not BM25F alone");
  });
});
