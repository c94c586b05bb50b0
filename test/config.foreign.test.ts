import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { after, before, describe, it } from "node:test";
import { startHttpFixture, type HttpFixture } from "./fixtures/mcp/http-server.js";
import { serverEntry } from "./fixtures/mcp/support.js";
import { MCP_BIN, baseEnv, callJson, runCli } from "./helpers.js";

// Config files users already have, pointed at with --config as they are: Claude Desktop's,
// Claude Code's .mcp.json, Cursor's .cursor/mcp.json and VS Code's .vscode/mcp.json. Each must
// load (foreign top-level settings ignored with one notice) and serve its servers.

async function serve(file: string, env: Record<string, string>): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [MCP_BIN, "--config", file], env, cwd: path.dirname(file), stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
  const client = new Client({ name: "foreign-config-test", version: "0.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

async function readHello(client: Client, prefix: string): Promise<void> {
  const read = await callJson(client, `agent_tools_${prefix}_call`, { toolName: "read_text_file", arguments: { path: "hello.txt" } });
  assert.equal(read.isError, false, JSON.stringify(read.payload));
  assert.match(JSON.stringify(read.payload.result), /hello from a foreign config/);
}

function project(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-foreign-"));
  writeFileSync(path.join(dir, "hello.txt"), "hello from a foreign config\n");
  return dir;
}

describe("a real Claude Desktop config (globalShortcut, preferences)", () => {
  let client: Client;
  let stderr: () => string;
  let file: string;
  before(async () => {
    const dir = project();
    file = path.join(dir, "claude_desktop_config.json");
    writeFileSync(
      file,
      JSON.stringify(
        {
          globalShortcut: "Alt+Space",
          preferences: { quickEntryShortcut: "off", menuBarEnabled: false },
          mcpServers: { files: { command: process.execPath, args: [serverEntry("filesystem"), dir] } },
        },
        null,
        2,
      ),
    );
    ({ client, stderr } = await serve(file, baseEnv()));
  });
  after(async () => client.close());

  it("loads, serves its server, and says once what it ignored", async () => {
    await readHello(client, "files");
    const notices = stderr().split("\n").filter((l) => /ignored/.test(l));
    assert.equal(notices.length, 1, stderr());
    assert.match(notices[0] as string, /globalShortcut, preferences/);
  });

  it("passes validate", async () => {
    const result = await runCli(["validate", "--config", file]);
    assert.equal(result.code, 0, result.stderr);
  });
});

describe("a VS Code .vscode/mcp.json (servers, inputs, ${workspaceFolder}) and a Claude Code .mcp.json (type http, ${VAR})", () => {
  let http: HttpFixture;
  let vscode: Client;
  let claudeCode: Client;
  let cursor: Client;
  let vscodeErr: () => string;
  before(async () => {
    http = await startHttpFixture();
    const dir = project();
    mkdirSync(path.join(dir, ".vscode"));
    const vscodeFile = path.join(dir, ".vscode", "mcp.json");
    writeFileSync(
      vscodeFile,
      `{
  // VS Code asks for inputs in its UI; agent-tools reads them from the environment
  "inputs": [{ "type": "promptString", "id": "team-name", "description": "Team", "password": false }],
  "servers": {
    "files": { "type": "stdio", "command": "${process.execPath}", "args": ["${serverEntry("filesystem")}", "\${workspaceFolder}"] },
    "remote": { "type": "http", "url": "${http.url}", "headers": { "X-Team": "\${input:team-name}" } },
  },
}`,
    );
    ({ client: vscode, stderr: vscodeErr } = await serve(vscodeFile, baseEnv({ TEAM_NAME: "blue-team" })));

    const mcpJson = path.join(dir, ".mcp.json");
    writeFileSync(
      mcpJson,
      JSON.stringify({
        mcpServers: {
          remote: { type: "http", url: "${FIXTURE_URL}", headers: { "X-Team": "${TEAM:-red-team}" } },
          files: { type: "stdio", command: process.execPath, args: [serverEntry("filesystem"), "${PROJECT_DIR}"], env: {} },
        },
      }),
    );
    ({ client: claudeCode } = await serve(mcpJson, baseEnv({ FIXTURE_URL: http.url, PROJECT_DIR: dir })));

    mkdirSync(path.join(dir, ".cursor"));
    writeFileSync(path.join(dir, ".cursor", "files.env"), "ROOT_DIR=unused\n");
    const cursorFile = path.join(dir, ".cursor", "mcp.json");
    writeFileSync(
      cursorFile,
      JSON.stringify({ mcpServers: { files: { command: process.execPath, args: [serverEntry("filesystem"), "${env:PROJECT_DIR}"], envFile: "${workspaceFolder}/.cursor/files.env", autoApprove: ["read_file"] } } }),
    );
    ({ client: cursor } = await serve(cursorFile, baseEnv({ PROJECT_DIR: dir })));
  });
  after(async () => {
    await Promise.all([vscode.close(), claudeCode.close(), cursor.close()]);
    await http.close();
  });

  it("VS Code: serves both servers, ${workspaceFolder} is the project, ${input:id} comes from $ID", async () => {
    await readHello(vscode, "files");
    const seen = await callJson(vscode, "agent_tools_remote_call", { toolName: "headers", confirm: true });
    assert.equal(seen.isError, false, JSON.stringify(seen.payload));
    assert.equal(http.stats.lastHeaders["x-team"], "blue-team");
    assert.doesNotMatch(JSON.stringify(seen.payload.result), /blue-team/, "header values are redacted in results");
    assert.match(vscodeErr(), /\$\{input:team-name\} from \$TEAM_NAME/);
  });

  it("Claude Code: type http and ${VAR} / ${VAR:-default} expansion", async () => {
    await readHello(claudeCode, "files");
    const echo = await callJson(claudeCode, "agent_tools_remote_call", { toolName: "headers", confirm: true });
    assert.equal(echo.isError, false, JSON.stringify(echo.payload));
    assert.equal(http.stats.lastHeaders["x-team"], "red-team");
  });

  it("Cursor: ${env:VAR}, envFile, and its autoApprove ignored", async () => {
    await readHello(cursor, "files");
  });
});

describe("a typo inside an mcpServers entry", () => {
  it("fails validate with every problem at once, each with line, column and a did-you-mean", async () => {
    const dir = project();
    const file = path.join(dir, "agent-tools.config.json");
    writeFileSync(
      file,
      `{
  "mcpServers": {
    "files": {
      "command": "npx",
      "arg": ["-y", "@modelcontextprotocol/server-filesystem", "."],
      "enviroment": { "DEBUG": "1" }
    },
    "other": { "command": "npx", "timeoutMs": "soon" }
  }
}`,
    );
    const result = await runCli(["validate", "--config", file]);
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stderr, /agent-tools\.config\.json:5:7: mcpServers\.files: 'arg' is not a setting of a server entry; did you mean 'args'\?/);
    assert.match(result.stderr, /agent-tools\.config\.json:6:7: mcpServers\.files: 'enviroment' is not a setting of a server entry; did you mean 'env'\?/);
    assert.match(result.stderr, /agent-tools\.config\.json:8:47: mcpServers\.other: field 'timeoutMs' must be integer/);
    const serving = await runCli(["mcp", "--config", file]);
    assert.equal(serving.code, 1, "the server refuses to start on the same file");
  });
});
