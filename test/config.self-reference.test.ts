import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { after, before, describe, it } from "node:test";
import { SAFE_BASE_ENV_VARS, buildChildEnv } from "../src/adapters/mcp/child-env.js";
import { childEnv } from "../src/adapters/cli/child-env.js";
import { createRedactor } from "../src/adapters/shared/redact.js";
import { INHERITED_LOOKUP_VARIABLES, runsThisRuntime } from "../src/config/self-reference.js";
import { DEPTH_REFUSAL_HINT } from "../src/adapters/shared/runtime-depth.js";
import type { McpServerEntry } from "../src/config/config.js";
import { STDIO_FIXTURE } from "./fixtures/mcp/support.js";
import { MCP_BIN, ROOT, baseEnv, callJson, runCli } from "./helpers.js";

// A client's file that registers agent-tools itself, read as this runtime's config: the entry is
// skipped with a notice (self-reference.ts), and a wrapper that hides the runtime is stopped by
// the depth guard (runtime-depth.ts). Both through the built server and real processes.

/** The processes below `root` (from /proc), with their command lines. */
function descendants(root: number): { pid: number; cmdline: string }[] {
  const parentOf = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The command name (field 2) may hold spaces: the parent pid follows its closing parenthesis.
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      parentOf.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const below = (pid: number): boolean => {
    for (let parent = parentOf.get(pid); parent !== undefined && parent > 1; parent = parentOf.get(parent)) if (parent === root) return true;
    return false;
  };
  const out: { pid: number; cmdline: string }[] = [];
  for (const pid of parentOf.keys()) {
    if (!below(pid)) continue;
    try {
      out.push({ pid, cmdline: readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ") });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

const runtimesBelow = (root: number): number => descendants(root).filter((p) => p.cmdline.includes(MCP_BIN)).length;

/** The settings every level of a nested runtime needs (the entry's env reaches each child). */
const QUIET_CHILD_ENV = { AGENT_TOOLS_NO_BUNDLED_PLUGINS: "1", AGENT_TOOLS_CATALOG_CACHE: "off", AGENT_TOOLS_AUDIT: "off", AGENT_TOOLS_WARM_UP: "off" };

async function startIn(dir: string, extra: Record<string, string> = {}): Promise<{ client: Client; pid: number; stderr: () => string }> {
  // HOME in the temporary folder: children get HOME, so nothing lands in the developer's caches.
  const transport = new StdioClientTransport({ command: process.execPath, args: [MCP_BIN], env: baseEnv({ HOME: dir, ...extra }), cwd: dir, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "self-reference-test", version: "0.0.0" });
  await client.connect(transport);
  return { client, pid: transport.pid as number, stderr: () => stderr };
}

describe("which entries start this runtime", () => {
  // Paths in an entry resolve against the config's folder: a project folder that links the package's dist/.
  let proj: string;
  let config: string;
  let home: string;
  let hostEnv: NodeJS.ProcessEnv;
  const stdio = (command: string, ...args: string[]): McpServerEntry => ({ command, args });
  let bins: string;
  let copy: string;
  let others: string;
  before(() => {
    proj = mkdtempSync(path.join(tmpdir(), "agent-tools-proj-"));
    config = path.join(proj, "agent-tools.config.json");
    writeFileSync(config, "{}");
    symlinkSync(path.join(ROOT, "dist"), path.join(proj, "dist"));
    home = mkdtempSync(path.join(tmpdir(), "agent-tools-home-"));
    hostEnv = { HOME: home, PATH: process.env.PATH };
    // A second install of this package (a copy: still a loop), with its bins on a PATH as npm
    // installs them: executable, linked from a bin folder.
    copy = mkdtempSync(path.join(tmpdir(), "agent-tools-copy-"));
    bins = mkdtempSync(path.join(tmpdir(), "agent-tools-bins-"));
    mkdirSync(path.join(copy, "dist", "bin"), { recursive: true });
    const names = ["agent-tools", "agent-tools-mcp", "agent-tools-mcp-http"];
    writeFileSync(path.join(copy, "package.json"), JSON.stringify({ name: "agent-tools-runtime", bin: Object.fromEntries(names.map((n) => [n, `./dist/bin/${n}.js`])) }));
    writeFileSync(path.join(copy, "dist", "index.js"), "");
    for (const name of names) {
      writeFileSync(path.join(copy, "dist", "bin", `${name}.js`), "#!/usr/bin/env node\n", { mode: 0o755 });
      symlinkSync(path.join(copy, "dist", "bin", `${name}.js`), path.join(bins, name));
    }
    // … and other people's programs with the same names.
    others = mkdtempSync(path.join(tmpdir(), "agent-tools-others-"));
    writeFileSync(path.join(others, "package.json"), JSON.stringify({ name: "my-server", bin: { "agent-tools": "./agent-tools.js" } }));
    for (const file of ["agent-tools.js", "agent-tools.mjs"]) writeFileSync(path.join(others, file), "");
    mkdirSync(path.join(others, "agent-tools-mcp"));
    writeFileSync(path.join(others, "agent-tools-mcp", "index.js"), "");
    mkdirSync(path.join(others, "bin"));
    writeFileSync(path.join(others, "bin", "agent-tools"), "#!/bin/sh\n");
    chmodSync(path.join(others, "bin", "agent-tools"), 0o755);
  });

  it("recognises this package's programs, directly or through node, npx, pnpm dlx, env and a shell", () => {
    const onPath = { PATH: `${bins}:/usr/bin:/bin` };
    for (const entry of [
      stdio("node", MCP_BIN),
      stdio(process.execPath, "--enable-source-maps", MCP_BIN),
      stdio("node", path.join(copy, "dist", "bin", "agent-tools-mcp.js")),
      { command: "agent-tools-mcp", env: onPath },
      { command: "agent-tools-mcp-http", args: ["--port", "0"], env: onPath },
      { command: "agent-tools", args: ["serve"], env: onPath },
      { command: path.join(bins, "agent-tools-mcp") },
      stdio("npx", "-y", "agent-tools-runtime"),
      stdio("npx", "-y", "agent-tools-runtime@0.1.0", "mcp"),
      stdio("npx", "--package=./agent-tools-runtime-0.1.0.tgz", "agent-tools-mcp"),
      stdio("npx", "-p", "agent-tools-runtime", "agent-tools-mcp"),
      stdio("npx", "-y", `--package=${copy}`, "agent-tools-mcp"),
      stdio("pnpm", "dlx", "agent-tools-runtime"),
      stdio("npm", "exec", "--", "agent-tools-runtime@latest"),
      stdio("env", "FOO=1", "node", "dist/bin/agent-tools.js"),
      stdio("node", "dist/bin/agent-tools-mcp"),
      stdio("sh", "-c", `exec node '${MCP_BIN}'`),
      // The same config named explicitly is still a loop.
      stdio("node", MCP_BIN, "--config", config),
      { command: "node", args: [MCP_BIN], env: { AGENT_TOOLS_CONFIG: "./agent-tools.config.json" } },
    ] as McpServerEntry[]) {
      assert.equal(runsThisRuntime(entry, config, hostEnv), true, JSON.stringify(entry));
    }
  });

  it("recognises runners whose options take a value, and skips only when the copy would read this same file", () => {
    for (const entry of [
      stdio("npx", "--prefix", proj, "agent-tools-runtime"),
      stdio("npx", "--registry", "https://registry.example", "-y", "agent-tools-runtime"),
      stdio("npm", "--prefix", proj, "exec", "--", "agent-tools-runtime"),
      stdio("pnpm", "-C", proj, "dlx", "agent-tools-runtime"),
      stdio("yarn", "--cwd", proj, "dlx", "-p", "agent-tools-runtime", "agent-tools-mcp"),
      stdio("yarn", "node", "dist/bin/agent-tools-mcp.js"),
      stdio("pnpm", "exec", "node", "dist/bin/agent-tools-mcp.js"),
      stdio("bunx", "--bun", "agent-tools-runtime"),
      stdio("node", MCP_BIN, "--config", "${PROJ_CONFIG}"),
      stdio("sh", "-c", `node ${MCP_BIN} --config ./agent-tools.config.json`),
    ] as McpServerEntry[]) {
      assert.equal(runsThisRuntime(entry, config, { ...hostEnv, PROJ_CONFIG: config }), true, JSON.stringify(entry));
    }
  });

  it("keeps what it cannot be sure of: option values, package.json scripts, unknown options, another folder or HOME", () => {
    for (const entry of [
      // Review 9, bug 3: an option's value is not the program; a script name is not a package.
      stdio("npm", "--prefix", ROOT, "run", "some-fixture"),
      stdio("pnpm", "-C", ROOT, "exec", "tsx", "test/fixtures/mcp/http-server.ts"),
      stdio("yarn", "--cwd", ROOT, "node", "test/fixtures/mcp/stdio-server.mjs"),
      stdio("npm", "run", "agent-tools-runtime"),
      stdio("pnpm", "run", "agent-tools-mcp"),
      stdio("pnpm", "agent-tools-runtime"),
      stdio("yarn", "agent-tools-runtime"),
      stdio("npx", "--some-new-option", "agent-tools-runtime"),
      stdio("npx", "-c", "agent-tools-mcp"),
      stdio("npm", "-w", "packages/a", "exec", "agent-tools-runtime"),
      stdio("env", "-i", "node", MCP_BIN),
      // Runs in another folder too, where no agent-tools.config.json is: that copy reads another file.
      stdio("pnpm", "-C", home, "dlx", "agent-tools-runtime"),
      // Review 9, bug 2: the copy's own lookup finds another file.
      { command: "node", args: [MCP_BIN], cwd: home },
      { command: "node", args: [MCP_BIN], env: { AGENT_TOOLS_CONFIG: "/tmp/sr/other.json" } },
      stdio("sh", "-c", `node ${MCP_BIN} --config other.json`),
      stdio("env", `AGENT_TOOLS_CONFIG=${path.join(home, "x.json")}`, "node", MCP_BIN),
      stdio("node", MCP_BIN, "--config", "${UNSET_CONFIG_VARIABLE}"),
    ] as McpServerEntry[]) {
      assert.equal(runsThisRuntime(entry, config, hostEnv), false, JSON.stringify(entry));
    }
    // A config given in code has no file a copy could read again.
    assert.equal(runsThisRuntime(stdio("node", MCP_BIN), undefined, hostEnv), false);
  });

  it("decides 'same file' as the copy's lookup does: a team file is not the user file the copy reads; the user file is", () => {
    const userFile = path.join(home, ".config", "agent-tools-runtime", "config.json");
    mkdirSync(path.dirname(userFile), { recursive: true });
    writeFileSync(userFile, "{}");
    const team = path.join(home, "team", "team.json");
    mkdirSync(path.dirname(team));
    writeFileSync(team, "{}");
    const plain = stdio("node", MCP_BIN);
    assert.equal(runsThisRuntime(plain, team, hostEnv), false, "the copy reads the user file, not team.json");
    assert.equal(runsThisRuntime(plain, userFile, hostEnv), true, "the copy reads the user file it was listed in");
    assert.equal(runsThisRuntime({ ...plain, env: { HOME: proj } }, userFile, hostEnv), false, "another HOME: another user file");
    // XDG_CONFIG_HOME is not passed on to a child: only a declared one counts.
    const xdg = mkdtempSync(path.join(tmpdir(), "agent-tools-xdg-"));
    const xdgFile = path.join(xdg, "agent-tools-runtime", "config.json");
    mkdirSync(path.dirname(xdgFile));
    writeFileSync(xdgFile, "{}");
    assert.equal(runsThisRuntime(plain, xdgFile, { ...hostEnv, XDG_CONFIG_HOME: xdg }), false);
    assert.equal(runsThisRuntime({ ...plain, env: { XDG_CONFIG_HOME: xdg } }, xdgFile, hostEnv), true);
    // The variables the check takes from the host are those a child inherits (child-env.ts).
    for (const name of INHERITED_LOOKUP_VARIABLES) assert.ok(SAFE_BASE_ENV_VARS.includes(name), name);
    for (const name of ["XDG_CONFIG_HOME", "AGENT_TOOLS_CONFIG"]) assert.ok(!SAFE_BASE_ENV_VARS.includes(name), name);
  });

  it("leaves other servers alone: other packages, other scripts and bins of the same name, what cannot be resolved, another config", () => {
    for (const entry of [
      stdio("npx", "-y", "@modelcontextprotocol/server-filesystem", "/home/me/agent-tools-runtime"),
      stdio("node", "server.mjs", "--name", "agent-tools"),
      stdio("uvx", "mcp-server-git"),
      stdio("/usr/local/bin/start-agent-tools"),
      { url: "http://127.0.0.1:8765/mcp" },
      // M1: a scoped package is never this one.
      stdio("npx", "-y", "@acme/agent-tools"),
      stdio("npx", "-y", "@acme/agent-tools-mcp@latest"),
      stdio("npx", "-y", "@acme/agent-tools-runtime"),
      stdio("pnpm", "dlx", "@other/agent-tools-mcp-http"),
      stdio("npx", "--package=@acme/agent-tools", "foo"),
      stdio("npx", "-p", "agent-tools-runtime", "some-other-bin"),
      // M1: a user's own script or folder named like this package's bins.
      { command: "node", args: ["./agent-tools.js"], cwd: others },
      { command: "node", args: ["agent-tools.mjs"], cwd: others },
      { command: "bun", args: ["agent-tools.js"], cwd: others },
      stdio("node", path.join(others, "agent-tools-mcp")),
      stdio("node", "~/code/agent-tools-mcp"),
      // This package's folder run by node is its main, not a bin.
      stdio("node", ROOT),
      // M1: another tool's bin named agent-tools, on PATH or by path.
      { command: "agent-tools", args: ["serve"], env: { PATH: `${path.join(others, "bin")}:/usr/bin:/bin` } },
      stdio(path.join(others, "bin", "agent-tools")),
      stdio("/opt/other/bin/agent-tools"),
      stdio("C:/tools/agent-tools.exe"),
      // Not resolvable here: kept (the depth guard covers a loop this misses).
      { command: "agent-tools-mcp", env: { PATH: "/nonexistent" } },
      stdio("node", "/opt/agent-tools-runtime/dist/bin/agent-tools-mcp.js"),
      stdio("C:/Users/me/AppData/Roaming/npm/agent-tools-mcp.cmd"),
      // M2: this runtime given another config on purpose: a deliberate nesting.
      stdio("node", MCP_BIN, "--config", "/tmp/sr/other.json"),
      stdio("node", MCP_BIN, "--config=other.json"),
      { command: "agent-tools-mcp", env: { PATH: `${bins}:/usr/bin:/bin`, AGENT_TOOLS_CONFIG: "/tmp/sr/other.json" } },
    ] as McpServerEntry[]) {
      assert.equal(runsThisRuntime(entry, config, hostEnv), false, JSON.stringify(entry));
    }
  });
});

describe("the depth every child is given", () => {
  it("is the host's depth + 1, after the declared env (which cannot lower it), in MCP and CLI children", () => {
    const redactor = createRedactor();
    assert.equal(buildChildEnv({}, { PATH: "/bin" }, redactor).AGENT_TOOLS_DEPTH, "1");
    assert.equal(buildChildEnv({ AGENT_TOOLS_DEPTH: "0" }, { PATH: "/bin", AGENT_TOOLS_DEPTH: "1" }, redactor).AGENT_TOOLS_DEPTH, "2");
    assert.equal(childEnv({ AGENT_TOOLS_DEPTH: "3" }, {}, redactor).AGENT_TOOLS_DEPTH, "4");
    assert.equal(childEnv({ AGENT_TOOLS_DEPTH: "not a number" }, {}, redactor).AGENT_TOOLS_DEPTH, "1");
  });
});

describe("a config that lists the runtime itself", () => {
  let dir: string;
  let server: Awaited<ReturnType<typeof startIn>>;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "agent-tools-selfref-"));
    writeFileSync(
      path.join(dir, "agent-tools.config.json"),
      JSON.stringify({
        mcpServers: {
          "agent-tools": { command: process.execPath, args: [MCP_BIN], env: QUIET_CHILD_ENV },
          echo: { command: process.execPath, args: [STDIO_FIXTURE] },
        },
      }),
    );
    server = await startIn(dir);
  });
  after(async () => {
    await server.client.close();
  });

  it("skips the entry with one notice in help's notices (not a problem) and on stderr, and starts no copy of itself", async () => {
    const { tools } = await server.client.listTools();
    assert.ok(tools.some((t) => t.name === "agent_tools_echo_call"), "the other entry is a plugin");
    assert.ok(!tools.some((t) => t.name === "agent_tools_agent-tools_call"), "the runtime's own entry is not");
    const help = await callJson(server.client, "agent_tools_help");
    const notices = (help.payload.notices ?? []) as string[];
    const notice = notices.find((p) => p.includes("'agent-tools'"));
    assert.ok(notice, JSON.stringify(help.payload));
    // A client's file used as is lists agent-tools on purpose: nothing for the user to fix.
    assert.ok(!((help.payload.problems ?? []) as string[]).some((p) => p.includes("'agent-tools'")), JSON.stringify(help.payload));
    assert.match(notice, /runs agent-tools-runtime itself; skipped/);
    // What makes it this runtime, so the user can find the entry: the script, not only 'node'.
    assert.ok(notice.includes(`(command '${process.execPath}': the script ${MCP_BIN}, a bin of agent-tools-runtime)`), notice);
    assert.match(notice, /remove 'agent-tools' from the config agent-tools reads or name it in its plugins\.disable, or point AGENT_TOOLS_CONFIG/);
    assert.equal(server.stderr().split(notice).length - 1, 1, "said once on stderr");
    // The other server was started (it answered listing), the runtime was not: its entry is no
    // plugin at all, so nothing could start it later either.
    const discovered = await callJson(server.client, "agent_tools_echo_discover", { query: "echo" });
    assert.equal(discovered.isError, false, JSON.stringify(discovered.payload));
    const below = descendants(server.pid);
    assert.ok(below.some((p) => p.cmdline.includes(STDIO_FIXTURE)), JSON.stringify(below));
    assert.equal(runtimesBelow(server.pid), 0, JSON.stringify(below));
  });

  it("validate stays ok and names the skipped entry under notices", async () => {
    const run = await runCli(["validate", "--config", path.join(dir, "agent-tools.config.json")], { ...baseEnv(), AGENT_TOOLS_NO_BUNDLED_PLUGINS: "1" });
    const report = JSON.parse(run.stdout) as { ok: boolean; problems: string[]; notices?: string[] };
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.equal(report.ok, true);
    assert.ok(report.notices?.some((n) => /'agent-tools'.*runs agent-tools-runtime itself; skipped/.test(n)), run.stdout);
  });

  it("says nothing of the entry once plugins.disable names it (by key or by prefix), and takes that name as no typo", async () => {
    for (const [key, disable] of [
      ["agent-tools", "agent-tools"],
      ["Agent Tools (self)", "agent_tools_self"],
    ] as const) {
      const file = path.join(dir, `disabled-${disable}.json`);
      // It names its own file, so without plugins.disable it would be skipped with a notice.
      const self = { command: process.execPath, args: [MCP_BIN, "--config", file], env: QUIET_CHILD_ENV };
      writeFileSync(file, JSON.stringify({ mcpServers: { [key]: self }, plugins: { disable: [disable] } }));
      const run = await runCli(["validate", "--config", file], { ...baseEnv(), AGENT_TOOLS_NO_BUNDLED_PLUGINS: "1" });
      const report = JSON.parse(run.stdout) as { ok: boolean; problems: string[]; notices?: string[] };
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.deepEqual(report.problems, [], run.stdout);
      assert.equal(report.notices, undefined, run.stdout);
      assert.ok(!run.stderr.includes("runs agent-tools-runtime itself"), run.stderr);
    }
  });
});

describe("a config whose entry starts the runtime through a wrapper script", () => {
  let dir: string;
  let server: Awaited<ReturnType<typeof startIn>>;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "agent-tools-depth-"));
    const wrapper = path.join(dir, "start-server");
    writeFileSync(wrapper, `#!/bin/sh\nexec "${process.execPath}" "${MCP_BIN}" "$@"\n`);
    chmodSync(wrapper, 0o755);
    // Each level runs in this folder (the entry's cwd), so each reads this same file.
    writeFileSync(path.join(dir, "agent-tools.config.json"), JSON.stringify({ mcpServers: { loop: { command: wrapper, env: QUIET_CHILD_ENV, cwd: dir } } }));
    server = await startIn(dir);
  });
  after(async () => {
    await server.client.close();
  });

  it("is not recognised, but the third runtime down starts no MCP server, and says why", async () => {
    // Through the first copy to the second: its help names the depth guard.
    const nested = await callJson(server.client, "agent_tools_loop_call", {
      toolName: "agent_tools_loop_call",
      arguments: { toolName: "agent_tools_help", arguments: {} },
      confirm: true,
    });
    assert.equal(nested.isError, false, JSON.stringify(nested.payload));
    const text = JSON.stringify(nested.payload);
    assert.match(text, /stdio MCP servers are not started: this runtime was started by another agent-tools runtime 2 levels deep \(AGENT_TOOLS_DEPTH=2\)/);
    assert.equal(runtimesBelow(server.pid), 2, JSON.stringify(descendants(server.pid)));
  });

  it("refuses a call that reaches the third level with the depth guard's hint, and starts no third runtime", async () => {
    // confirm: true at each level, as a caller that cannot show its user a question sends it: the
    // runtime in the middle is told per call that no one above can answer one (relayedCapabilities),
    // so it goes by that confirm instead of asking, and the call reaches the guard.
    const deep = await callJson(server.client, "agent_tools_loop_call", {
      toolName: "agent_tools_loop_call",
      arguments: { toolName: "agent_tools_loop_call", arguments: { toolName: "agent_tools_help", arguments: {} }, confirm: true },
      confirm: true,
    });
    assert.equal(deep.isError, true, JSON.stringify(deep.payload));
    const refusal = innermostError(deep.payload);
    assert.equal(refusal.code, "NOT_CONFIGURED", JSON.stringify(deep.payload));
    assert.match(refusal.message, /MCP server 'loop' was not started: this runtime was started by another agent-tools runtime 2 levels deep \(AGENT_TOOLS_DEPTH=2\)/);
    assert.equal(refusal.hint, `Tell the user: ${DEPTH_REFUSAL_HINT}`);
    // The refusal is the deepest runtime's answer: it has decided, and the chain stays at two.
    assert.equal(runtimesBelow(server.pid), 2, JSON.stringify(descendants(server.pid)));
  });
});

interface ErrorAnswer {
  code: string;
  message: string;
  hint?: string;
  details?: { moreText?: string };
}

const QUOTE = "the tool answered with an error: ";

/** The downstream's text an UPSTREAM_ERROR quotes: the message's quote, and its continuation in details.moreText. */
function quotedText(error: ErrorAnswer): string | undefined {
  if (error.code !== "UPSTREAM_ERROR" || !error.message.startsWith(QUOTE)) return undefined;
  const quote = error.message.slice(QUOTE.length);
  const more = error.details?.moreText;
  return more === undefined ? quote : quote.replace(/… \(continued in `details\.moreText`: \d+ more characters\)$/, "") + more;
}

/** The error a nested runtime answered, through each level's UPSTREAM_ERROR that quotes the answer below it. */
function innermostError(payload: Record<string, unknown>): ErrorAnswer {
  let error = payload.error as ErrorAnswer;
  for (let text = quotedText(error); text?.startsWith("{"); text = quotedText(error)) {
    error = (JSON.parse(text) as { error: ErrorAnswer }).error;
  }
  return error;
}

describe("a runtime started at the depth limit", () => {
  let dir: string;
  let server: Awaited<ReturnType<typeof startIn>>;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "agent-tools-deep-"));
    writeFileSync(path.join(dir, "agent-tools.config.json"), JSON.stringify({ mcpServers: { echo: { command: process.execPath, args: [STDIO_FIXTURE] } } }));
    server = await startIn(dir, { AGENT_TOOLS_DEPTH: "2" });
  });
  after(async () => {
    await server.client.close();
  });

  it("refuses to start its MCP servers with an error that says why, and starts no process", async () => {
    const help = await callJson(server.client, "agent_tools_help");
    const problem = ((help.payload.problems ?? []) as string[]).find((p) => p.startsWith("stdio MCP servers are not started"));
    assert.ok(problem, JSON.stringify(help.payload));
    const call = await callJson(server.client, "agent_tools_echo_call", { toolName: "echo", arguments: { text: "hi" } });
    assert.equal(call.isError, true);
    const error = call.payload.error as ErrorAnswer;
    assert.match(error.message, /was not started: this runtime was started by another agent-tools runtime 2 levels deep/);
    // The guard's own hint, also once the failed start is remembered (the listing at start tried first).
    assert.equal(error.hint, `Tell the user: ${DEPTH_REFUSAL_HINT}`, JSON.stringify(call.payload));
    // One wording: the problems line says the same refusal and the same fix as the call's answer.
    const why = error.message.slice(error.message.indexOf("this runtime was started"));
    assert.equal(problem, `stdio MCP servers are not started: ${why}. ${DEPTH_REFUSAL_HINT}`);
    assert.equal(descendants(server.pid).length, 0, JSON.stringify(descendants(server.pid)));
  });

  it("says so when its only stdio server is the embedded filesystem plugin (kind mcp-filesystem)", async () => {
    // AGENT_TOOLS_NO_BUNDLED_PLUGINS=1 (baseEnv's) turns the embedded plugins off too: the bundled ones are disabled by name instead.
    const bundled = readdirSync(path.join(ROOT, "plugins")).map((folder) => (JSON.parse(readFileSync(path.join(ROOT, "plugins", folder, "plugin.json"), "utf8")) as { name: string }).name);
    const file = path.join(dir, "filesystem-only.json");
    writeFileSync(file, JSON.stringify({ mcpServers: {}, plugins: { embedded: true, disable: ["memory", ...bundled] } }));
    const run = await runCli(["validate", "--config", file], baseEnv({ AGENT_TOOLS_NO_BUNDLED_PLUGINS: "0", AGENT_TOOLS_DEPTH: "2" }));
    const report = JSON.parse(run.stdout) as { ok: boolean; plugins: { name: string }[]; problems: string[] };
    assert.deepEqual(report.plugins.map((p) => p.name), ["filesystem"], run.stdout);
    assert.equal(report.ok, false, run.stdout);
    assert.ok(report.problems.some((p) => p.startsWith("stdio MCP servers are not started") && p.endsWith(DEPTH_REFUSAL_HINT)), run.stdout);
  });
});
