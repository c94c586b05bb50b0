import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { baseEnv, ROOT } from "./helpers.js";

// The command line as a new user meets it: --help everywhere (exit 0, nothing served, no port
// bound, stdin not read), unknown options exit 2, -v/--version/version, a clear word when the
// port is taken or --port is not a number, and a sane `tokens` on an empty fleet.

// Each bin's file as npm installs it: package.json's own `bin` map (two names may share one file).
const BIN_FILES = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> }).bin;
const BINS = ["agent-tools", "agent-tools-runtime", "agent-tools-mcp", "agent-tools-mcp-http"] as const;
const SUBCOMMANDS = ["mcp", "http", "probe", "validate", "status", "list", "load", "exec", "serve", "tokens", "search-bench", "version", "help"];

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run a bin with stdin left open: a program that reads stdin or serves never ends, and the deadline says so. */
function run(bin: string, args: string[], env: Record<string, string> = baseEnv(), deadlineMs = 20_000): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, BIN_FILES[bin] ?? `dist/bin/${bin}.js`), ...args], { env, cwd: tmpdir(), stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${bin} ${args.join(" ")} was still running after ${deadlineMs} ms (serving or reading stdin?)\n${stderr}`));
    }, deadlineMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("the command line", () => {
  let held: Server;
  let heldPort: number;
  before(async () => {
    // A port this test holds: a --help that tried to bind it would fail instead of exiting 0.
    held = createServer();
    await new Promise<void>((resolve) => held.listen(0, "127.0.0.1", resolve));
    heldPort = (held.address() as { port: number }).port;
  });
  after(() => held.close());

  it("--help and -h on every bin print usage and exit 0 without serving, binding or reading stdin", async () => {
    for (const bin of BINS) {
      for (const flag of ["--help", "-h"]) {
        const ran = await run(bin, [flag, "--port", String(heldPort)]);
        assert.equal(ran.code, 0, `${bin} ${flag}: ${ran.stderr}`);
        assert.match(ran.stdout, new RegExp(`^usage: ${bin === "agent-tools-runtime" ? "agent-tools" : bin}`), `${bin} ${flag}`);
      }
    }
  });

  it("--help on every subcommand prints that command's usage and exits 0", async () => {
    for (const command of SUBCOMMANDS) {
      const ran = await run("agent-tools", [command, "--help", "--port", String(heldPort)]);
      assert.equal(ran.code, 0, `${command} --help: ${ran.stderr}`);
      assert.match(ran.stdout, new RegExp(`^usage: agent-tools ${command === "help" ? "<command>" : command}`), command);
    }
    const exec = await run("agent-tools", ["exec", "--help"]);
    assert.equal(exec.code, 0);
    assert.match(exec.stdout, /^usage: agent-tools exec \[options\] \[--\] COMMAND/);
    assert.doesNotMatch(exec.stdout + exec.stderr, /command not found/);
    const helpOf = await run("agent-tools", ["help", "validate"]);
    assert.match(helpOf.stdout, /^usage: agent-tools validate/);
  });

  it("each help lists only the options its command takes and never calls a program the same as itself", async () => {
    const mcp = await run("agent-tools-mcp", ["--help"]);
    assert.match(mcp.stdout, /serve the MCP facade over stdio \(the same as agent-tools mcp\)/);
    const http = await run("agent-tools-mcp-http", ["--help"]);
    assert.match(http.stdout, /Streamable HTTP .*\(the same as agent-tools http\)/);
    for (const [bin, ran] of [["agent-tools-mcp", mcp], ["agent-tools-mcp-http", http]] as const) {
      assert.doesNotMatch(ran.stdout, new RegExp(`the same as ${bin}\\)`), `${bin} --help refers to itself: ${ran.stdout}`);
      assert.match(ran.stdout, /--config FILE/);
      assert.match(ran.stdout, /-v, --version/);
    }
    assert.doesNotMatch(mcp.stdout, /--host|--port/, "stdio takes no --host/--port");
    assert.match(http.stdout, /^ {2}--host HOST +the address to bind/m);
    assert.match(http.stdout, /^ {2}--port PORT +the port/m);
    const optionsOf = (text: string): string[] => [...(text.split("\noptions:\n")[1] ?? "").matchAll(/^ {2}(-\S+)/gm)].map((m) => m[1] as string);
    const expected: Record<string, string[]> = {
      mcp: ["--config", "--plugins-dir", "-h,"],
      http: ["--config", "--plugins-dir", "--host", "--port", "-h,"],
      probe: ["-h,"],
      validate: ["--config", "--plugins-dir", "-h,"],
      tokens: ["--config", "--plugins-dir", "--json", "--tools", "-h,"],
      audit: ["--config", "--limit", "-f,", "-h,"],
      cache: ["-h,"],
      "search-bench": ["--tools", "--queries", "--limit", "--engine", "-h,"],
    };
    for (const [command, options] of Object.entries(expected)) {
      const ran = await run("agent-tools", [command, "--help"]);
      assert.deepEqual(optionsOf(ran.stdout), options, `${command} --help:\n${ran.stdout}`);
    }
    const top = await run("agent-tools", ["--help"]);
    assert.deepEqual(optionsOf(top.stdout), ["--config", "--plugins-dir", "--host", "--port", "-h,", "-v,"]);
    assert.match(top.stdout, /^ {2}--host HOST +http: the address to bind/m);
    assert.match(top.stdout, /^ {2}mcp +serve the MCP facade over stdio \(the same as agent-tools-mcp\)$/m);
  });

  it("an unknown option or command exits 2 on every bin, saying which", async () => {
    for (const bin of BINS) {
      const ran = await run(bin, ["--bogus"]);
      assert.equal(ran.code, 2, `${bin} --bogus: ${ran.stdout}`);
      assert.match(ran.stderr, /unknown option '--bogus'\n/, "named, with no far-fetched guess");
      assert.equal(ran.stdout, "", "nothing on stdout: it may be a protocol stream");
    }
    const typo = await run("agent-tools", ["valdate"]);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /unknown command 'valdate'; did you mean 'validate'\?/);
  });

  it("a misspelt option names the near one, with the usage of the command it was given to", async () => {
    for (const bin of BINS) {
      const ran = await run(bin, bin.startsWith("agent-tools-mcp") ? ["--confg", "x.json"] : ["validate", "--confg", "x.json"]);
      assert.equal(ran.code, 2, `${bin}: ${ran.stderr}`);
      assert.match(ran.stderr, /^agent-tools[\w-]*: unknown option '--confg'; did you mean '--config'\?\n/);
      assert.match(ran.stderr, /\nusage: agent-tools[\w-]*( validate)? (\[--host HOST\] \[--port PORT\] )?\[options\]/, "the command's own usage");
      assert.equal(ran.stdout, "");
    }
    const misplaced = await run("agent-tools", ["--plugin-dir", "x"]);
    assert.match(misplaced.stderr, /unknown option '--plugin-dir'; did you mean '--plugins-dir'\?/);
  });

  it("an option's value left out or starting with '-' says what the option takes", async () => {
    const negative = await run("agent-tools", ["audit", "--limit", "-1"]);
    assert.equal(negative.code, 2);
    assert.match(negative.stderr, /^agent-tools: --limit needs a value after it \(--limit N: the last N entries, a positive whole number \(default 100\)\); '-1' reads as an option \(a value that starts with '-' is written --limit=-1\)\n/);
    assert.doesNotMatch(negative.stderr, /ambiguous/);
    const written = await run("agent-tools", ["audit", "--limit=-1"]);
    assert.equal(written.code, 2);
    assert.match(written.stderr, /--limit must be a positive whole number \(got '-1'\)/);
    const bench = await run("agent-tools", ["search-bench", "--limit"]);
    assert.match(bench.stderr, /^agent-tools: --limit needs a value after it \(--limit N: hits per query, 1 to 50 \(default 10\)\)\n/, "the command's own wording");
    const flag = await run("agent-tools", ["audit", "--follow=1"]);
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /^agent-tools: --follow takes no value \(-f, --follow: keep printing new entries\); write it alone\n/);
  });

  it("a one-letter switch written with '=' names the word typed, not the piece Node split off", async () => {
    const follow = await run("agent-tools", ["audit", "-f=2"]);
    assert.equal(follow.code, 2);
    assert.match(follow.stderr, /^agent-tools: '-f=2': -f takes no value \(-f, --follow: keep printing new entries\); write -f alone\n/);
    for (const args of [["audit", "-h=1"], ["status", "-h=yes"]]) {
      const ran = await run("agent-tools", args);
      assert.equal(ran.code, 2, `${args.join(" ")}: ${ran.stderr}`);
      assert.match(ran.stderr, new RegExp(`^agent-tools: '${args[1]}': -h takes no value \\(-h, --help: print help and exit\\); write -h alone\n`));
      assert.doesNotMatch(ran.stderr, /'-='/);
    }
    const unknown = await run("agent-tools", ["audit", "-q=3"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^agent-tools: unknown option '-q=3': '-q' is no option of this program/);
  });

  it("words nothing reads after --version or a command's --help exit 2, naming them", async () => {
    const version = await run("agent-tools", ["--version", "extra"]);
    assert.equal(version.code, 2);
    assert.equal(version.stdout, "");
    assert.match(version.stderr, /^agent-tools: --version takes no words; 'extra' is not read\n/);
    const help = await run("agent-tools", ["audit", "-h", "extra"]);
    assert.equal(help.code, 2);
    assert.equal(help.stdout, "");
    assert.match(help.stderr, /^agent-tools: agent-tools audit takes no words after it; 'extra' is not read/);
    const plain = await run("agent-tools", ["audit", "-h"]);
    assert.equal(plain.code, 0, "the help alone still prints the usage");
  });

  it("the top-level help indents a command's continued description under it", async () => {
    const help = await run("agent-tools", ["--help"]);
    const commands = help.stdout.split("\n\noptions:")[0]?.split("\ncommands:\n")[1] ?? "";
    for (const line of commands.split("\n")) assert.match(line, /^ {2}/, `every line of the commands list is indented: '${line}'`);
    assert.match(help.stdout, /\n {22}Options go before the command/);
  });

  it("help for a command that does not exist exits 2 naming it and listing the commands", async () => {
    for (const args of [["help", "nosuch"], ["nosuch", "--help"], ["--help", "nosuch"]]) {
      const ran = await run("agent-tools", args);
      assert.equal(ran.code, 2, `${args.join(" ")}: ${ran.stdout}`);
      assert.equal(ran.stdout, "", "no usage on stdout as if the help had been found");
      assert.match(ran.stderr, /^agent-tools( help)?: unknown command 'nosuch'\n/);
      assert.match(ran.stderr, /^ {2}validate +load every plugin/m, "the commands it could have been are listed");
    }
    const typo = await run("agent-tools", ["help", "valdate"]);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /^agent-tools help: unknown command 'valdate'; did you mean 'validate'\?/);
  });

  it("prints the version for -v, --version and version", async () => {
    const { version } = JSON.parse(execFileSync(process.execPath, ["-p", "JSON.stringify(require('./package.json'))"], { cwd: ROOT, encoding: "utf8" })) as { version: string };
    for (const [bin, args] of [["agent-tools", ["-v"]], ["agent-tools", ["--version"]], ["agent-tools", ["version"]], ["agent-tools-mcp", ["--version"]], ["agent-tools-mcp-http", ["-v"]], ["agent-tools-runtime", ["--version"]]] as const) {
      const ran = await run(bin, [...args]);
      assert.equal(ran.code, 0, `${bin} ${args.join(" ")}`);
      assert.equal(ran.stdout.trim(), version);
    }
  });

  it("names --port when it is not a port, and says clearly when the port is taken", async () => {
    const bad = await run("agent-tools-mcp-http", ["--port", "abc"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--port must be a whole number from 0 to 65535 \(got 'abc'\)/);
    assert.doesNotMatch(bad.stderr, /AGENT_TOOLS_HTTP_PORT/);
    const taken = await run("agent-tools-mcp-http", ["--port", String(heldPort)]);
    assert.equal(taken.code, 1);
    assert.match(taken.stderr, new RegExp(`port ${heldPort} on 127\\.0\\.0\\.1 is already in use`));
    assert.doesNotMatch(taken.stderr, /\n\s+at /, "no stack trace");
  });

  it("a short AGENT_TOOLS_STATE_KEY stops both servers with one line naming it, no stack", async () => {
    for (const bin of ["agent-tools-mcp", "agent-tools-mcp-http"]) {
      const ran = await run(bin, [], baseEnv({ AGENT_TOOLS_STATE_KEY: "abcd", AGENT_TOOLS_HTTP_PORT: "0" }));
      assert.equal(ran.code, 1, ran.stderr);
      assert.match(ran.stderr, /AGENT_TOOLS_STATE_KEY must hold at least 32 bytes \(64 hex characters, or base64\); it holds 2\. Make one with `openssl rand -hex 32`/);
      assert.doesNotMatch(ran.stderr, /\n\s+at /, `${bin}: no stack trace`);
    }
  });

  it("tokens on an empty fleet says there is nothing to compare", async () => {
    const empty = mkdtempSync(path.join(tmpdir(), "agent-tools-empty-"));
    const ran = await run("agent-tools", ["tokens"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: empty }));
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stdout, /no downstream tools listed, nothing to compare/);
    assert.doesNotMatch(ran.stdout, /-\d+(\.\d+)?%/);
  });

  it("validate and status say that AGENT_TOOLS_PLUGINS_DIR names a folder that is not there", async () => {
    const gone = path.join(mkdtempSync(path.join(tmpdir(), "agent-tools-gone-")), "nonexistent");
    const validated = await run("agent-tools", ["validate"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: gone }));
    assert.equal(validated.code, 1, validated.stdout + validated.stderr);
    const report = JSON.parse(validated.stdout) as { ok: boolean; problems: string[] };
    assert.equal(report.ok, false);
    assert.deepEqual(report.problems, [`AGENT_TOOLS_PLUGINS_DIR (or --plugins-dir) names ${gone}, which does not exist; no plugins were loaded from it (correct the path, or unset AGENT_TOOLS_PLUGINS_DIR / drop --plugins-dir)`]);
    assert.match(validated.stderr, /^agent-tools validate: AGENT_TOOLS_PLUGINS_DIR \(or --plugins-dir\) names .*nonexistent, which does not exist/m);
    const status = await run("agent-tools", ["status"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: gone, AGENT_TOOLS_LOG: "error" }));
    assert.equal(status.code, 0, status.stderr);
    const answer = JSON.parse(status.stdout) as { result: { status: string; problems?: string[] } };
    assert.equal(answer.result.status, "READY (with problems)");
    assert.deepEqual(answer.result.problems, report.problems, "status shows validate's problems");
    const fine = await run("agent-tools", ["validate"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: path.dirname(gone) }));
    assert.equal(fine.code, 0, "an existing (empty) folder is no problem");
  });
});

describe("npx from a packed tarball", () => {
  it("`npx --package=<tgz> agent-tools-runtime --version` prints the version", { timeout: 300_000 }, async () => {
    const out = mkdtempSync(path.join(tmpdir(), "agent-tools-pack-"));
    execFileSync("npm", ["pack", "--pack-destination", out, "--ignore-scripts"], { cwd: ROOT, stdio: "ignore" });
    const tgz = readdirSync(out).find((f) => f.endsWith(".tgz"));
    assert.ok(tgz, "npm pack made a tarball");
    const version = execFileSync("npx", ["--yes", "--prefer-offline", `--package=${path.join(out, tgz)}`, "agent-tools-runtime", "--version"], {
      cwd: out,
      encoding: "utf8",
      env: { ...process.env, npm_config_cache: process.env.npm_config_cache ?? path.join(process.env.HOME ?? tmpdir(), ".npm"), npm_config_update_notifier: "false" },
    });
    const expected = JSON.parse(execFileSync(process.execPath, ["-p", "JSON.stringify(require('./package.json').version)"], { cwd: ROOT, encoding: "utf8" })) as string;
    assert.equal(version.trim(), expected);
  });
});
