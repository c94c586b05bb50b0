import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { baseEnv, MCP_BIN, PLUGINS, runCli } from "./helpers.js";

/** What a first-time user of the CLI ran into (notes8/fresh-user.md 4, 6, 7), against the built bins. */

const env = baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_LOG: "error" });
const dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-fresh-user-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A config with a typo ('arg' for 'args'): it does not load. */
const broken = path.join(dir, "broken.json");
writeFileSync(broken, `${JSON.stringify({ mcpServers: { x: { command: "node", arg: [] } } }, null, 2)}\n`);

describe("agent-tools exec and the CLI's own options", () => {
  it("refuses --config/--plugins-dir after a text-layer built-in (status, list, load), naming where it goes with the options already given", async () => {
    for (const words of [["status", `--config=${broken}`], ["--plugins-dir", PLUGINS, "list", "--config", broken], [`load commands/x --config ${broken}`]]) {
      const run = await runCli(["exec", ...words], env);
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, /^agent-tools exec: '(status|list|load)' takes no --config/);
      assert.match(run.stderr, /Put it before the command: agent-tools (--plugins-dir \S+ )?--config \S+ exec (status|list|load commands\/x)\n$/);
    }
    const kept = await runCli(["--plugins-dir", PLUGINS, "exec", "--config", broken, "status", "--plugins-dir", "/elsewhere"], env);
    assert.equal(kept.code, 2, kept.stderr);
    assert.ok(kept.stderr.includes(`agent-tools --plugins-dir ${PLUGINS} --config ${broken} --plugins-dir /elsewhere exec status\n`), kept.stderr);
  });

  it("passes --config after any other command's first word to the command unchanged (a plugin call's tool argument)", async () => {
    const call = await runCli(["exec", "notes", "call", "get_note", "--id", "n1", "--config", "x"], env);
    const answer = JSON.parse(call.stdout) as { command: string; stderr: string };
    assert.equal(answer.command, "notes call get_note --id n1 --config x");
    // The notes plugin's get_note takes only `id`: its refusal of `config` shows the words reached it.
    assert.match(answer.stderr, /notes call: ARG_VALIDATION_FAILED: .*unknown property 'config'/);
    assert.doesNotMatch(answer.stderr, /\/id/);
    const echo = await runCli(["exec", "echo hi", "--config", broken], env);
    assert.equal(echo.code, 0, echo.stderr);
    assert.equal(JSON.parse(echo.stdout).stdout, `hi --config ${broken}\n`);
  });

  it("takes --config right after exec, and `--` passes option-like words to the command as they are", async () => {
    const before = await runCli(["exec", "--config", broken, "status"], env);
    assert.equal(before.code, 1, "the named config is read (and it is broken)");
    assert.match(before.stderr, /did you mean 'args'/);
    const passed = await runCli(["exec", "--", "echo", "--config", "x"], env);
    assert.equal(passed.code, 0, passed.stderr);
    assert.equal(JSON.parse(passed.stdout).stdout, "--config x\n");
    const status = await runCli(["exec", "status"], env);
    assert.equal(status.code, 0, status.stderr);
    assert.match(JSON.parse(status.stdout).result.status, /^READY/);
  });

  it("refuses --config/--plugins-dir right after exec with no value, and an empty --config= for any command, naming what is missing", async () => {
    const cases: [string[], RegExp][] = [
      [["exec", "--config"], /^agent-tools exec: --config needs a file, but nothing follows it: agent-tools exec --config FILE COMMAND…\n$/],
      [["exec", "--plugins-dir"], /^agent-tools exec: --plugins-dir needs a folder, but nothing follows it: agent-tools exec --plugins-dir DIR COMMAND…\n$/],
      [["exec", "--config", "--plugins-dir", PLUGINS, "status"], /^agent-tools exec: --config needs a file, but '--plugins-dir' follows it: /],
      [["exec", "--config", "-x", "status"], /^agent-tools exec: --config needs a file, but '-x' follows it \(a name starting with '-' goes as --config=-x\)/],
      [["exec", "--config=", "status"], /^agent-tools: --config is empty; give it a value \(--config FILE\) or leave it out\n$/],
      [["validate", "--config", ""], /^agent-tools: --config is empty; give it a value \(--config FILE\) or leave it out\n$/],
    ];
    for (const [words, message] of cases) {
      const run = await runCli(words, env);
      assert.equal(run.code, 2, `${words.join(" ")}: ${run.stderr}`);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, message);
    }
  });

  it("exec --help puts the options before the command line", async () => {
    const help = await runCli(["exec", "--help"], env);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^usage: agent-tools exec \[options\] \[--\] COMMAND…\n/);
    assert.match(help.stdout, /Options go before the command/);
  });
});

describe("a config that does not load", () => {
  it("validate, status and tokens --json still answer JSON on stdout, exit 1, with the problem on stderr", async () => {
    const answers = {
      validate: (a: { ok: boolean; plugins: unknown[]; problems: string[] }) => (assert.equal(a.ok, false), assert.deepEqual(a.plugins, []), a.problems),
      status: (a: { ok: boolean; result: { status: string; problems: string[] } }) => (assert.equal(a.ok, false), assert.equal(a.result.status, "NOT READY"), a.result.problems),
      tokens: (a: { ok: boolean; problems: string[] }) => (assert.equal(a.ok, false), a.problems),
    };
    for (const [command, read] of Object.entries(answers)) {
      const run = await runCli([command, "--config", broken, ...(command === "tokens" ? ["--json"] : [])], env);
      assert.equal(run.code, 1, `${command}: ${run.stderr}`);
      assertBrokenConfig((read as (a: never) => string[])(JSON.parse(run.stdout) as never), run.stderr);
    }
  });

  it("list, load and exec answer their one JSON too: the line not run, exit 1 and the problems", async () => {
    for (const [words, line] of [
      [["list"], "list"],
      [["load", "commands/runtime-demo"], "load commands/runtime-demo"],
      [["exec", "echo", "hi"], "echo hi"],
    ] as const) {
      const run = await runCli(["--config", broken, ...words], env);
      assert.equal(run.code, 1, `${line}: ${run.stderr}`);
      const answer = JSON.parse(run.stdout) as { ok: boolean; command: string; exitCode: number; problems: string[] };
      assert.deepEqual({ ok: answer.ok, command: answer.command, exitCode: answer.exitCode }, { ok: false, command: line, exitCode: 1 });
      assertBrokenConfig(answer.problems, run.stderr);
    }
  });
});

/** The one problem of `broken`, in the JSON answer and on stderr. */
function assertBrokenConfig(problems: string[], stderr: string): void {
  assert.equal(problems.length, 1);
  assert.match(problems[0] as string, /broken\.json:\d+:\d+: .*did you mean 'args'/);
  assert.match(stderr, /did you mean 'args'/);
}

describe("tokens --tools with a file that is not there", () => {
  it("says so in one line naming the file, without a stack trace", async () => {
    const missing = path.join(dir, "missing.json");
    const run = await runCli(["tokens", "--tools", missing], env);
    assert.equal(run.code, 1);
    assert.equal(run.stderr, `agent-tools: ${missing}: does not exist; check the path (relative paths are from the current folder)\n`);
  });
});

describe("options and words a command does not take", () => {
  it("are refused with exit 2, naming the command they are for, before anything is served", async () => {
    const port = await runCli(["--port", "5"], env, MCP_BIN);
    assert.equal(port.code, 2);
    assert.equal(port.stdout, "");
    assert.match(port.stderr, /^agent-tools-mcp: --port does not apply to agent-tools-mcp; it is for agent-tools-mcp-http \(agent-tools http\)/);
    const host = await runCli(["validate", "--host", "x"], env);
    assert.equal(host.code, 2);
    assert.match(host.stderr, /--host does not apply to agent-tools validate; it is for agent-tools-mcp-http/);
    const config = await runCli(["probe", "--config", "x"], env);
    assert.equal(config.code, 2);
    assert.match(config.stderr, /--config does not apply to agent-tools probe; it is for .* and \d+ other commands/);
    const stray = await runCli(["mcp", "extra-arg"], env);
    assert.equal(stray.code, 2);
    assert.match(stray.stderr, /agent-tools mcp takes no words after it; 'extra-arg' is not read/);
    const tooMany = await runCli(["hash-token", "a", "b"], env);
    assert.equal(tooMany.code, 2);
    assert.match(tooMany.stderr, /at most 1 word after it; 'b' is not read/);
    const extra = await runCli(["help", "validate", "extra"], env);
    assert.equal(extra.code, 2);
    assert.equal(extra.stdout, "", "no usage printed as if every word had been read");
    assert.equal(extra.stderr, "agent-tools: agent-tools help takes at most 1 word after it; 'extra' is not read (agent-tools help --help lists its usage)\n");
    const help = await runCli(["help", "validate"], env);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^usage: agent-tools validate \[options\]\n/);
  });
});
