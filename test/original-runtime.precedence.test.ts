import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { baseEnv, callJson, connect, type Connected, FIXTURES, runCli, writePlugin } from "./helpers.js";

/**
 * A user's own plugin, or `mcpServers` entry, with the prefix of a bundled plugin (`github`)
 * replaces the bundled one: the server uses the user's, help says so once, and `validate` exits 0
 * naming which won. The bundled plugins are loaded here (AGENT_TOOLS_NO_BUNDLED_PLUGINS off).
 */

let dir: string;
let pluginsDir: string;
let configFile: string;
const WITH_BUNDLED = { AGENT_TOOLS_NO_BUNDLED_PLUGINS: "0" };

before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-precedence-"));
  pluginsDir = path.join(dir, "plugins");
  writePlugin(
    path.join(pluginsDir, "agent-tools-plugin-my-github"),
    { name: "my-github", prefix: "github", description: "The user's own GitHub plugin (an original-runtime folder).", adapter: "./adapter.mjs", readonlyTools: ["whoami"] },
    {
      "adapter.mjs": `export default () => ({
  async listTools() { return { tools: [{ name: "whoami", description: "Who the plugin acts as.", inputSchema: { type: "object", properties: {} } }] }; },
  async call() { return { content: [{ type: "text", text: JSON.stringify({ login: "my-own-plugin" }) }] }; },
});\n`,
    },
  );
  configFile = path.join(dir, "agent-tools.config.json");
  writeFileSync(
    configFile,
    JSON.stringify({ mcpServers: { github: { command: process.execPath, args: [path.join(FIXTURES, "mcp", "stdio-server.mjs")], description: "The user's GitHub MCP server" } } }),
  );
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe("a user's plugin folder with a bundled prefix", () => {
  let conn: Connected;
  before(async () => {
    conn = await connect(pluginsDir, WITH_BUNDLED);
  });
  after(async () => {
    await conn?.close();
  });

  it("is the one the server uses", async () => {
    const { tools } = await conn.client.listTools();
    assert.equal(tools.filter((t) => t.name === "agent_tools_github_discover").length, 1);
    const { payload } = await callJson(conn.client, "agent_tools_github_call", { toolName: "whoami", arguments: {} });
    assert.deepEqual(payload.result, { login: "my-own-plugin" });
  });

  it("help says which won, once", async () => {
    const { payload } = await callJson(conn.client, "agent_tools_help", {});
    const notices = payload.notices as string[];
    assert.equal(notices.length, 1);
    assert.match(notices[0]!, /prefix 'github': your plugin 'my-github' \(.*agent-tools-plugin-my-github.*plugin\.json\) is used instead of the bundled plugin 'github'/);
    assert.equal(payload.problems, undefined, JSON.stringify(payload.problems));
    const github = (payload.plugins as { prefix: string; description: string }[]).filter((p) => p.prefix === "github");
    assert.equal(github.length, 1);
    assert.match(github[0]!.description, /user's own GitHub plugin/);
    const one = (await callJson(conn.client, "agent_tools_help", { plugin: "github" })).payload.plugin as { notice: string };
    assert.match(one.notice, /instead of the bundled plugin/);
    // The bundled gh-cli skill's link to the replaced plugin's skill is dropped, not left dangling.
    const ghcli = (await callJson(conn.client, "agent_tools_help", { plugin: "ghcli" })).payload.plugin as { skills: { name: string; related?: unknown }[] };
    const overview = ghcli.skills.find((s) => s.name === "repo-overview");
    assert.ok(overview);
    assert.equal(overview.related, undefined);
  });

  it("validate exits 0 and names the plugin that won", async () => {
    const run = await runCli(["validate"], baseEnv({ ...WITH_BUNDLED, AGENT_TOOLS_PLUGINS_DIR: pluginsDir }));
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const report = JSON.parse(run.stdout) as { ok: boolean; problems: string[]; notices: string[]; plugins: { prefix: string; name: string }[] };
    assert.equal(report.ok, true);
    assert.deepEqual(report.problems, []);
    assert.equal(report.notices.length, 1);
    assert.match(report.notices[0]!, /your plugin 'my-github'.*instead of the bundled plugin 'github'/);
    assert.deepEqual(report.plugins.filter((p) => p.prefix === "github").map((p) => p.name), ["my-github"]);
    assert.match(run.stderr, /note: prefix 'github'/);
  });
});

describe("a user's mcpServers entry with a bundled prefix", () => {
  it("replaces the bundled plugin at run time, with the notice in help", async () => {
    const conn = await connect(path.join(dir, "none"), { ...WITH_BUNDLED, AGENT_TOOLS_CONFIG: configFile });
    try {
      const { payload } = await callJson(conn.client, "agent_tools_github_call", { toolName: "echo", arguments: { text: "from my server" } });
      assert.equal(payload.ok, true, JSON.stringify(payload));
      const help = (await callJson(conn.client, "agent_tools_help", {})).payload;
      assert.deepEqual(help.notices, [`prefix 'github': the config entry 'github' (${configFile}) is used instead of the bundled plugin 'github'`]);
    } finally {
      await conn.close();
    }
  });

  it("validate --config exits 0 and says the config entry won", async () => {
    const run = await runCli(["validate", "--config", configFile], baseEnv(WITH_BUNDLED));
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const report = JSON.parse(run.stdout) as { notices: string[] };
    assert.match(report.notices.join("\n"), /the config entry 'github'.*instead of the bundled plugin 'github'/);
  });
});
