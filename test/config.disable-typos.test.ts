import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { unknownDisabled } from "../src/runtime/startup-notices.js";
import { baseEnv, callJson, connect, PLUGINS, runCli } from "./helpers.js";

/**
 * A `plugins.disable` name that matches no plugin disables nothing, so the plugin meant stays on:
 * validate reports it as a problem, status and agent_tools_help say it, each naming the entry and
 * the nearest plugin names; help's problems also name a `plugins.dirs` folder that is not there.
 * The fixture fleet: notes, tracker, vault (test/fixtures/plugins).
 */

const KNOWN = ["notes", "tracker", "vault"];

describe("plugins.disable names that match no plugin", () => {
  it("each notice names the entry, the nearest plugin names and the fix", () => {
    assert.deepEqual(unknownDisabled(["notse", "tracker", "zzz"], KNOWN, "/home/u/agent-tools.config.json"), [
      "plugins.disable in /home/u/agent-tools.config.json names 'notse', which matches no plugin's prefix or name, so it disables nothing; did you mean 'notes'? (correct the name or remove it)",
      "plugins.disable in /home/u/agent-tools.config.json names 'zzz', which matches no plugin's prefix or name, so it disables nothing; the nearest plugin names are 'notes', 'tracker', 'vault' (correct the name or remove it)",
    ]);
    assert.deepEqual(unknownDisabled(["notes"], []), ["plugins.disable names 'notes', which matches no plugin's prefix or name, so it disables nothing; no plugins were found at all (correct the name or remove it)"]);
  });

  const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-disable-"));
  const config = path.join(dir, "agent-tools.config.json");
  const nope = path.join(dir, "nope");
  writeFileSync(config, JSON.stringify({ plugins: { dirs: [PLUGINS, "./nope"], disable: ["trakcer", "vault"] } }));
  const typo = `plugins.disable in ${config} names 'trakcer', which matches no plugin's prefix or name, so it disables nothing; did you mean 'tracker'? (correct the name or remove it)`;
  const missingDir = `plugins.dirs names ${nope}, which does not exist; no plugins were loaded from it (correct or remove it in plugins.dirs of ${config})`;
  const env = baseEnv({ AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_LOG: "error" });

  it("validate: a problem (exit 1), on stderr too", async () => {
    const ran = await runCli(["validate"], env);
    assert.equal(ran.code, 1, ran.stdout + ran.stderr);
    const report = JSON.parse(ran.stdout) as { ok: boolean; plugins: { prefix: string }[]; problems: string[] };
    assert.deepEqual(report.plugins.map((p) => p.prefix).sort(), ["notes", "tracker"], "vault is disabled; tracker stays on");
    assert.deepEqual(report.problems, [missingDir, typo]);
    assert.ok(ran.stderr.includes(`agent-tools validate: ${typo}`), ran.stderr);
  });

  it("status: a notice beside what is missing", async () => {
    const ran = await runCli(["status"], env);
    assert.equal(ran.code, 0, ran.stderr);
    const { result } = JSON.parse(ran.stdout) as { result: { missing?: string[]; notices?: string[] } };
    assert.deepEqual(result.notices, [typo]);
    assert.ok(result.missing?.includes(missingDir), JSON.stringify(result.missing));
  });

  it("agent_tools_help: both in problems", async () => {
    const empty = mkdtempSync(path.join(tmpdir(), "agent-tools-empty-"));
    const server = await connect(empty, { AGENT_TOOLS_CONFIG: config });
    try {
      const { payload } = await callJson(server.client, "agent_tools_help");
      assert.deepEqual(payload.problems, [missingDir, typo]);
    } finally {
      await server.close();
    }
  });
});
