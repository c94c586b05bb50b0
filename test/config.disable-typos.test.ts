import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { hashToken } from "../src/gateway/identities.js";
import { fleetProblems } from "../src/runtime/problems.js";
import { unknownDisabled } from "../src/runtime/startup-notices.js";
import { baseEnv, callJson, connect, PLUGINS, runCli } from "./helpers.js";
import { httpClient, httpForSuite } from "./http-helpers.js";

/**
 * A `plugins.disable` name that matches no plugin disables nothing, so the plugin meant stays on:
 * validate reports it as a problem, status and agent_tools_help say it, each naming the entry and
 * the nearest plugin names; their problems also name a `plugins.dirs` folder that is not there.
 * A caller restricted to some plugins (a team identity) sees neither, nor the config file's path.
 * The fixture fleet: notes, tracker, vault (test/fixtures/plugins).
 */

const KNOWN = ["notes", "tracker", "vault"];

describe("plugins.disable names that match no plugin", () => {
  it("each notice names the entry, the likely names (or, none being close, the known ones) and the fix", () => {
    assert.deepEqual(unknownDisabled(["notse", "tracker", "zzz"], KNOWN, "/home/u/agent-tools.config.json"), [
      "plugins.disable in /home/u/agent-tools.config.json names 'notse', which matches no plugin's prefix or name, so it disables nothing; did you mean 'notes'? (correct the name or remove it)",
      "plugins.disable in /home/u/agent-tools.config.json names 'zzz', which matches no plugin's prefix or name, so it disables nothing; no plugin has that name; the plugins' names and prefixes are 'notes', 'tracker', 'vault' (correct the name or remove it)",
    ]);
    const many = Array.from({ length: 20 }, (_, n) => `plugin-${String(n).padStart(2, "0")}`);
    assert.match(unknownDisabled(["zzz"], many)[0] as string, /are 'plugin-00', .*'plugin-14' and 5 more \(/);
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

  it("status: the same problems as validate", async () => {
    const ran = await runCli(["status"], env);
    assert.equal(ran.code, 0, ran.stderr);
    const { result } = JSON.parse(ran.stdout) as { result: { status: string; problems?: string[] } };
    assert.deepEqual(result.problems, [missingDir, typo]);
    assert.equal(result.status, "READY (with problems)");
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

describe("plugins.disable names a plugin whose manifest does not load", () => {
  it("unit: an entry named like the failed folder is said to be that plugin, not a typo; other entries point at the failures", () => {
    const failed = "/p/agent-tools-plugin-broken";
    const [byFolder, typo] = unknownDisabled(["broken", "trakcer"], KNOWN, "/c.json", [failed]);
    assert.equal(
      byFolder,
      "plugins.disable in /c.json names 'broken', which is likely the plugin in /p/agent-tools-plugin-broken: its manifest does not load (see that problem), so no name can match it and disable cannot turn it off (fix its plugin.json, or remove the folder)",
    );
    assert.equal(
      typo,
      "plugins.disable in /c.json names 'trakcer', which matches no plugin's prefix or name, so it disables nothing; did you mean 'tracker'? (correct the name or remove it; if it names a plugin that failed to load, see that problem: a plugin whose manifest does not load cannot be disabled by name)",
    );
    assert.deepEqual(unknownDisabled(["agent-tools-plugin-broken"], KNOWN, undefined, [failed]).map((line) => line.includes("is likely the plugin in")), [true]);
  });

  it("validate: the failure once, and the entry naming its folder is not called a typo", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-disable-broken-"));
    const broken = path.join(dir, "plugins", "agent-tools-plugin-broken");
    mkdirSync(broken, { recursive: true });
    writeFileSync(path.join(broken, "plugin.json"), '{ "name": "broken", "prefix": ');
    const config = path.join(dir, "agent-tools.config.json");
    writeFileSync(config, JSON.stringify({ plugins: { dirs: [PLUGINS, "./plugins"], disable: ["broken"] } }));
    const ran = await runCli(["validate"], baseEnv({ AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_LOG: "error" }));
    assert.equal(ran.code, 1, ran.stdout + ran.stderr);
    const { problems } = JSON.parse(ran.stdout) as { problems: string[] };
    assert.equal(problems.length, 2, JSON.stringify(problems));
    assert.equal(problems.filter((p) => p.includes(broken) && !p.startsWith("plugins.disable")).length, 1, "the failure, once");
    assert.ok(problems.includes(`plugins.disable in ${config} names 'broken', which is likely the plugin in ${broken}: its manifest does not load (see that problem), so no name can match it and disable cannot turn it off (fix its plugin.json, or remove the folder)`), JSON.stringify(problems));
    assert.ok(!problems.some((p) => p.includes("matches no plugin")), "not called a typo");
  });
});

describe("plugins.disable names a plugin that could load but is not loaded in this run", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-disable-known-"));
  const config = path.join(dir, "agent-tools.config.json");
  // Off on purpose, each for another reason: the embedded plugins (a config file is loaded), a
  // bundled plugin (AGENT_TOOLS_NO_BUNDLED_PLUGINS=1, as baseEnv sets), an entry disabled in mcpServers.
  const rightly = ["memory", "filesystem", "github", "old-server", "vault"];
  const env = baseEnv({ AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_LOG: "error" });
  const write = (disable: string[]) => writeFileSync(config, JSON.stringify({ mcpServers: { "old-server": { command: "old-server-bin", disabled: true } }, plugins: { disable } }));

  it("validate: no problem, exit 0", async () => {
    write(rightly);
    const ran = await runCli(["validate"], env);
    assert.equal(ran.code, 0, ran.stdout + ran.stderr);
    assert.deepEqual((JSON.parse(ran.stdout) as { plugins: { prefix: string }[] }).plugins.map((p) => p.prefix).sort(), ["notes", "tracker"]);
  });

  it("a name no plugin has is still one, and the notice lists the known names, unloaded ones too", async () => {
    write([...rightly, "zzz"]);
    const ran = await runCli(["validate"], env);
    assert.equal(ran.code, 1, ran.stdout + ran.stderr);
    const { problems } = JSON.parse(ran.stdout) as { problems: string[] };
    assert.equal(problems.length, 1, JSON.stringify(problems));
    assert.match(problems[0] as string, /names 'zzz', which matches no plugin's prefix or name, so it disables nothing; no plugin has that name; the plugins' names and prefixes are .*'filesystem'.*'github'.*'memory'/);
  });
});

describe("problems a caller restricted to some plugins does not see", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-disable-team-"));
  const config = path.join(dir, "agent-tools.config.json");
  const TOKENS = { reader: "reader-token-0123456789abcdef", fleet: "fleet-token-0123456789abcdef" };
  writeFileSync(
    config,
    JSON.stringify({
      plugins: { dirs: ["./nope"], disable: ["trakcer"] },
      team: {
        identities: [
          { name: "reader", tokenSha256: hashToken(TOKENS.reader), plugins: ["notes"], write: false },
          { name: "fleet", tokenSha256: hashToken(TOKENS.fleet), plugins: ["*"], write: false },
        ],
      },
    }),
  );
  const server = httpForSuite({}, ["--config", config]);
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  type Status = { result: { status: string; missing?: string[]; problems?: string[]; config?: string } };

  async function seen(token: string): Promise<{ help: Record<string, unknown>; status: Status["result"] }> {
    const { client } = await httpClient(server.url, bearer(token));
    try {
      const { payload: help } = await callJson(client, "agent_tools_help");
      const { payload: exec } = await callJson(client, "agent_tools_exec", { command: "status" });
      return { help, status: (exec as unknown as Status).result };
    } finally {
      await client.close();
    }
  }

  it("help and status show the config's problems, its path and every unconfigured plugin to a caller that may use every plugin", async () => {
    const { help, status } = await seen(TOKENS.fleet);
    const problems = help.problems as string[];
    assert.equal(problems.length, 2, JSON.stringify(problems));
    assert.match(problems[0] as string, /plugins\.dirs names .*nope, which does not exist/);
    assert.match(problems[1] as string, /names 'trakcer'.*did you mean 'tracker'/);
    assert.deepEqual(status.problems, problems, "status shows help's list");
    assert.match(String(help.config), new RegExp(path.basename(config)));
    assert.match(String(status.config), new RegExp(path.basename(config)));
    assert.ok(status.missing?.some((m) => m.startsWith("plugin 'vault'")), JSON.stringify(status.missing));
  });

  it("a caller restricted to 'notes' sees none of them in help or status: no host path, no other plugin's name", async () => {
    const { help, status } = await seen(TOKENS.reader);
    assert.equal(help.problems, undefined);
    assert.equal(help.config, undefined);
    assert.equal(status.problems, undefined);
    assert.equal(status.config, undefined);
    assert.equal(status.status, "READY");
    const shown = JSON.stringify({ help, status });
    for (const hidden of [dir, "trakcer", "tracker", "vault"]) assert.ok(!shown.includes(hidden), `'${hidden}' shown to the restricted caller: ${shown}`);
  });

  it("a failed skill or a broken link is shown to the callers of its plugin (and of the plugin it points at) only", () => {
    const sources = {
      missingPluginDirs: ["folder gone"],
      unknownDisabled: ["disable typo"],
      configProblems: ["entry 'agent-tools' runs agent-tools-runtime itself"],
      failures: [
        { location: "/p/broken/plugin.json", error: "manifest broken" },
        { location: "/p/notes/skills/a.mjs", prefix: "notes", skill: "a", error: "notes skill failed" },
        { location: "/p/vault/skills/b.mjs", prefix: "vault", skill: "b", error: "vault skill failed" },
      ],
      brokenLinks: [
        { from: "notes:a", target: "notes:zz", reason: "no such skill" },
        { from: "notes:a", target: "vault:b", reason: "vault's skills: c" },
      ],
    };
    const reader = { name: "reader", plugins: ["notes"], write: false };
    assert.deepEqual(fleetProblems(sources, reader), ["notes skill failed", "skill notes:a: related link 'notes:zz' does not resolve (no such skill)"]);
    assert.equal(fleetProblems(sources, undefined).length, 8);
    assert.deepEqual(fleetProblems(sources, { ...reader, plugins: "*" }), fleetProblems(sources, undefined));
  });
});
