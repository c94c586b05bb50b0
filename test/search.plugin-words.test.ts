import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { callJson, connect, FIXTURES, type Connected } from "./helpers.js";

/**
 * A word the plugin's own text has ("issues" in "GitHub: repos, issues, pull requests, actions")
 * is in every one of its tools' search documents. Counted once per tool, its document frequency
 * was the whole catalog and the word weighed nearly nothing: "list open issues" ranked
 * list_dependabot_alerts first on the real GitHub catalog, and `next` named it. The plugin's text
 * now counts once. BM25F alone (semantic off), as search answers until the sentence model is in.
 */

const GITHUB_CATALOG = "/work/shared/data/catalogs/github-mcp-server.tools.json";
const SERVER = path.join(FIXTURES, "mcp", "file-tools-server.mjs");

interface Match {
  name: string;
}

/** The built server over stdio with one mcpServers entry `prefix` serving `tools` (file-tools-server), ranked by BM25F alone. */
async function serve(dir: string, prefix: string, description: string, tools: string): Promise<Connected> {
  const config = path.join(dir, "config.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { [prefix]: { command: process.execPath, args: [SERVER, tools], description } } }));
  return connect(path.join(dir, "no-plugins"), { AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_SEMANTIC: "off" });
}

async function firstOfDiscover(server: Connected, prefix: string, query: string): Promise<{ first: string; next: string }> {
  const { payload, isError } = await callJson(server.client, `agent_tools_${prefix}_discover`, { query });
  assert.equal(isError, false, JSON.stringify(payload));
  const matches = payload.matches as Match[];
  const next = payload.next as { arguments: { toolName: string } };
  return { first: matches[0]!.name, next: next.arguments.toolName };
}

async function firstOfSearch(server: Connected, prefix: string, query: string): Promise<string> {
  const { payload, isError } = await callJson(server.client, "agent_tools_search", { query, plugin: prefix, limit: 3 });
  assert.equal(isError, false, JSON.stringify(payload));
  return (payload.hits as Match[])[0]!.name;
}

describe("a word of the plugin's own text still tells its tools apart", () => {
  let dir: string;
  let server: Connected;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-plugin-words-"));
    // Every tool lists "open" among its enum values except the one the query asks for by name.
    const tool = (name: string, description: string, states: boolean) => ({
      name,
      description,
      inputSchema: { type: "object", properties: { repo: { type: "string" }, ...(states ? { state: { type: "string", enum: ["open", "closed"] } } : {}) }, required: ["repo"] },
    });
    const tools = path.join(dir, "tools.json");
    writeFileSync(
      tools,
      JSON.stringify([
        tool("list_issues", "List issues in a repository.", false),
        tool("list_alerts", "List security alerts in a repository.", true),
        tool("list_pulls", "List pull requests in a repository.", true),
        tool("get_issue", "Get one issue by its number.", false),
      ]),
    );
    server = await serve(dir, "tracker", "Tracker: issues, alerts, pull requests", tools);
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("_discover and search put the tool whose name has the plugin's word first, and next calls it", async () => {
    assert.deepEqual(await firstOfDiscover(server, "tracker", "list open issues"), { first: "list_issues", next: "list_issues" });
    assert.equal(await firstOfSearch(server, "tracker", "list open issues"), "list_issues");
  });
});

describe("the real GitHub MCP catalog (117 tools), described by the words its tools share", { skip: !existsSync(GITHUB_CATALOG) && `${GITHUB_CATALOG} is not on this machine` }, () => {
  let dir: string;
  let server: Connected;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-plugin-words-gh-"));
    // A copy: the fixture server writes a log beside its file.
    const tools = path.join(dir, "tools.json");
    copyFileSync(GITHUB_CATALOG, tools);
    server = await serve(dir, "gh", "GitHub: repos, issues, pull requests, actions", tools);
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("'list open issues' answers list_issues first, in _discover's matches and next and in search", async () => {
    assert.deepEqual(await firstOfDiscover(server, "gh", "list open issues"), { first: "list_issues", next: "list_issues" });
    assert.equal(await firstOfSearch(server, "gh", "list open issues"), "list_issues");
  });

  it("other requests that name the plugin's words find their tools first", async () => {
    for (const [query, tool] of [
      ["list pull requests", "list_pull_requests"],
      ["create an issue", "create_issue"],
      ["merge a pull request", "merge_pull_request"],
    ] as const)
      assert.equal((await firstOfDiscover(server, "gh", query)).first, tool, query);
  });
});
