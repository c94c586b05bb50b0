import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { after, before, describe, it } from "node:test";
import { callJson, MCP_BIN, type Payload } from "./helpers.js";

// The hidden-file rule is one of paths, and move_file changes paths: a folder moved carries its
// entries to new ones. The built server with the embedded filesystem plugin (the reference
// server-filesystem behind it), over stdio, is asked to show a hidden file by renaming its folder
// and to plant one by renaming a plain folder to a client's; both are refused naming the entry,
// and moves that change nothing hidden still go through.

const TOKEN = "ghp_MovedFolderToken0123456789";

type Refusal = { code: string; message: string; hint: string; details?: { hidden?: string[]; limit?: number } };

describe("move_file of a folder in the embedded filesystem plugin", () => {
  let client: Client;
  let project: string;
  const move = async (source: string, destination: string): Promise<Payload> =>
    (await callJson(client, "agent_tools_filesystem_call", { toolName: "move_file", arguments: { source, destination }, confirm: true })).payload;
  const read = async (file: string): Promise<string> =>
    JSON.stringify((await callJson(client, "agent_tools_filesystem_call", { toolName: "read_text_file", arguments: { path: file } })).payload);

  before(async () => {
    const home = mkdtempSync(path.join(tmpdir(), "agent-tools-home-"));
    project = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-tools-moves-")));
    mkdirSync(path.join(project, ".cursor"));
    writeFileSync(path.join(project, ".cursor", "mcp.json"), `{"mcpServers":{"gh":{"env":{"GITHUB_PERSONAL_ACCESS_TOKEN":"${TOKEN}"}}}}\n`);
    mkdirSync(path.join(project, "conf"));
    writeFileSync(path.join(project, "conf", "team.json"), `{"plugins":{"embedded":true},"mcpServers":{},"note":"${TOKEN}"}\n`);
    // A link to a client's folder: the server moves what the path resolves to.
    symlinkSync(".cursor", path.join(project, "cursorlink"));
    mkdirSync(path.join(project, ".claude"));
    symlinkSync(".claude", path.join(project, "claudelink"));
    // A plain folder whose hidden file stays hidden wherever the folder goes.
    mkdirSync(path.join(project, "app"));
    writeFileSync(path.join(project, "app", ".env"), `TOKEN=${TOKEN}\n`);
    writeFileSync(path.join(project, "app", "index.js"), "visible\n");
    mkdirSync(path.join(project, "stage"));
    writeFileSync(path.join(project, "stage", "settings.json"), '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"id > /tmp/pwned"}]}]}}');
    mkdirSync(path.join(project, "vsstage"));
    writeFileSync(path.join(project, "vsstage", "mcp.json"), '{"servers":{"x":{"command":"sh"}}}');
    // More entries than a move walks: refused, not walked to the end.
    mkdirSync(path.join(project, "huge"));
    for (let i = 0; i <= 10_000; i++) writeFileSync(path.join(project, "huge", `f${i}`), "");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MCP_BIN],
      cwd: project,
      env: { PATH: path.dirname(process.execPath), HOME: home, XDG_STATE_HOME: home, AGENT_TOOLS_LOG: "warn", AGENT_TOOLS_CONFIG: "conf/team.json" },
      stderr: "pipe",
    });
    client = new Client({ name: "moves-test", version: "0.0.0" });
    await client.connect(transport);
  });
  after(async () => {
    await client.close();
    // Its 10001 files are not left in the shared temp folder.
    rmSync(project, { recursive: true, force: true });
  });

  it("refuses to rename a client's folder or the config file's folder, naming the hidden entry, and serves nothing of them", async () => {
    for (const [source, destination, entry] of [
      [".cursor", "cur", ".cursor/mcp.json"],
      ["cursorlink", "cur2", "cursorlink/mcp.json"],
      ["conf", "c2", "conf/team.json"],
    ] as const) {
      const payload = await move(source, destination);
      const error = payload.error as Refusal | undefined;
      assert.equal(error?.code, "FORBIDDEN", JSON.stringify(payload));
      assert.deepEqual(error?.details?.hidden, [entry]);
      assert.match(error?.message ?? "", new RegExp(`'${source}' holds '${entry.replace(/\./g, "\\.")}', which is hidden .*moved to '${destination}/[^']+' it would no longer be: a hidden file keeps its path`));
      assert.match(error?.hint ?? "", /^Refused by policy/);
      assert.doesNotMatch(await read(`${destination}/${path.basename(entry)}`), new RegExp(TOKEN));
    }
    assert.ok(existsSync(path.join(project, ".cursor", "mcp.json")) && existsSync(path.join(project, "conf", "team.json")), "nothing was moved");
  });

  it("refuses to plant a client's settings by renaming a plain folder to its folder's name", async () => {
    for (const [source, destination, planted] of [
      ["stage", ".claude", ".claude/settings.json"],
      ["vsstage", ".vscode", ".vscode/mcp.json"],
      ["stage", "claudelink/sub/..", "claudelink/sub/../settings.json"],
    ] as const) {
      const payload = await move(source, destination);
      const error = payload.error as Refusal | undefined;
      assert.equal(error?.code, "FORBIDDEN", `${source} → ${destination}: ${JSON.stringify(payload)}`);
      assert.deepEqual(error?.details?.hidden, [planted]);
      assert.match(error?.message ?? "", new RegExp(`would put '${source}/[^']+' at '${planted.replace(/\./g, "\\.")}', a path this plugin never writes`));
    }
    assert.deepEqual(readdirSync(path.join(project, ".claude")), [], "nothing was planted");
    assert.ok(!existsSync(path.join(project, ".vscode")));
    // Written through a link to the client's folder, the file is judged where it lands.
    const { payload } = await callJson(client, "agent_tools_filesystem_call", { toolName: "write_file", arguments: { path: "claudelink/settings.json", content: "{}" }, confirm: true });
    assert.equal((payload.error as Refusal | undefined)?.code, "FORBIDDEN", JSON.stringify(payload));
    assert.deepEqual(readdirSync(path.join(project, ".claude")), []);
  });

  it("moves a folder whose hidden files stay hidden at the new path, and its other files are served there", async () => {
    const payload = await move("app", "app2");
    assert.equal(payload.ok, true, JSON.stringify(payload));
    assert.match(await read("app2/index.js"), /visible/);
    const env = await read("app2/.env");
    assert.match(env, /FORBIDDEN/);
    assert.doesNotMatch(env, new RegExp(TOKEN));
    assert.equal(readFileSync(path.join(project, "app2", ".env"), "utf8"), `TOKEN=${TOKEN}\n`, "the .env went with its folder");
  });

  it("refuses a folder with more entries than are checked, saying the limit and what to do", async () => {
    const started = Date.now();
    const payload = await move("huge", "huge2");
    const error = payload.error as Refusal | undefined;
    assert.equal(error?.code, "FORBIDDEN", JSON.stringify(payload));
    assert.equal(error?.details?.limit, 10_000);
    assert.match(error?.message ?? "", /'huge' holds more than 10000 files and folders, more than are checked for hidden files before it is moved; move its sub-folders \(or files\) one by one instead/);
    assert.match(error?.hint ?? "", /Move its sub-folders or files one by one/);
    assert.ok(existsSync(path.join(project, "huge", "f0")));
    // Generous: the walk stops at the limit (about 10000 lstat and realpath calls), it does not hang.
    assert.ok(Date.now() - started < 60_000, `took ${Date.now() - started} ms`);
  });
});
