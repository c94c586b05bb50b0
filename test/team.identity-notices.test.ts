import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { hashToken } from "../src/gateway/identities.js";
import { baseEnv, PLUGINS, runCli } from "./helpers.js";
import { startHttp, type RunningHttp } from "./http-helpers.js";

/**
 * A team gateway whose identities name plugins that match no loaded prefix (the fixture fleet:
 * notes, tracker and the unconfigured vault) says so once per identity at start, on stderr, with
 * the names meant; an identity whose entries all match is not mentioned.
 */

const identity = (name: string, plugins: string[] | undefined): Record<string, unknown> => ({
  name,
  tokenSha256: hashToken(`${name}-token-0123456789abcdef`),
  ...(plugins ? { plugins } : {}),
});

describe("team gateway: identities whose plugins match nothing are warned about at start", () => {
  let dir: string;
  let server: RunningHttp;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "agent-tools-team-notices-"));
    const config = path.join(dir, "team.json");
    const identities = [
      identity("typo", ["nosuch"]),
      identity("cased", ["Notes"]),
      identity("pattern", ["note*"]),
      identity("empty", []),
      identity("partly", ["notes", "trackr"]),
      identity("unconfigured", ["vault"]),
      identity("fine", ["notes", "tracker"]),
      identity("all", ["*"]),
      identity("default", undefined),
    ];
    await writeFile(config, JSON.stringify({ team: { identities } }));
    server = await startHttp({ AGENT_TOOLS_AUDIT: "off" }, ["--config", config]);
  });
  after(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("names each such identity once, the names that match no plugin and the plugins meant", () => {
    const lines = server.stderr().split("\n");
    const about = (name: string): string[] => lines.filter((l) => l.includes(`('${name}')`));
    for (const name of ["typo", "cased", "pattern", "empty", "partly"]) assert.equal(about(name).length, 1, `${name}: ${server.stderr()}`);
    assert.match(about("typo")[0]!, /team\.identities\[0\] \('typo'\) names plugins that match no loaded plugin's prefix, so it sees no plugin: 'nosuch' \(no prefix is near it; the plugins' prefixes are 'notes', 'tracker', 'vault'\)/);
    assert.match(about("cased")[0]!, /'Notes' \(did you mean 'notes'\? \(it differs only in case, and prefixes match exactly\)\)/);
    assert.match(about("pattern")[0]!, /'note\*' \('\*' is a wildcard only on its own \("\*" for every plugin\), not inside a name; the prefixes starting with 'note' are 'notes'\)/);
    assert.match(about("empty")[0]!, /team\.identities\[3\] \('empty'\) has "plugins": \[\], so it sees no plugin/);
    // One entry matching is not "sees no plugin"; only the other is named, with the prefix meant.
    assert.match(about("partly")[0]!, /match no loaded plugin's prefix: 'trackr' \(did you mean 'tracker'\?\)/);
    assert.doesNotMatch(about("partly")[0]!, /'notes'|sees no plugin/);
    // An unconfigured plugin is still a loaded one (it may be set up later); matching entries, "*" and the default say nothing.
    for (const name of ["unconfigured", "fine", "all", "default"]) assert.deepEqual(about(name), [], name);
    // The config holds token hashes only, and no notice prints one.
    assert.doesNotMatch(server.stderr(), /[0-9a-f]{64}/);
  });

  it("validate fails on the entries that match no prefix, with the names meant; an empty list is a notice", async () => {
    // Before, validate answered ok: true: only an HTTP start said them.
    const run = await runCli(["validate", "--config", path.join(dir, "team.json")], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_AUDIT: "off" }));
    assert.equal(run.code, 1, run.stderr);
    const report = JSON.parse(run.stdout) as { ok: boolean; problems: string[]; notices?: string[] };
    assert.equal(report.ok, false);
    const about = (lines: readonly string[] | undefined, name: string): string[] => (lines ?? []).filter((l) => l.includes(`('${name}')`));
    assert.match(about(report.problems, "typo")[0] ?? "", /'nosuch' \(no prefix is near it/);
    assert.match(about(report.problems, "cased")[0] ?? "", /'Notes' \(did you mean 'notes'\?/);
    assert.match(about(report.problems, "partly")[0] ?? "", /'trackr' \(did you mean 'tracker'\?\)/);
    assert.equal(about(report.problems, "pattern").length, 1);
    assert.deepEqual(about(report.problems, "empty"), [], "an empty list may be meant: not a problem");
    assert.match(about(report.notices, "empty")[0] ?? "", /has "plugins": \[\], so it sees no plugin/);
    for (const name of ["unconfigured", "fine", "all", "default"]) assert.deepEqual(about(report.problems, name), [], name);
    assert.match(run.stderr, /agent-tools validate: team\.identities\[0\] \('typo'\) names plugins that match no loaded plugin's prefix/);
  });
});
