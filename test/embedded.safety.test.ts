import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { after, before, describe, it } from "node:test";
import { callJson, MCP_BIN, type Payload } from "./helpers.js";

// The zero-config fleet as a client starts it: from a project folder holding a .env, and from `/`
// and from the home folder (where Claude Desktop and some terminals start servers). No path of
// the default fleet may read /etc/passwd or .env, through the typed facade or through
// agent_tools_exec, and a secret the host holds never comes back in a result.

const SECRET = "ghp_fixtureSecretValue1234567890";

function fleetEnv(home: string): Record<string, string> {
  return { PATH: path.dirname(process.execPath), HOME: home, XDG_STATE_HOME: home, AGENT_TOOLS_LOG: "warn", GITHUB_TOKEN_UNUSED_BY_ANY_PLUGIN: SECRET };
}

async function start(cwd: string, env: Record<string, string>): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [MCP_BIN], env, cwd, stderr: "pipe" });
  const client = new Client({ name: "safety-test", version: "0.0.0" });
  await client.connect(transport);
  return client;
}

async function exec(client: Client, command: string): Promise<{ stdout: string; exitCode: number }> {
  const { payload } = await callJson(client, "agent_tools_exec", { command });
  return payload as unknown as { stdout: string; exitCode: number };
}

/** Every way the default fleet could be asked for `file`, each answer as text. */
async function attempts(client: Client, file: string): Promise<string[]> {
  const answers: string[] = [];
  for (const tool of ["read_text_file", "read_file", "get_file_info"]) {
    const { payload } = await callJson(client, "agent_tools_filesystem_call", { toolName: tool, arguments: { path: file } });
    answers.push(JSON.stringify(payload));
  }
  const { payload } = await callJson(client, "agent_tools_filesystem_call", { toolName: "read_multiple_files", arguments: { paths: [file] } });
  answers.push(JSON.stringify(payload));
  answers.push((await exec(client, `filesystem call read_text_file '${JSON.stringify({ path: file })}'`)).stdout);
  answers.push((await exec(client, `cat ${file} 2>&1; cat /workdir/${path.basename(file)} 2>&1`)).stdout);
  return answers;
}

describe("the embedded default started in a project folder with a .env", () => {
  let client: Client;
  let project: string;
  before(async () => {
    const home = mkdtempSync(path.join(tmpdir(), "agent-tools-home-"));
    project = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-tools-project-")));
    writeFileSync(path.join(project, ".env"), "API_KEY=sk-test-123\n");
    writeFileSync(path.join(project, ".ENV.local"), "API_KEY=sk-test-456\n");
    mkdirSync(path.join(project, ".git"));
    writeFileSync(path.join(project, ".git", "config"), "[remote]\n url = https://user:pw@example.com\n");
    writeFileSync(path.join(project, "id_rsa"), "-----BEGIN KEY-----\n");
    writeFileSync(path.join(project, "readme.txt"), `hello; the host token is ${SECRET}\n`);
    client = await start(project, fleetEnv(home));
  });
  after(async () => client.close());

  it("serves the project folder and nothing above it", async () => {
    const { payload } = await callJson(client, "agent_tools_filesystem_call", { toolName: "list_allowed_directories" });
    assert.equal(payload.ok, true, JSON.stringify(payload));
    assert.match(JSON.stringify(payload.result), new RegExp(project.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
    for (const answer of await attempts(client, "/etc/passwd")) assert.doesNotMatch(answer, /root:x?:0:0/, answer);
  });

  it("never reads .env, .git/config or key files, whatever the spelling or the route", async () => {
    for (const file of [".env", "./.env", `${project}/.env`, ".ENV.local", ".git/config", "id_rsa", "sub/../.env"]) {
      for (const answer of await attempts(client, file)) {
        assert.doesNotMatch(answer, /sk-test-|user:pw|BEGIN KEY/, `${file}: ${answer}`);
      }
    }
  });

  it("says a hidden file was refused by policy (FORBIDDEN, a hint saying not to retry), not that the service failed", async () => {
    const { payload } = await callJson(client, "agent_tools_filesystem_call", { toolName: "read_text_file", arguments: { path: ".env" } });
    assert.equal(payload.ok, false, JSON.stringify(payload));
    const error = payload.error as { code: string; message: string; hint: string; details?: { hidden?: string[] } };
    assert.equal(error.code, "FORBIDDEN", JSON.stringify(payload));
    assert.match(error.message, /'\.env' is hidden: files that commonly hold credentials/);
    assert.match(error.hint, /^Refused by policy/);
    assert.doesNotMatch(error.hint, /service behind this plugin failed/);
    assert.deepEqual(error.details?.hidden, [".env"]);
    const many = await callJson(client, "agent_tools_filesystem_call", { toolName: "read_multiple_files", arguments: { paths: ["readme.txt", "id_rsa", ".git/config"] } });
    assert.equal(many.payload.error?.code, "FORBIDDEN", JSON.stringify(many.payload));
    assert.deepEqual((many.payload.error as { details?: { hidden?: string[] } }).details?.hidden, ["id_rsa", ".git/config"]);
  });

  it("leaves hidden files out of listings, trees and searches", async () => {
    for (const [tool, args] of [
      ["list_directory", { path: "." }],
      ["list_directory_with_sizes", { path: "." }],
      ["directory_tree", { path: "." }],
      ["search_files", { path: ".", pattern: "**/*" }],
    ] as const) {
      const { payload } = await callJson(client, "agent_tools_filesystem_call", { toolName: tool, arguments: args });
      assert.equal(payload.ok, true, JSON.stringify(payload));
      const text = JSON.stringify(payload.result);
      assert.match(text, /readme\.txt/, tool);
      assert.doesNotMatch(text, /\.env|\.git|id_rsa|\.ENV/, `${tool}: ${text}`);
    }
  });

  it("scrubs a secret the host holds from a plugin's result", async () => {
    const { payload } = await callJson(client, "agent_tools_filesystem_call", { toolName: "read_text_file", arguments: { path: "readme.txt" } });
    assert.equal(payload.ok, true, JSON.stringify(payload));
    const text = JSON.stringify(payload.result);
    assert.match(text, /hello; the host token is \[redacted\]/);
    assert.ok(!text.includes(SECRET));
    const viaExec = await exec(client, "filesystem call read_text_file '{\"path\":\"readme.txt\"}'");
    assert.ok(!viaExec.stdout.includes(SECRET), viaExec.stdout);
  });
});

describe("the embedded default started in a project folder holding MCP client configs", () => {
  // The README tells users to put a .mcp.json at the project root; the filesystem plugin serves
  // that folder, and client configs carry literal tokens in their server entries.
  const TOKEN = "ghp_R3alClientConfigToken0123456789";
  const configs = [".mcp.json", ".cursor/mcp.json", ".vscode/mcp.json", ".codex/config.toml", ".claude/settings.local.json", ".gemini/settings.json", "claude_desktop_config.json", ".claude.json"];
  let client: Client;
  before(async () => {
    const home = mkdtempSync(path.join(tmpdir(), "agent-tools-home-"));
    const project = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-tools-project-")));
    for (const file of configs) {
      mkdirSync(path.join(project, path.dirname(file)), { recursive: true });
      writeFileSync(path.join(project, file), `{"mcpServers":{"github":{"command":"x","env":{"GITHUB_PERSONAL_ACCESS_TOKEN":"${TOKEN}"}}}}\n`);
    }
    // Files of the same folders that are not client configs are still served.
    writeFileSync(path.join(project, ".vscode", "settings.json"), '{"editor.tabSize": 2}\n');
    writeFileSync(path.join(project, "mcp.json"), '{"note":"a project file of that name"}\n');
    client = await start(project, fleetEnv(home));
  });
  after(async () => client.close());

  it("never reads them, by any route, and refuses them by policy", async () => {
    for (const file of configs) {
      for (const answer of await attempts(client, file)) assert.doesNotMatch(answer, /ghp_R3al/, `${file}: ${answer}`);
      const { payload } = await callJson(client, "agent_tools_filesystem_call", { toolName: "read_text_file", arguments: { path: file } });
      assert.equal(payload.error?.code, "FORBIDDEN", `${file}: ${JSON.stringify(payload)}`);
      assert.deepEqual((payload.error as { details?: { hidden?: string[] } }).details?.hidden, [file]);
    }
    const piped = await exec(client, "filesystem call read_text_file --path .vscode/mcp.json | jq -r .result.content | grep -o 'ghp_[A-Za-z0-9]*'");
    assert.equal(piped.stdout, "");
    const kept = await callJson(client, "agent_tools_filesystem_call", { toolName: "read_text_file", arguments: { path: ".vscode/settings.json" } });
    assert.match(JSON.stringify(kept.payload.result), /tabSize/);
  });

  it("leaves them out of listings, trees and searches, and keeps the other files of their folders", async () => {
    for (const [tool, args] of [
      ["list_directory", { path: "." }],
      ["list_directory", { path: ".vscode" }],
      ["list_directory_with_sizes", { path: ".cursor" }],
      ["directory_tree", { path: "." }],
      ["directory_tree", { path: ".vscode" }],
      ["search_files", { path: ".", pattern: "**/*.json" }],
      ["search_files", { path: ".codex", pattern: "*" }],
    ] as const) {
      const { payload } = await callJson(client, "agent_tools_filesystem_call", { toolName: tool, arguments: args });
      assert.equal(payload.ok, true, JSON.stringify(payload));
      const text = JSON.stringify(payload.result);
      assert.doesNotMatch(text, /\.mcp\.json|\.claude\.json|claude_desktop|config\.toml|settings\.local|\.gemini[^"]*settings/, `${tool} ${args.path}: ${text}`);
      if (tool === "search_files" && args.path === ".") assert.match(text, /\.vscode\/settings\.json/, text);
      if (tool === "list_directory" || tool === "directory_tree") {
        if (args.path === ".vscode") {
          assert.match(text, /settings\.json/, text);
          assert.doesNotMatch(text, /mcp\.json/, text);
        } else assert.match(text, /(?<!\.)mcp\.json/, `a project's own mcp.json is served: ${text}`);
      }
    }
  });
});

describe("the embedded default started in a client's own folder (~/.cursor)", () => {
  const TOKEN = "ghp_CursorRootConfigToken0123456789";
  let client: Client;
  before(async () => {
    const home = mkdtempSync(path.join(tmpdir(), "agent-tools-home-"));
    const cursor = path.join(realpathSync(mkdtempSync(path.join(tmpdir(), "agent-tools-user-"))), ".cursor");
    mkdirSync(cursor);
    writeFileSync(path.join(cursor, "mcp.json"), `{"mcpServers":{"github":{"env":{"GITHUB_PERSONAL_ACCESS_TOKEN":"${TOKEN}"}}}}\n`);
    writeFileSync(path.join(cursor, "rules.md"), "visible\n");
    client = await start(cursor, fleetEnv(home));
  });
  after(async () => client.close());

  it("refuses its mcp.json by every spelling and leaves it out of listings, keeping the folder's other files", async () => {
    for (const file of ["mcp.json", "./mcp.json", "x/../mcp.json"]) {
      for (const answer of await attempts(client, file)) assert.doesNotMatch(answer, /CursorRoot/, `${file}: ${answer}`);
      const { payload } = await callJson(client, "agent_tools_filesystem_call", { toolName: "read_text_file", arguments: { path: file } });
      assert.equal(payload.error?.code, "FORBIDDEN", `${file}: ${JSON.stringify(payload)}`);
    }
    for (const [tool, args] of [
      ["list_directory", { path: "." }],
      ["list_directory", { path: "./." }],
      ["directory_tree", { path: "." }],
      ["search_files", { path: ".", pattern: "*" }],
    ] as const) {
      const { payload } = await callJson(client, "agent_tools_filesystem_call", { toolName: tool, arguments: args });
      assert.equal(payload.ok, true, JSON.stringify(payload));
      const text = JSON.stringify(payload.result);
      assert.doesNotMatch(text, /mcp\.json/, `${tool} ${args.path}: ${text}`);
      if (tool !== "search_files") assert.match(text, /rules\.md/, `${tool} ${args.path}: ${text}`);
    }
  });
});

describe("the embedded default started in a folder below /etc (/etc/ssh)", () => {
  let client: Client;
  before(async () => {
    const home = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-tools-home-")));
    client = await start("/etc/ssh", fleetEnv(home));
  });
  after(async () => client.close());

  it("does not serve it: the whole /etc tree is refused as /proc's is, and nothing of it is read", async () => {
    const { payload } = await callJson(client, "agent_tools_filesystem_call", { toolName: "list_directory", arguments: { path: "." } });
    assert.equal((payload as Payload).error?.code, "NOT_CONFIGURED", JSON.stringify(payload));
    assert.match((payload as Payload).error?.message ?? "", /\/etc\/ssh is in a system folder whose whole tree is never served/);
    assert.doesNotMatch(JSON.stringify(payload), /ssh_config|sshd_config|moduli/);
  });
});

for (const where of ["/", "home"] as const) {
  describe(`the embedded default started from ${where === "/" ? "/" : "the home folder"}`, () => {
    let client: Client;
    before(async () => {
      const home = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-tools-home-")));
      writeFileSync(path.join(home, ".env"), "API_KEY=sk-test-789\n");
      client = await start(where === "/" ? "/" : home, fleetEnv(home));
    });
    after(async () => client.close());

    it("does not serve the folder: the filesystem plugin says what to set", async () => {
      const { payload: help } = await callJson(client, "agent_tools_help");
      const fs = (help.plugins as { prefix: string; status: string }[]).find((p) => p.prefix === "filesystem");
      assert.ok(fs);
      assert.match(fs.status, /not configured: set AGENT_TOOLS_FS_ROOT/);
      const { payload } = await callJson(client, "agent_tools_filesystem_call", { toolName: "read_text_file", arguments: { path: "/etc/passwd" } });
      assert.equal((payload as Payload).error?.code, "NOT_CONFIGURED");
      // The message says why (the folder it was started in, and that the disk and home are never served) and both fixes.
      const why = where === "/" ? /the working folder \/ is the root of the disk/ : /the working folder \S+ is the home folder/;
      const message = (payload as Payload).error?.message ?? "";
      for (const part of [why, /never serves the whole disk or the home folder/, /set AGENT_TOOLS_FS_ROOT=<project folder>/, /or start the client in the project folder/]) assert.match(message, part);
      // Help does not claim paths are inside the refused folder.
      const { payload: one } = await callJson(client, "agent_tools_help", { plugin: "filesystem" });
      const hint = (one.plugin as { hint?: string }).hint ?? "";
      assert.doesNotMatch(hint, /Paths are inside/, hint);
      assert.match(hint, /Not serving: set AGENT_TOOLS_FS_ROOT/);
      // The advice reads as one sentence: where the variable goes right after it, then the other way, then the restart.
      const next = (one.plugin as { next?: { configure?: string } }).next;
      assert.match(
        next?.configure ?? "",
        /^Set AGENT_TOOLS_FS_ROOT=<project folder> \(the working folder .+ never serves the whole disk or the home folder\) in the environment of the agent-tools server \(not in tool arguments\), or start the client in the project folder, then restart it; /,
        JSON.stringify(next),
      );
      for (const file of ["/etc/passwd", ".env"]) {
        for (const answer of await attempts(client, file)) assert.doesNotMatch(answer, /root:x?:0:0|sk-test-789/, answer);
      }
    });
  });
}

describe("the embedded default beside a config whose server entry keeps its secrets in an envFile", () => {
  // README advises an envFile for secrets kept out of the config; the filesystem plugin serves the
  // project folder it sits in. read_media_file answers any file as base64, which text masking missed.
  const UPSTREAM = "s3cr3tValue-98765xyz";
  let client: Client;
  before(async () => {
    const home = mkdtempSync(path.join(tmpdir(), "agent-tools-home-"));
    const project = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-tools-envfile-")));
    mkdirSync(path.join(project, "deploy"));
    writeFileSync(path.join(project, "deploy", "server.vars"), `UPSTREAM_AUTH=${UPSTREAM}\nDB_PASSWORD=pw-abcdef-1234\n`);
    const server = path.join(path.dirname(MCP_BIN), "..", "..", "test", "fixtures", "mcp", "stdio-server.mjs");
    writeFileSync(path.join(project, "agent-tools.config.json"), JSON.stringify({ mcpServers: { svc: { command: process.execPath, args: [server], envFile: "deploy/server.vars" } }, plugins: { embedded: true } }));
    // Project files that hold the secret by mistake: served, and masked whichever way they are read.
    writeFileSync(path.join(project, "notes.bin"), `copied from the vars: UPSTREAM_AUTH=${UPSTREAM}\n`);
    writeFileSync(path.join(project, "notes.png"), Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), Buffer.from(`tEXt${UPSTREAM}`)]));
    writeFileSync(path.join(project, "real.png"), Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489", "hex"));
    client = await start(project, { ...fleetEnv(home), AGENT_TOOLS_EXEC_MOUNT_CWD: "1" });
  });
  after(async () => client.close());

  it("hides the envFile from every tool of the plugin and from /workdir", async () => {
    for (const tool of ["read_text_file", "read_media_file", "read_file", "get_file_info"]) {
      const { payload } = await callJson(client, "agent_tools_filesystem_call", { toolName: tool, arguments: { path: "deploy/server.vars" } });
      assert.equal(payload.error?.code, "FORBIDDEN", `${tool}: ${JSON.stringify(payload)}`);
      assert.deepEqual((payload.error as { details?: { hidden?: string[] } }).details?.hidden, ["deploy/server.vars"]);
    }
    const viaMount = await exec(client, "cat /workdir/deploy/server.vars 2>&1; base64 /workdir/deploy/server.vars 2>&1");
    assert.equal(viaMount.stdout, "cat: /workdir/deploy/server.vars: No such file or directory\nbase64: /workdir/deploy/server.vars: No such file or directory\n");
    assert.equal((await exec(client, "ls /workdir/deploy")).stdout, "", "not listed either");
  });

  it("masks a secret in the bytes read_media_file answers as base64 (a blob, an image's data), and leaves other bytes as they were", async () => {
    const media = async (file: string) => {
      const { payload } = await callJson(client, "agent_tools_filesystem_call", { toolName: "read_media_file", arguments: { path: file } });
      assert.equal(payload.ok, true, JSON.stringify(payload));
      const [item] = (payload.result as { content: Array<{ data?: string; resource?: { blob: string } }> }).content;
      return Buffer.from(item?.data ?? item?.resource?.blob ?? "", "base64");
    };
    assert.equal((await media("notes.bin")).toString("latin1"), "copied from the vars: UPSTREAM_AUTH=[redacted]\n");
    assert.equal((await media("notes.png")).toString("latin1"), "\x89PNG\r\n\x1a\ntEXt[redacted]");
    assert.equal((await media("real.png")).toString("hex"), "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489", "an image with no secret passes unchanged");
  });
});
