import assert from "node:assert/strict";
import { chmodSync, cpSync, mkdtempSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { versionAtLeast } from "../src/cli/probe.js";
import { ROOT, baseEnv, runCli } from "./helpers.js";

interface Report {
  status: string;
  checks: { name: string; ok: boolean; executed: boolean; detail: string; fix?: string }[];
}

describe("agent-tools probe", () => {
  it("compares versions numerically", () => {
    assert.equal(versionAtLeast("v20.18.1", "20.18.1"), true);
    assert.equal(versionAtLeast("v20.9.0", "20.18.1"), false);
    assert.equal(versionAtLeast("v22.0.0", "20.18.1"), true);
  });

  it("is ready (exit 0) with no command to check", async () => {
    const run = await runCli(["probe"]);
    assert.equal(run.code, 0, run.stdout);
    const report = JSON.parse(run.stdout) as Report;
    assert.equal(report.status, "ready");
    assert.deepEqual(report.checks.map((c) => c.name), ["node", "dependencies", "command"]);
  });

  it("finds an allowlisted command on PATH without running it", async () => {
    const bin = mkdtempSync(path.join(tmpdir(), "agent-tools-probe-"));
    const marker = path.join(bin, "ran");
    const tool = path.join(bin, "fake-tool");
    writeFileSync(tool, `#!/bin/sh\ntouch ${marker}\n`);
    chmodSync(tool, 0o755);
    const env = baseEnv({ PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}`, AGENT_TOOLS_COMMAND: "fake-tool --flag", AGENT_CLI_ALLOWLIST: "git,fake-tool" });
    const run = await runCli(["probe"], env);
    assert.equal(run.code, 0, run.stdout);
    const report = JSON.parse(run.stdout) as Report;
    assert.match(report.checks.find((c) => c.name === "command")?.detail ?? "", /found at .*fake-tool \(not executed\)/);
    assert.equal(existsSync(marker), false, "the probed command was never executed");
    // Said per check, for scripts that read the report rather than the detail text.
    assert.deepEqual(report.checks.map((c) => [c.name, c.executed]), [["node", false], ["dependencies", false], ["command", false], ["allowlist", false]]);
  });

  it("is blocked (exit 2) when the command is missing or not allowlisted", async () => {
    const missing = await runCli(["probe"], baseEnv({ AGENT_TOOLS_COMMAND: "no-such-program-xyz", AGENT_CLI_ALLOWLIST: "no-such-program-xyz" }));
    assert.equal(missing.code, 2);
    assert.equal((JSON.parse(missing.stdout) as Report).checks.find((c) => c.name === "command")?.ok, false);
    const denied = await runCli(["probe"], baseEnv({ AGENT_TOOLS_COMMAND: "node", AGENT_CLI_ALLOWLIST: "git" }));
    assert.equal(denied.code, 2);
    const report = JSON.parse(denied.stdout) as Report;
    assert.match(report.checks.find((c) => c.name === "allowlist")?.fix ?? "", /add node to AGENT_CLI_ALLOWLIST/);
    // A program written as a path that is not there resolves nowhere: its text in the allowlist admits nothing, as in the runtime.
    const gone = path.join(tmpdir(), "agent-tools-probe-gone", "tool");
    const unfound = await runCli(["probe"], baseEnv({ AGENT_TOOLS_COMMAND: gone, AGENT_CLI_ALLOWLIST: gone }));
    assert.equal(unfound.code, 2);
    const checks = (JSON.parse(unfound.stdout) as Report).checks;
    assert.equal(checks.find((c) => c.name === "command")?.ok, false);
    assert.equal(checks.find((c) => c.name === "allowlist")?.ok, false, unfound.stdout);
  });

  it("agrees with the runtime's matcher: a bare entry admits the path it resolves to, entries split by spaces too", async () => {
    const bin = mkdtempSync(path.join(tmpdir(), "agent-tools-probe-"));
    const tool = path.join(bin, "fake-tool");
    writeFileSync(tool, "#!/bin/sh\n");
    chmodSync(tool, 0o755);
    const env = baseEnv({ PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}`, AGENT_TOOLS_COMMAND: `${tool} --flag`, AGENT_CLI_ALLOWLIST: "git fake-tool" });
    const run = await runCli(["probe"], env);
    assert.equal(run.code, 0, run.stdout);
    assert.match((JSON.parse(run.stdout) as Report).checks.find((c) => c.name === "allowlist")?.detail ?? "", /is admitted by AGENT_CLI_ALLOWLIST/);
    // Another file of the same name is not the one the bare entry names.
    const other = mkdtempSync(path.join(tmpdir(), "agent-tools-probe-"));
    writeFileSync(path.join(other, "fake-tool"), "#!/bin/sh\n");
    chmodSync(path.join(other, "fake-tool"), 0o755);
    const denied = await runCli(["probe"], { ...env, AGENT_TOOLS_COMMAND: path.join(other, "fake-tool") });
    assert.equal(denied.code, 2, denied.stdout);
    assert.match((JSON.parse(denied.stdout) as Report).checks.find((c) => c.name === "allowlist")?.fix ?? "", /\(comma or space separated\)$/);
  });

  it("is installable (exit 1) when the runtime's dependencies cannot be resolved", async () => {
    const copy = mkdtempSync(path.join(tmpdir(), "agent-tools-nodeps-"));
    cpSync(path.join(ROOT, "dist"), path.join(copy, "dist"), { recursive: true });
    cpSync(path.join(ROOT, "package.json"), path.join(copy, "package.json"));
    const run = await runCli(["probe"], baseEnv(), path.join(copy, "dist", "bin", "agent-tools.js"));
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const report = JSON.parse(run.stdout) as Report;
    assert.equal(report.status, "installable");
    assert.match(report.checks.find((c) => c.name === "dependencies")?.detail ?? "", /@modelcontextprotocol\/server/);
  });
});
