import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { before, describe, it } from "node:test";
import { silentLogger } from "../src/log.js";
import { discoverPluginDirs } from "../src/plugins/discovery.js";
import { loadPlugins } from "../src/plugins/loader.js";
import { ManifestError, parseManifest } from "../src/plugins/manifest.js";
import { SKILLS_META_FILE, loadSkills, skillFileHash } from "../src/plugins/skills.js";
import { createRuntime } from "../src/runtime/runtime.js";
import { baseEnv, BROKEN, callJson, PLUGINS, runCli, stdioForSuite, writePlugin } from "./helpers.js";

describe("manifest", () => {
  const file = "/plugins/agent-tools-plugin-x/plugin.json";

  it("reads the flat form with defaults", () => {
    const m = parseManifest(file, { name: "x", prefix: "x", adapter: "./a.mjs" });
    assert.equal(m.form, "flat");
    assert.equal(m.requireConfirm, true);
    assert.deepEqual(m.readonlyTools, []);
    assert.deepEqual(m.requires, { env: [], bins: [] });
    assert.equal(m.dir, "/plugins/agent-tools-plugin-x");
  });

  it("reads the Agent Plugins Spec form from its extension", () => {
    const m = parseManifest(file, {
      $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json",
      name: "x",
      version: "2.0.0",
      description: "d",
      extensions: { "dev.agent-tools-runtime": { prefix: "xx", adapter: { kind: "mcp", command: "srv" }, requireConfirm: false, requires: { env: ["T"] } } },
    });
    assert.equal(m.form, "agent-plugins-spec");
    assert.equal(m.prefix, "xx");
    assert.equal(m.version, "2.0.0");
    assert.deepEqual(m.adapter, { kind: "mcp", command: "srv" });
    assert.equal(m.requireConfirm, false);
    assert.deepEqual(m.requires, { env: ["T"], bins: [] });
  });

  const bad: [string, unknown, RegExp][] = [
    ["missing prefix", { name: "x", adapter: "a.mjs" }, /field 'prefix' is required/],
    ["bad prefix", { name: "x", prefix: "Has Space", adapter: "a.mjs" }, /field 'prefix' must be lower case letters, digits/],
    ["wrong type", { name: "x", prefix: "x", adapter: "a.mjs", readonlyTools: "all" }, /field 'readonlyTools' must be an array of names/],
    ["item type", { name: "x", prefix: "x", adapter: "a.mjs", readonlyTools: ["ok", 3] }, /field 'readonlyTools\[1\]' must be a non-empty string/],
    ["requireConfirm", { name: "x", prefix: "x", adapter: "a.mjs", requireConfirm: "no" }, /field 'requireConfirm' must be true or false/],
    ["unknown requires", { name: "x", prefix: "x", adapter: "a.mjs", requires: { envs: [] } }, /field 'requires.envs'/],
    ["spec without extension", { name: "x", version: "1", description: "d", extensions: {} }, /field 'extensions.dev.agent-tools-runtime' is required/],
    ["spec extension field", { name: "x", version: "1", description: "d", extensions: { "dev.agent-tools-runtime": { prefix: 1, adapter: "a" } } }, /field 'extensions.dev.agent-tools-runtime.prefix' must be lower case letters/],
    ["not an object", [1], /must be a JSON object/],
  ];
  it("reads plugin.json with comments, and lists every problem at its line and column", async () => {
    const { readManifest } = await import("../src/plugins/manifest.js");
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-manifest-"));
    const manifestFile = path.join(dir, "plugin.json");
    writeFileSync(manifestFile, `{
  // a hand-written manifest
  "name": "x",
  "prefix": "Has Space",
  "adapter": "./a.mjs",
  "readonlyTools": "all",
  "requireConfirm": "no",
}`);
    await assert.rejects(readManifest(manifestFile), (error: unknown) => {
      assert.ok(error instanceof ManifestError);
      const lines = error.message.split("\n");
      assert.equal(lines.length, 3, error.message);
      assert.match(error.message, /plugin\.json:4:13: field 'prefix' must be lower case letters/);
      assert.match(error.message, /plugin\.json:6:20: field 'readonlyTools' must be an array of names/);
      assert.match(error.message, /plugin\.json:7:21: field 'requireConfirm' must be true or false/);
      assert.doesNotMatch(error.message, /more problem/);
      return true;
    });
  });

  for (const [label, doc, pattern] of bad) {
    it(`names the file and the field: ${label}`, () => {
      assert.throws(() => parseManifest(file, doc), (error: unknown) => {
        assert.ok(error instanceof ManifestError);
        assert.ok(error.message.startsWith(file), error.message);
        assert.match(error.message, pattern);
        return true;
      });
    });
  }
});

describe("discovery locations", () => {
  let root: string;
  before(() => {
    root = mkdtempSync(path.join(tmpdir(), "agent-tools-discovery-"));
    const make = (dir: string) => {
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, "plugin.json"), "{}");
    };
    make(path.join(root, "runtime", "plugins", "agent-tools-plugin-bundled"));
    make(path.join(root, "agent-tools-plugin-sibling"));
    make(path.join(root, "project", "node_modules", "agent-tools-plugin-local"));
    make(path.join(root, "node_modules", "agent-tools-plugin-parent"));
    make(path.join(root, "project", "node_modules", "not-a-plugin"));
    make(path.join(root, "explicit", "anything"));
    mkdirSync(path.join(root, "project", "deep", "er"), { recursive: true });
    symlinkSync(path.join(root, "agent-tools-plugin-sibling"), path.join(root, "project", "node_modules", "agent-tools-plugin-sibling-link"));
  });

  it("finds explicit, sibling, node_modules and bundled plugins, in that order (the user's before the bundled), each once", () => {
    const found = discoverPluginDirs({
      runtimeRoot: path.join(root, "runtime"),
      cwd: path.join(root, "project", "deep", "er"),
      pluginsDirEnv: path.join(root, "explicit"),
    }).map((p) => path.relative(root, p));
    assert.deepEqual(found, [
      "explicit/anything",
      "agent-tools-plugin-sibling",
      "project/node_modules/agent-tools-plugin-local",
      "node_modules/agent-tools-plugin-parent",
      "runtime/plugins/agent-tools-plugin-bundled",
    ]);
  });

  it("skips bundled plugins on request", () => {
    const found = discoverPluginDirs({ runtimeRoot: path.join(root, "runtime"), cwd: root, skipBundled: true }).map((p) => path.relative(root, p));
    assert.deepEqual(found, ["node_modules/agent-tools-plugin-parent"]);
  });
});

describe("broken plugins over stdio", () => {
  const server = stdioForSuite(`${PLUGINS}${path.delimiter}${BROKEN}`);

  it("skips each broken plugin, reports it on stderr and in help, and loads the others", async () => {
    const { tools } = await server.client.listTools();
    const names = tools.map((t) => t.name);
    assert.ok(names.includes("agent_tools_notes_call"));
    assert.ok(names.includes("agent_tools_linky_call"), "a plugin with one broken skill still loads");
    assert.ok(!names.some((n) => n.includes("ghost") || n.includes("bad")));
    const { payload } = await callJson(server.client, "agent_tools_help");
    const problems = (payload.problems as string[]).join("\n");
    assert.match(problems, /agent-tools-plugin-bad-json\/plugin\.json:\d+:\d+: is not valid JSON/);
    assert.match(problems, /agent-tools-plugin-bad-prefix\/plugin\.json:1:\d+: field 'prefix' must be lower case letters/);
    assert.match(problems, /agent-tools-plugin-missing-adapter\/plugin\.json: field 'adapter' could not be loaded from '.\/nowhere.mjs'/);
    assert.match(problems, /agent-tools-plugin-notes-again\/plugin\.json: field 'prefix' 'notes' is already used by plugin 'notes'/);
    assert.match(problems, /skill 'explodes' of plugin 'linky' failed to load/);
    assert.match(problems, /skill linky:dangling: related link 'nowhere:at-all' does not resolve/);
    const stderr = server.stderr();
    assert.match(stderr, /plugin skipped: .*bad-json/);
    assert.match(stderr, /already used by plugin 'notes'/);
    assert.match(stderr, /related link 'linky:missing-skill' does not resolve/);
  });

  it("the plugin with the broken skill keeps its working tools", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_linky_call", { toolName: "ping" });
    assert.equal(isError, false);
    assert.deepEqual(payload.result, { pong: true });
  });
});

describe("agent-tools validate", () => {
  it("exits 0 when every plugin loads and every related link resolves", async () => {
    const run = await runCli(["validate"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS }));
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout) as { ok: boolean; plugins: { prefix: string }[] };
    assert.equal(report.ok, true);
    assert.deepEqual(report.plugins.map((p) => p.prefix), ["notes", "tracker", "vault"]);
  });

  it("exits 1 and lists each broken related link and failed plugin", async () => {
    const run = await runCli(["validate", "--plugins-dir", `${PLUGINS}${path.delimiter}${BROKEN}`]);
    assert.equal(run.code, 1);
    const report = JSON.parse(run.stdout) as { ok: boolean; problems: string[] };
    assert.equal(report.ok, false);
    const links = report.problems.filter((p) => p.includes("related link"));
    assert.deepEqual(links.map((l) => l.match(/related link '([^']+)'/)?.[1]), ["nowhere:at-all", "linky:missing-skill", "not-a-target"]);
    assert.match(run.stderr, /agent-tools validate: skill linky:dangling: related link 'nowhere:at-all'/);
  });

  it("the npm script runs the same check", async () => {
    const { spawnSync } = await import("node:child_process");
    const run = spawnSync("npm", ["run", "--silent", "validate-plugins"], { env: baseEnv({ AGENT_TOOLS_PLUGINS_DIR: BROKEN }), encoding: "utf8" });
    assert.equal(run.status, 1);
    assert.match(run.stdout, /"ok": false/);
  });
});

describe("runtime API", () => {
  it("loads plugins in-process from explicit folders; unmodified .mjs plugins work", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-copy-"));
    cpSync(path.join(PLUGINS, "agent-tools-plugin-tracker"), path.join(dir, "agent-tools-plugin-tracker"), { recursive: true });
    const runtime = await createRuntime({ pluginDirs: [path.join(dir, "agent-tools-plugin-tracker")], log: silentLogger, env: {} });
    try {
      const session = runtime.createSession();
      const out = await runtime.call(session, "tracker", { toolName: "listTickets", arguments: { status: "closed" } });
      assert.equal(out.isError, false);
      assert.equal(((out.payload as { result: { tickets: unknown[] } }).result).tickets.length, 1);
      assert.equal(runtime.brokenLinks.length, 1, "tracker:open-summary links to notes:digest, absent here");
    } finally {
      await runtime.close();
    }
  });
});

describe("a plugin disabled by config", () => {
  it("is dropped before its adapter or skills are imported", async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), "agent-tools-disabled-")), "agent-tools-plugin-marked");
    const marker = path.join(dir, "imported");
    writePlugin(
      dir,
      { name: "marked", prefix: "marked", description: "Leaves a file when its adapter is imported.", adapter: "./adapter.mjs" },
      { "adapter.mjs": `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "x");\nexport default class { async listTools() { return { tools: [] }; } async call() { return {}; } }\n` },
    );
    const { plugins, failures } = await loadPlugins([dir], { env: {}, log: silentLogger, disable: ["marked"] });
    assert.deepEqual(plugins, []);
    assert.deepEqual(failures, []);
    assert.equal(existsSync(marker), false, "the adapter module was never imported");
  });
});

describe("skills known from skills.meta.json", () => {
  /** A plugin folder with one skill that leaves a marker file when imported, and a meta file for it. */
  function skillFolder(sha256: (file: string) => string): { dir: string; marker: string } {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-skills-meta-"));
    const skills = path.join(dir, "skills");
    mkdirSync(skills);
    const marker = path.join(dir, "imported");
    const file = path.join(skills, "greet.mjs");
    writeFileSync(
      file,
      `import { writeFileSync } from "node:fs";
writeFileSync(${JSON.stringify(marker)}, "yes");
export const meta = { description: "Greet someone", args: { who: "the name" } };
export async function run(_adapter, args) { return { hi: args.who }; }
`,
    );
    const meta = { description: "Say hi to someone (as the meta file says)", args: { who: "the name" } };
    writeFileSync(path.join(skills, SKILLS_META_FILE), JSON.stringify({ skills: { "greet.mjs": { sha256: sha256(file), meta } } }));
    return { dir, marker };
  }

  it("are listed without importing their module, and imported on their first run", async () => {
    const { dir, marker } = skillFolder(skillFileHash);
    const loaded = await loadSkills(dir, undefined);
    assert.deepEqual(loaded.failures, []);
    assert.equal(loaded.skills[0]?.name, "greet");
    assert.equal(loaded.skills[0]?.meta.description, "Say hi to someone (as the meta file says)");
    assert.equal(existsSync(marker), false, "the skill module was not imported to list it");
    assert.deepEqual(await loaded.skills[0]?.run({} as never, { who: "Ada" }), { hi: "Ada" });
    assert.equal(existsSync(marker), true, "imported on its first run");
  });

  it("a skills.meta.json that is a FIFO (no writer) is passed over without hanging: the skill is imported for its own meta", { skip: process.platform === "win32" ? "no mkfifo" : false, timeout: 60_000 }, async () => {
    const { dir, marker } = skillFolder(skillFileHash);
    const metaFile = path.join(dir, "skills", SKILLS_META_FILE);
    rmSync(metaFile);
    execFileSync("mkfifo", [metaFile]);
    const loaded = await loadSkills(dir, undefined);
    assert.deepEqual(loaded.failures, []);
    assert.equal(loaded.skills[0]?.meta.description, "Greet someone");
    assert.equal(existsSync(marker), true, "imported, since the meta file could not be used");
  });

  it("a skill edited since the meta file was written (its hash differs) is imported for its own meta", async () => {
    const { dir, marker } = skillFolder(() => "0".repeat(64));
    const loaded = await loadSkills(dir, undefined);
    assert.equal(loaded.skills[0]?.meta.description, "Greet someone");
    assert.equal(existsSync(marker), true);
  });
});
