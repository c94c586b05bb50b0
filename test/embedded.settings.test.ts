import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { after, before, describe, it } from "node:test";
import { unsafeRoot } from "../src/adapters/filesystem/guard.js";
import { baseEnv, callJson, CLI_BIN, MCP_BIN, type RunResult } from "./helpers.js";

// The two variables that set up the embedded default (AGENT_TOOLS_FS_ROOT, AGENT_TOOLS_MEMORY_FILE)
// given values that cannot work: `agent-tools validate` fails naming the variable, what is wrong
// and the fix; the stdio server says the same at start and answers the plugin's calls with
// NOT_CONFIGURED naming the variable, never a failed start pointing at a config file that does
// not exist. Every path is under a temp folder: the processes may run as root.

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-tools-embedded-settings-")));
const home = path.join(scratch, "home");
const project = path.join(scratch, "project");
const aFile = path.join(scratch, "a-file");
const aFolder = path.join(scratch, "a-folder");
/** The session's runtime folder (XDG_RUNTIME_DIR) the processes are told of: its agents' sockets are never served. */
const runtimeDir = path.join(scratch, "runtime");
mkdirSync(runtimeDir);
mkdirSync(home);
mkdirSync(project);
mkdirSync(aFolder);
writeFileSync(aFile, "not a folder\n");
after(() => rmSync(scratch, { recursive: true, force: true }));

/** The embedded default with the bundled plugins, a home of its own and a good memory file unless `extra` says otherwise. */
function fleetEnv(extra: Record<string, string>): Record<string, string> {
  return baseEnv({
    AGENT_TOOLS_NO_BUNDLED_PLUGINS: "0",
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_STATE_HOME: path.join(home, ".state"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    AGENT_TOOLS_MEMORY_FILE: path.join(scratch, "memory.jsonl"),
    AGENT_TOOLS_FS_ROOT: project,
    XDG_RUNTIME_DIR: runtimeDir,
    ...extra,
  });
}

function validate(env: Record<string, string>): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_BIN, "validate"], { env, cwd: project, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

interface Report {
  ok: boolean;
  problems: string[];
  plugins: { prefix: string; configured: boolean; status?: string }[];
}

async function report(env: Record<string, string>): Promise<{ code: number | null; report: Report }> {
  const run = await validate(env);
  return { code: run.code, report: JSON.parse(run.stdout) as Report };
}

function pluginOf(found: Report, prefix: string): Report["plugins"][number] {
  const plugin = found.plugins.find((p) => p.prefix === prefix);
  assert.ok(plugin, `${prefix} in ${JSON.stringify(found.plugins)}`);
  return plugin;
}

async function startServer(env: Record<string, string>): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [MCP_BIN], env, cwd: project, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "embedded-settings-test", version: "0.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describe("agent-tools validate with a wrong AGENT_TOOLS_FS_ROOT", () => {
  const cases: [string, string, RegExp, RegExp][] = [
    ["a folder that does not exist", path.join(scratch, "no-such-folder"), /names \S+no-such-folder, which does not exist/, /set AGENT_TOOLS_FS_ROOT to an existing project folder, or unset it/],
    ["a file", aFile, /names \S+a-file, which is not a folder/, /set AGENT_TOOLS_FS_ROOT to an existing project folder/],
    ["a path through a file", path.join(aFile, "sub"), /which does not exist \(a part of the path is a file\)/, /set AGENT_TOOLS_FS_ROOT to an existing project folder/],
    ["a literal ~", "~/proj", /AGENT_TOOLS_FS_ROOT=~\/proj starts with ~, which only a shell expands/, new RegExp(`use an absolute path \\(AGENT_TOOLS_FS_ROOT=${home}/proj\\), or \\$HOME/`)],
    ["the root of the disk", "/", /AGENT_TOOLS_FS_ROOT=\/ is refused: \/ is the root of the disk/, /set AGENT_TOOLS_FS_ROOT to an existing project folder/],
    // Other users' and programs' sockets and temp files; a project folder made under it is served (`project` is one).
    ["the shared temp folder itself", realpathSync(tmpdir()), /is refused: \S+ is a shared temp folder \(\/tmp, \/var\/tmp, \/dev\/shm, TMPDIR\), where other users and programs keep their files/, /set AGENT_TOOLS_FS_ROOT to an existing project folder/],
    // The session's agents' sockets (ssh-agent, gpg-agent, D-Bus): served, they would be the sandbox's.
    ["the user's runtime folder (XDG_RUNTIME_DIR)", runtimeDir, /is refused: \S+\/runtime is a user's runtime folder \(\/run\/user\/<uid>, XDG_RUNTIME_DIR\), where the session's agents keep their sockets \(ssh-agent, gpg-agent, D-Bus\)/, /set AGENT_TOOLS_FS_ROOT to an existing project folder/],
  ];
  for (const [what, value, why, fix] of cases) {
    it(`fails on ${what}, naming the variable, what is wrong and the fix; the plugin is not configured`, async () => {
      const { code, report: found } = await report(fleetEnv({ AGENT_TOOLS_FS_ROOT: value }));
      assert.equal(code, 1, JSON.stringify(found));
      assert.equal(found.ok, false);
      const problem = found.problems.find((p) => p.startsWith(`AGENT_TOOLS_FS_ROOT=${value} `));
      assert.ok(problem, JSON.stringify(found.problems));
      assert.match(problem, why);
      assert.match(problem, /so the embedded filesystem plugin serves nothing/);
      assert.match(problem, fix);
      const fs = pluginOf(found, "filesystem");
      assert.equal(fs.configured, false);
      assert.match(fs.status ?? "", /^not configured: set AGENT_TOOLS_FS_ROOT \(a project folder; /);
      assert.match(fs.status ?? "", why);
      // Nothing else is blamed: the memory plugin is fine.
      assert.equal(pluginOf(found, "memory").configured, true);
    });
  }

  it("passes with a project folder, and with none set in a project folder (the working folder is served)", async () => {
    for (const env of [fleetEnv({}), (({ AGENT_TOOLS_FS_ROOT: _unset, ...rest }) => rest)(fleetEnv({}))]) {
      const { code, report: found } = await report(env);
      assert.equal(code, 0, JSON.stringify(found.problems));
      assert.equal(pluginOf(found, "filesystem").configured, true);
    }
  });
});

describe("the rule of folders never served (unsafeRoot), for the runtime folders of Linux's users", () => {
  it("refuses /run/user/<uid> and /run/user, not a folder beside them", () => {
    for (const folder of ["/run/user/1000", "/run/user/0", "/run/user"]) {
      assert.equal(unsafeRoot(folder, home), `${folder} is a user's runtime folder (/run/user/<uid>, XDG_RUNTIME_DIR), where the session's agents keep their sockets (ssh-agent, gpg-agent, D-Bus)`);
    }
    assert.equal(unsafeRoot(path.join(scratch, "run", "user", "1000"), home), undefined);
  });
});

describe("agent-tools validate with a wrong AGENT_TOOLS_MEMORY_FILE", () => {
  const cases: [string, string, RegExp][] = [
    ["a folder", aFolder, /names \S+a-folder, which is a folder, not a file/],
    ["a path through a file", path.join(aFile, "memory.jsonl"), /which cannot be created: \S+a-file is not a folder/],
    ["a literal ~", "~/memory.jsonl", /AGENT_TOOLS_MEMORY_FILE=~\/memory\.jsonl starts with ~, which only a shell expands/],
    // Root may "write" /proc (access says so), and Node 20's recursive mkdir there never returned: validate hung.
    ["a path under /proc", "/proc/agent-tools-none/memory.jsonl", /which cannot be created: it is under \/proc, the kernel's view of the system, where no file can be kept/],
    ["a path under /sys", "/sys/agent-tools-none/memory.jsonl", /which cannot be created: it is under \/sys, the kernel's view of the system, where no file can be kept/],
  ];
  for (const [what, value, why] of cases) {
    // A bound far above a run's few seconds: a hang fails the test instead of holding the suite.
    it(`fails on ${what}, naming the variable, what is wrong and the fix`, { timeout: 120_000 }, async () => {
      const { code, report: found } = await report(fleetEnv({ AGENT_TOOLS_MEMORY_FILE: value }));
      assert.equal(code, 1, JSON.stringify(found));
      const problem = found.problems.find((p) => p.startsWith(`AGENT_TOOLS_MEMORY_FILE=${value} `));
      assert.ok(problem, JSON.stringify(found.problems));
      assert.match(problem, why);
      assert.match(problem, /so the embedded memory plugin serves nothing; (set AGENT_TOOLS_MEMORY_FILE to a file path this process may write|use an absolute path)/);
      const memory = pluginOf(found, "memory");
      assert.equal(memory.configured, false);
      assert.match(memory.status ?? "", /^not configured: set AGENT_TOOLS_MEMORY_FILE \(a file the knowledge graph is kept in; /);
      assert.equal(pluginOf(found, "filesystem").configured, true);
    });
  }

  it("passes with a file whose folder does not exist yet (it is created), and creates no folder named ~", async () => {
    const file = path.join(scratch, "new-folder", "deeper", "memory.jsonl");
    const { code, report: found } = await report(fleetEnv({ AGENT_TOOLS_MEMORY_FILE: file }));
    assert.equal(code, 0, JSON.stringify(found.problems));
    assert.equal(pluginOf(found, "memory").configured, true);
    assert.ok(existsSync(path.dirname(file)));
    await report(fleetEnv({ AGENT_TOOLS_MEMORY_FILE: "~/memory.jsonl" }));
    assert.equal(existsSync(path.join(project, "~")), false, "a folder named ~ was made in the working folder");
  });
});

describe("the stdio server with a wrong AGENT_TOOLS_FS_ROOT and AGENT_TOOLS_MEMORY_FILE", () => {
  let server: { client: Client; stderr: () => string };
  const missing = path.join(scratch, "gone");
  before(async () => {
    server = await startServer(fleetEnv({ AGENT_TOOLS_FS_ROOT: missing, AGENT_TOOLS_MEMORY_FILE: aFolder }));
  });
  after(async () => server.client.close());

  it("says each problem once on stderr at start", () => {
    const warnings = server.stderr().split("\n").filter((line) => line.includes("warn:"));
    assert.equal(warnings.filter((line) => line.includes(`AGENT_TOOLS_FS_ROOT=${missing} names ${missing}, which does not exist`)).length, 1, server.stderr());
    assert.equal(warnings.filter((line) => line.includes(`AGENT_TOOLS_MEMORY_FILE=${aFolder} names ${aFolder}, which is a folder, not a file`)).length, 1, server.stderr());
  });

  it("answers the filesystem plugin's calls with NOT_CONFIGURED naming AGENT_TOOLS_FS_ROOT, not a failed start", async () => {
    const { payload } = await callJson(server.client, "agent_tools_filesystem_call", { toolName: "list_directory", arguments: { path: "." } });
    assert.equal(payload.error?.code, "NOT_CONFIGURED", JSON.stringify(payload));
    assert.match(payload.error?.message ?? "", new RegExp(`set AGENT_TOOLS_FS_ROOT \\(a project folder; AGENT_TOOLS_FS_ROOT=${missing} names ${missing}, which does not exist; set AGENT_TOOLS_FS_ROOT to an existing project folder`));
    assert.doesNotMatch(JSON.stringify(payload), /embedded default\)|mcpServers\./);
  });

  it("answers the memory plugin's calls with NOT_CONFIGURED naming AGENT_TOOLS_MEMORY_FILE, not EISDIR", async () => {
    const { payload } = await callJson(server.client, "agent_tools_memory_call", { toolName: "read_graph", arguments: {} });
    assert.equal(payload.error?.code, "NOT_CONFIGURED", JSON.stringify(payload));
    assert.match(payload.error?.message ?? "", /set AGENT_TOOLS_MEMORY_FILE \(a file the knowledge graph is kept in; .*which is a folder, not a file/);
    assert.doesNotMatch(JSON.stringify(payload), /EISDIR/);
  });

  it("lists both problems in agent_tools_help", async () => {
    const { payload } = await callJson(server.client, "agent_tools_help");
    const problems = (payload.problems as string[] | undefined) ?? [];
    assert.ok(problems.some((p) => p.startsWith(`AGENT_TOOLS_FS_ROOT=${missing} `)), JSON.stringify(problems));
    assert.ok(problems.some((p) => p.startsWith(`AGENT_TOOLS_MEMORY_FILE=${aFolder} `)), JSON.stringify(problems));
  });
});

describe("an embedded default server that fails to start", () => {
  let server: { client: Client; stderr: () => string };
  const root = path.join(scratch, "removed-after-start");
  before(async () => {
    mkdirSync(root);
    server = await startServer(fleetEnv({ AGENT_TOOLS_FS_ROOT: root }));
    // Good at start, gone by the first call: the filesystem server then exits while starting.
    rmSync(root, { recursive: true });
  });
  after(async () => server.client.close());

  it("names the variable that configures it in the hint, not a config entry in '(embedded default)'", async () => {
    const { payload } = await callJson(server.client, "agent_tools_filesystem_call", { toolName: "list_directory", arguments: { path: "." } });
    assert.equal(payload.ok, false, JSON.stringify(payload));
    const hint = payload.error?.hint ?? "";
    assert.match(hint, /the variable AGENT_TOOLS_FS_ROOT \(this server is an embedded default: no file holds its settings\)/, JSON.stringify(payload));
    // Named once, though the hint speaks of its args and its env.
    assert.equal(hint.split("AGENT_TOOLS_FS_ROOT").length, 2, hint);
    assert.doesNotMatch(hint, /embedded default\)`?$|\(embedded default\)|mcpServers\.filesystem/);
  });
});
