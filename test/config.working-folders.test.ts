import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { baseEnv, callJson, FIXTURES, MCP_BIN, ROOT, writePlugin, type Payload } from "./helpers.js";
import { sendJson, startServer, type TestServer } from "./fixtures/rest/http-server.js";

/**
 * What a new user meets following the README, with the real built server over stdio started in a
 * project folder as a client starts it: where a config entry's and a cli block's program runs
 * (the user-level config's entries in the runtime's working folder, `cwd: "@runtime"` anywhere),
 * and a REST tool's derived path placeholder taking the integer id the service's own list gave.
 */

const STDIO_FIXTURE = path.join(FIXTURES, "mcp", "stdio-server.mjs");
const FS_SERVER = path.join(ROOT, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js");

let dir: string;
before(() => {
  dir = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-tools-folders-")));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** The built server started in `cwd` with `env` (HOME and the rest as a test's), its answers as JSON. */
async function serverIn(cwd: string, env: Record<string, string>): Promise<{ call: (tool: string, args: Record<string, unknown>) => Promise<Payload>; close: () => Promise<void> }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [MCP_BIN], env: baseEnv(env), cwd, stderr: "pipe" });
  const client = new Client({ name: "working-folders-test", version: "0" });
  await client.connect(transport);
  return { call: async (tool, args) => (await callJson(client, tool, args)).payload, close: () => client.close() };
}

describe("a config entry's working folder", () => {
  it("an entry of the user-level config file starts in the runtime's working folder; a project's file keeps its own folder", async () => {
    const home = path.join(dir, "home");
    const userConfig = path.join(home, ".config", "agent-tools-runtime", "config.json");
    mkdirSync(path.dirname(userConfig), { recursive: true });
    // The README's own example: server-filesystem serving ".".
    writeFileSync(userConfig, JSON.stringify({ mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, "."] }, where: { command: process.execPath, args: [STDIO_FIXTURE], readonlyTools: ["env"] } } }));
    const project = path.join(dir, "project");
    mkdirSync(project, { recursive: true });
    writeFileSync(path.join(project, "notes.txt"), "project file");
    const rt = await serverIn(project, { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), AGENT_TOOLS_PLUGINS_DIR: path.join(dir, "none") });
    try {
      const allowed = await rt.call("agent_tools_fs_call", { toolName: "list_allowed_directories", arguments: {} });
      assert.equal(allowed.ok, true, JSON.stringify(allowed));
      assert.match(JSON.stringify(allowed.result), new RegExp(project.replace(/[/\\]/g, "."), "u"), "serves the project the client started the runtime in");
      assert.doesNotMatch(JSON.stringify(allowed.result), /agent-tools-runtime/, "not the config file's folder");
      const read = await rt.call("agent_tools_fs_call", { toolName: "read_text_file", arguments: { path: path.join(project, "notes.txt") } });
      assert.match(JSON.stringify(read.result), /project file/);
      const where = await rt.call("agent_tools_where_call", { toolName: "env", arguments: { names: [] } });
      assert.equal(cwdOf(where), project, "a server of the user-level file starts in the runtime's working folder");
    } finally {
      await rt.close();
    }

    // The same entries in a project's agent-tools.config.json start in that file's folder, as before.
    const other = path.join(dir, "other-project");
    const configFolder = path.join(other, "config");
    mkdirSync(configFolder, { recursive: true });
    writeFileSync(path.join(configFolder, "agent-tools.config.json"), JSON.stringify({ mcpServers: { where: { command: process.execPath, args: [STDIO_FIXTURE], readonlyTools: ["env"] }, here: { command: process.execPath, args: [STDIO_FIXTURE], cwd: "@runtime", readonlyTools: ["env"] } } }));
    const named = await serverIn(other, { HOME: home, AGENT_TOOLS_CONFIG: path.join(configFolder, "agent-tools.config.json"), AGENT_TOOLS_PLUGINS_DIR: path.join(dir, "none") });
    try {
      assert.equal(cwdOf(await named.call("agent_tools_where_call", { toolName: "env", arguments: { names: [] } })), configFolder, "a project's file: its own folder");
      assert.equal(cwdOf(await named.call("agent_tools_here_call", { toolName: "env", arguments: { names: [] } })), other, 'cwd "@runtime": the runtime\'s working folder');
    } finally {
      await named.close();
    }
  });
});

/** The fixture's `env` tool answers its process's working folder. */
function cwdOf(payload: Payload): string | undefined {
  assert.equal(payload.ok, true, JSON.stringify(payload));
  const text = JSON.stringify(payload.result);
  return /"cwd\\?":\\?"([^"\\]+)/.exec(text)?.[1];
}

describe("a cli block's working folder", () => {
  it("runs in the plugin folder by default, and in the runtime's working folder with cwd \"@runtime\"", async () => {
    const plugins = path.join(dir, "cli-plugins");
    const pluginFolder = writePlugin(path.join(plugins, "agent-tools-plugin-here"), {
      name: "here",
      prefix: "here",
      adapter: {
        kind: "cli",
        program: "pwd",
        allowlist: ["pwd"],
        tools: [{ name: "plugin_folder", argv: [], readonly: true }],
      },
    });
    writePlugin(path.join(plugins, "agent-tools-plugin-there"), {
      name: "there",
      prefix: "there",
      adapter: { kind: "cli", program: "pwd", allowlist: ["pwd"], cwd: "@runtime", tools: [{ name: "runtime_folder", argv: [], readonly: true }] },
    });
    const project = path.join(dir, "cli-project");
    mkdirSync(project, { recursive: true });
    const rt = await serverIn(project, { AGENT_TOOLS_PLUGINS_DIR: plugins });
    try {
      const inPlugin = await rt.call("agent_tools_here_call", { toolName: "plugin_folder", arguments: {} });
      assert.equal(inPlugin.ok, true, JSON.stringify(inPlugin));
      assert.match(JSON.stringify(inPlugin.result), new RegExp(`${pluginFolder}\\\\n|${pluginFolder}"`));
      const inRuntime = await rt.call("agent_tools_there_call", { toolName: "runtime_folder", arguments: {} });
      assert.equal(inRuntime.ok, true, JSON.stringify(inRuntime));
      assert.match(JSON.stringify(inRuntime.result), new RegExp(`${project}\\\\n|${project}"`));
    } finally {
      await rt.close();
    }
  });
});

describe("a rest tool's derived path placeholder", () => {
  let service: TestServer;
  before(async () => {
    service = await startServer((req, res) => {
      if (req.url === "/api/notes") return sendJson(res, 200, [{ id: 1, title: "hello" }]);
      const id = /^\/api\/notes\/([^/]+)$/.exec(req.url)?.[1];
      return id === "1" ? sendJson(res, 200, { id: 1, title: "hello" }) : sendJson(res, 404, { message: `no note ${id}` });
    });
  });
  after(() => service.close());

  it("takes the integer id the service's list answered, and a string, each sent as its decimal text", async () => {
    const plugins = path.join(dir, "rest-plugins");
    writePlugin(path.join(plugins, "agent-tools-plugin-notes"), {
      name: "notes",
      prefix: "notes",
      adapter: { kind: "rest", baseUrl: `${service.url}/api`, tools: [{ name: "list_notes", path: "/notes" }, { name: "get_note", path: "/notes/{id}" }] },
    });
    const rt = await serverIn(dir, { AGENT_TOOLS_PLUGINS_DIR: plugins });
    try {
      const list = await rt.call("agent_tools_notes_call", { toolName: "list_notes", arguments: {} });
      const id = (list.result as { data?: { id: unknown }[] } | undefined)?.data?.[0]?.id;
      assert.equal(id, 1, "the service answers ids as numbers");
      for (const given of [id, "1"]) {
        const note = await rt.call("agent_tools_notes_call", { toolName: "get_note", arguments: { id: given } });
        assert.equal(note.ok, true, `${JSON.stringify(given)}: ${JSON.stringify(note)}`);
        assert.deepEqual((note.result as { data?: unknown }).data, { id: 1, title: "hello" });
      }
      assert.deepEqual(
        service.requests.map((r) => r.url),
        ["/api/notes", "/api/notes/1", "/api/notes/1"],
      );
      const fraction = await rt.call("agent_tools_notes_call", { toolName: "get_note", arguments: { id: 1.5 } });
      assert.equal((fraction.error as { code?: string } | undefined)?.code, "ARG_VALIDATION_FAILED", "a fraction is no id: refused before anything is sent");
      assert.equal(service.requests.length, 3);
    } finally {
      await rt.close();
    }
  });
});
