import assert from "node:assert/strict";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { baseEnv, CLI_BIN, FIXTURES, PLUGINS, runCli } from "./helpers.js";

// Answers are read field by field below; their shapes are asserted, not declared.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type JsonObject = Record<string, any>;

/** The text layer from the agent-tools CLI: one-shot actions and `serve` over JSON lines. */

const env = (extra: Record<string, string> = {}): Record<string, string> => baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_LOG: "error", ...extra });

async function serve(lines: string[], extra: Record<string, string> = {}): Promise<{ code: number | null; answers: JsonObject[]; stderr: string }> {
  const { code, stdout, stderr } = await runCli(["serve"], env(extra), CLI_BIN, lines.map((l) => `${l}\n`).join(""));
  return { code, answers: stdout.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as JsonObject), stderr };
}

describe("agent-tools status | list | load | exec", () => {
  it("each prints one JSON answer; exec's exit status is the command line's", async () => {
    const status = await runCli(["status"], env());
    assert.equal(status.code, 0, status.stderr);
    const report = JSON.parse(status.stdout) as { result: { status: string; modules: unknown[] } };
    assert.match(report.result.status, /^READY/);
    assert.equal(report.result.modules.length, 6);
    const list = JSON.parse((await runCli(["list"], env())).stdout) as { result: { commands: { name: string }[] } };
    assert.deepEqual(list.result.commands.map((c) => c.name), ["notes", "tracker", "vault"]);
    const load = await runCli(["load", "commands/runtime-demo"], env());
    assert.equal(load.code, 0);
    assert.deepEqual(JSON.parse(load.stdout).result.commands, ["runtime-echo"]);
    const outside = await runCli(["load", "../outside.mjs"], env());
    assert.equal(outside.code, 7);
    const exec = await runCli(["exec", "notes", "call", "list_notes", "|", "jq", "-r", "'.result.notes[0].id'"], env());
    assert.equal(exec.code, 0, exec.stderr);
    assert.equal(JSON.parse(exec.stdout).stdout, "n1\n");
    const refused = await runCli(["exec", "notes call delete_note --id n1"], env());
    assert.equal(refused.code, 4);
    assert.equal(JSON.parse(refused.stdout).exitCode, 4);
  });

  it("keeps stderr to warnings: the info line on plugins not configured is status's `missing` already, unless AGENT_TOOLS_LOG asks", async () => {
    const { AGENT_TOOLS_LOG: _unset, ...unsetLog } = env();
    const status = await runCli(["status"], unsetLog);
    assert.equal(status.code, 0, status.stderr);
    assert.ok((JSON.parse(status.stdout) as JsonObject).result.missing.some((m: string) => /plugin 'vault'/.test(m)), status.stdout);
    assert.doesNotMatch(status.stderr, /info:/);
    const asked = await runCli(["exec", "true"], env({ AGENT_TOOLS_LOG: "info" }));
    assert.match(asked.stderr, /info: 1 plugins? not configured/);
  });

  it("AGENT_TOOLS_EXEC_MOUNT_CWD=1 shows the working directory at /workdir, copy-on-write", async () => {
    const run = await runCli(["exec", "grep -c notes /workdir/plugins/agent-tools-plugin-notes/plugin.json && echo changed > /workdir/written.txt && cat /workdir/written.txt"], env({ AGENT_TOOLS_EXEC_MOUNT_CWD: "1" }));
    const answer = JSON.parse(run.stdout) as { stdout: string; exitCode: number; stderr: string };
    assert.equal(answer.exitCode, 0, answer.stderr);
    assert.match(answer.stdout, /^\d+\nchanged\n$/);
    assert.equal(existsSync(path.join(FIXTURES, "written.txt")), false, "the real directory was not written");
    const off = JSON.parse((await runCli(["exec", "ls /workdir"], env())).stdout) as { exitCode: number };
    assert.notEqual(off.exitCode, 0, "off by default");
  });
});

describe("agent-tools serve", () => {
  it("answers one JSON line per request in one session, and malformed lines with an error object", async () => {
    const { code, answers } = await serve([
      JSON.stringify({ action: "exec", command: "echo kept > f.txt; export V=1; cd /tmp", id: 1 }),
      "not json at all",
      "[1,2]",
      JSON.stringify({ action: "dance" }),
      JSON.stringify({ action: "exec" }),
      JSON.stringify({ action: "exec", command: "cat ~/f.txt; echo $V; pwd", id: "two" }),
      JSON.stringify({ action: "load", module: "commands/runtime-demo" }),
      JSON.stringify({ action: "exec", command: "runtime-echo hello" }),
      JSON.stringify({ action: "list" }),
      JSON.stringify({ action: "status" }),
    ]);
    assert.equal(code, 0);
    assert.equal(answers.length, 10);
    assert.equal(answers[0]?.id, 1);
    assert.equal(answers[0]?.exitCode, 0);
    for (const bad of answers.slice(1, 5)) {
      assert.equal(bad.ok, false);
      assert.equal(bad.error.code, "BAD_REQUEST");
      assert.match(bad.error.hint, /one JSON object per line/);
    }
    assert.match(answers[3]?.error.message, /"dance"/);
    assert.deepEqual([answers[5]?.id, answers[5]?.stdout], ["two", "kept\n1\n/tmp\n"]);
    assert.equal(answers[7]?.stdout, "hello\n");
    assert.ok(answers[8]?.result.commands.some((c: { name: string }) => c.name === "runtime-echo"));
    assert.equal(answers[9]?.result.sandbox.created, true);
  });

  it("exec and serve mask credentials in a command line's output, as agent_tools_exec does over MCP", async () => {
    // A literal credential in the config's env and a host variable named like one: both known to the redactor.
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-cli-masked-"));
    const config = path.join(dir, "team.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { x: { command: "y", env: { TOKEN: "cli-config-secret-4242" } } } }));
    const extra = { AGENT_TOOLS_CONFIG: config, CLI_FIXTURE_TOKEN: "cli-host-secret-0123456789" };
    const line = "echo cli-config-secret-4242 cli-host-secret-0123456789; echo cli-config-secret-4242 >&2";
    const once = await runCli(["exec", line], env(extra));
    assert.equal(once.code, 0, once.stderr);
    const answer = JSON.parse(once.stdout) as JsonObject;
    assert.deepEqual([answer.stdout, answer.stderr], ["[redacted] [redacted]\n", "[redacted]\n"]);
    const served = await serve([JSON.stringify({ action: "exec", command: line })], extra);
    assert.deepEqual([served.answers[0]?.stdout, served.answers[0]?.stderr], ["[redacted] [redacted]\n", "[redacted]\n"]);
    assert.doesNotMatch(once.stdout + JSON.stringify(served.answers), /cli-(config|host)-secret/, "nor in the answer's command");
  });

  it("is the package's serve script", async () => {
    const pkg = JSON.parse((await import("node:fs")).readFileSync(path.join(FIXTURES, "..", "..", "package.json"), "utf8")) as { scripts: Record<string, string> };
    assert.equal(pkg.scripts.serve, "node dist/bin/agent-tools.js serve");
  });
});
