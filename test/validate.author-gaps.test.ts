import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { baseEnv, callJson, connect, runCli, writePlugin } from "./helpers.js";

// What a plugin author's mistakes used to pass `agent-tools validate` with (ok, exit 0) while the
// plugin then ran unchecked, loaded nothing, or skipped a file without a word.

interface Report {
  ok: boolean;
  plugins: { prefix: string; skills?: number }[];
  problems: string[];
  notices?: string[];
}

async function validate(pluginsDir: string): Promise<{ code: number | null; report: Report; stderr: string }> {
  const run = await runCli(["validate", "--plugins-dir", pluginsDir], baseEnv());
  return { code: run.code, report: JSON.parse(run.stdout) as Report, stderr: run.stderr };
}

let dir: string;
before(() => (dir = mkdtempSync(path.join(tmpdir(), "agent-tools-author-gaps-"))));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A plugin.json written as text, so the test knows each field's line. */
function writeManifestText(folder: string, lines: string[]): string {
  mkdirSync(folder, { recursive: true });
  const file = path.join(folder, "plugin.json");
  writeFileSync(file, lines.join("\n"));
  return file;
}

describe("a tool's inputSchema in plugin.json that does not compile", () => {
  it("a rest block: each misspelt type is a problem at its line and column, with the type it is near, and validate exits 1", async () => {
    const plugins = path.join(dir, "rest-typo");
    const file = writeManifestText(path.join(plugins, "agent-tools-plugin-notes"), [
      `{"name": "notes", "prefix": "notes", "adapter": {"kind": "rest", "baseUrl": "http://127.0.0.1:9", "tools": [`,
      `  {"name": "get_note", "path": "/notes/{id}", "inputSchema": {"type": "object", "properties": {"id": {"type": "interger"}}}},`,
      `  {"name": "list_notes", "path": "/notes", "inputSchema": {"type": "object", "properties": {"q": {"type": "strng"}}}}`,
      `]}}`,
    ]);
    const { code, report, stderr } = await validate(plugins);
    assert.equal(code, 1, stderr);
    assert.equal(report.ok, false);
    const lines = report.problems.flatMap((p) => p.split("\n"));
    const column2 = `  {"name": "get_note", "path": "/notes/{id}", "inputSchema": {"type": "object", "properties": {"id": {"type": `.length + 1;
    const column3 = `  {"name": "list_notes", "path": "/notes", "inputSchema": {"type": "object", "properties": {"q": {"type": `.length + 1;
    const typeNames = `"array", "boolean", "integer", "null", "number", "object", "string"`;
    const fix = "this inputSchema does not compile, so no call could be checked against it (fix it, or leave inputSchema out to have it made from the tool's mapping)";
    assert.deepEqual(lines, [
      `${file}:2:${column2}: field 'adapter.tools[0].inputSchema.properties.id.type' is "interger", which is not one of ${typeNames}; did you mean "integer"?; ${fix}`,
      `${file}:3:${column3}: field 'adapter.tools[1].inputSchema.properties.q.type' is "strng", which is not one of ${typeNames}; did you mean "string"?; ${fix}`,
    ]);
  });

  it("a cli block: a $ref to nothing is a problem naming the tool's inputSchema", async () => {
    const plugins = path.join(dir, "cli-ref");
    writePlugin(path.join(plugins, "agent-tools-plugin-greet"), {
      name: "greet",
      prefix: "greet",
      adapter: { kind: "cli", program: process.execPath, allowlist: [process.execPath], tools: [{ name: "hello", argv: ["-e", "1", "{name}"], inputSchema: { type: "object", properties: { name: { $ref: "#/$defs/nowhere" } } } }] },
    });
    const { code, report, stderr } = await validate(plugins);
    assert.equal(code, 1, stderr);
    const found = report.problems.flatMap((p) => p.split("\n")).filter((p) => p.includes("inputSchema"));
    assert.equal(found.length, 1, report.problems.join("\n"));
    assert.match(found[0] as string, /plugin\.json:1:\d+: field 'adapter\.tools\[0\]\.inputSchema' can't resolve reference #\/\$defs\/nowhere from id #; this inputSchema does not compile/);
  });

  it("a repeated enum value is a problem whether the enum is short (Ajv's check) or long (the runtime's linear one); 2020-12 allows repeats", async () => {
    const plugins = path.join(dir, "rest-enum");
    // 100 values, v7 again last: long enough to be checked by the runtime rather than Ajv's pairwise check.
    const long = JSON.stringify([...Array.from({ length: 99 }, (_, i) => `v${i}`), "v7"]);
    // Two repeats: the runtime names the first (7 and 98), Ajv's pairwise check the last (8 and 99).
    const twice = JSON.stringify([...Array.from({ length: 98 }, (_, i) => `v${i}`), "v7", "v8"]);
    const file = writeManifestText(path.join(plugins, "agent-tools-plugin-picks"), [
      `{"name": "picks", "prefix": "picks", "adapter": {"kind": "rest", "baseUrl": "http://127.0.0.1:9", "tools": [`,
      `  {"name": "short", "path": "/s", "inputSchema": {"type": "object", "properties": {"p": {"enum": ["a", "b", "a"]}}}},`,
      `  {"name": "long", "path": "/l", "inputSchema": {"type": "object", "properties": {"p": {"enum": ${long}}}}},`,
      `  {"name": "objects", "path": "/o", "inputSchema": {"type": "object", "properties": {"p": {"default": {"enum": ${long}}, "enum": ${JSON.stringify([...Array.from({ length: 70 }, (_, i) => ({ n: i, m: 0 })), { m: 0, n: 3 }])}}}}},`,
      `  {"name": "repeats_2020", "path": "/r", "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"p": {"enum": ${long}}}}},`,
      `  {"name": "named", "path": "/n", "inputSchema": {"type": "object", "properties": {"enum": {"enum": ${twice}}, "default": {"items": {"enum": ${long}}}}}}`,
      `]}}`,
    ]);
    const { code, report, stderr } = await validate(plugins);
    assert.equal(code, 1, stderr);
    const lines = report.problems.flatMap((p) => p.split("\n"));
    const fix = "this inputSchema does not compile, so no call could be checked against it (fix it, or leave inputSchema out to have it made from the tool's mapping)";
    assert.equal(lines.length, 5, lines.join("\n"));
    assert.match(lines[0] as string, new RegExp(`^${file}:2:\\d+: field 'adapter\\.tools\\[0\\]\\.inputSchema\\.properties\\.p\\.enum' must NOT have duplicate items \\(items ## 0 and 2 are identical\\) \\(got \\["a","b","a"\\]\\); ${fix.replace(/[()]/g, "\\$&")}$`));
    assert.match(lines[1] as string, /plugin\.json:3:\d+: field 'adapter\.tools\[1\]\.inputSchema\.properties\.p\.enum' must NOT have duplicate items \(items ## 7 and 99 are identical\)/);
    // Objects are equal whatever their keys' order; the same list under `default` is a value, not an enum.
    assert.match(lines[2] as string, /plugin\.json:4:\d+: field 'adapter\.tools\[2\]\.inputSchema\.properties\.p\.enum' must NOT have duplicate items \(items ## 3 and 70 are identical\)/);
    // Properties named `enum` and `default` are schemas like any other: their long enums are the runtime's to check.
    assert.match(lines[3] as string, /plugin\.json:6:\d+: field 'adapter\.tools\[4\]\.inputSchema\.properties\.enum\.enum' must NOT have duplicate items \(items ## 7 and 98 are identical\)/);
    assert.match(lines[4] as string, /plugin\.json:6:\d+: field 'adapter\.tools\[4\]\.inputSchema\.properties\.default\.items\.enum' must NOT have duplicate items \(items ## 7 and 99 are identical\)/);
  });

  it("over stdio the plugin is not served, and help lists the problem at its line", async () => {
    const plugins = path.join(dir, "rest-typo");
    const server = await connect(plugins);
    try {
      const { tools } = await server.client.listTools();
      assert.ok(!tools.some((t) => t.name.startsWith("agent_tools_notes_")), tools.map((t) => t.name).join(", "));
      const help = await callJson(server.client, "agent_tools_help");
      const problems = (help.payload.problems as string[]).join("\n");
      assert.match(problems, /plugin\.json:2:\d+: field 'adapter\.tools\[0\]\.inputSchema\.properties\.id\.type' is "interger".*did you mean "integer"\?/);
      assert.match(problems, /plugin\.json:3:\d+: field 'adapter\.tools\[1\]\.inputSchema\.properties\.q\.type' is "strng"/);
    } finally {
      await server.close();
    }
  });
});

describe("a plugins folder that holds no plugin", () => {
  it("a manifest named manifest.json or plugin.json.txt is a problem naming the file and its new name", async () => {
    const misnamed = path.join(dir, "misnamed");
    mkdirSync(path.join(misnamed, "agent-tools-plugin-foo"), { recursive: true });
    writeFileSync(path.join(misnamed, "agent-tools-plugin-foo", "manifest.json"), `{"name": "foo", "prefix": "foo", "adapter": "./a.mjs"}`);
    mkdirSync(path.join(misnamed, "agent-tools-plugin-bar"), { recursive: true });
    writeFileSync(path.join(misnamed, "agent-tools-plugin-bar", "plugin.json.txt"), `{}`);
    const { code, report } = await validate(misnamed);
    assert.equal(code, 1);
    const source = "AGENT_TOOLS_PLUGINS_DIR (or --plugins-dir)";
    assert.deepEqual(report.problems, [
      `${source} names ${misnamed}, which holds no plugin: ${path.join(misnamed, "agent-tools-plugin-bar", "plugin.json.txt")} is not read, as a plugin's manifest must be named plugin.json; rename it to ${path.join(misnamed, "agent-tools-plugin-bar", "plugin.json")}`,
      `${source} names ${misnamed}, which holds no plugin: ${path.join(misnamed, "agent-tools-plugin-foo", "manifest.json")} is not read, as a plugin's manifest must be named plugin.json; rename it to ${path.join(misnamed, "agent-tools-plugin-foo", "plugin.json")}`,
    ]);

    // The plugin folder itself given as the plugins folder: the same problem.
    const itself = await validate(path.join(misnamed, "agent-tools-plugin-foo"));
    assert.equal(itself.code, 1);
    assert.match(itself.report.problems.join("\n"), /agent-tools-plugin-foo, which holds no plugin: .*agent-tools-plugin-foo\/manifest\.json is not read/);
  });

  it("an empty folder is a notice saying what a plugin folder holds, and validate stays ok", async () => {
    const empty = path.join(dir, "empty");
    mkdirSync(empty);
    const { code, report, stderr } = await validate(empty);
    assert.equal(code, 0, stderr);
    assert.equal(report.ok, true);
    assert.deepEqual(report.problems, []);
    assert.deepEqual(report.notices, [
      `AGENT_TOOLS_PLUGINS_DIR (or --plugins-dir) names ${empty}, which holds no plugin, so none was loaded from it: a plugin is a folder holding plugin.json (${path.join(empty, "<plugin>", "plugin.json")}, or ${path.join(empty, "plugin.json")} when the folder is the plugin)`,
    ]);
  });
});

const ADAPTER = `export class Adapter {\n  async listTools() { return { tools: [{ name: "ping", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }] }; }\n  async call() { return { pong: true }; }\n}\n`;

describe("skill files", () => {
  it("a TypeScript skill nothing was compiled from is a problem saying to compile it; one beside its .js, a .d.ts and a .cjs skill are fine", async () => {
    const plugins = path.join(dir, "skill-kinds");
    const folder = writePlugin(path.join(plugins, "agent-tools-plugin-kinds"), { name: "kinds", prefix: "kinds", adapter: "./adapter.mjs" }, {
      "adapter.mjs": ADAPTER,
      "skills/uncompiled.ts": `export const meta = { description: "ts" };\nexport async function run() { return 1; }\n`,
      "skills/compiled.ts": `export const meta = { description: "compiled" };\nexport async function run() { return 1; }\n`,
      "skills/compiled.js": `export const meta = { description: "compiled" };\nexport async function run() { return 1; }\n`,
      "skills/types.d.ts": `export declare const x: number;\n`,
      "skills/common.cjs": `exports.meta = { description: "commonjs" };\nexports.run = async () => 1;\n`,
    });
    const { code, report } = await validate(plugins);
    assert.equal(code, 1);
    assert.deepEqual(report.problems, [
      `skill 'uncompiled' of plugin 'kinds' failed to load (${path.join(folder, "skills", "uncompiled.ts")}): Node runs a plugin's modules as JavaScript and does not import a '.ts' file; compile it to JavaScript (tsc, esbuild) and name the .mjs or .js file it makes`,
    ]);
    assert.equal(report.plugins.find((p) => p.prefix === "kinds")?.skills, 2, "compiled.js and common.cjs load");
  });
});

describe("a related link that does not resolve", () => {
  it("is a problem, and discover and help no longer show it; a link that resolves is still shown", async () => {
    const plugins = path.join(dir, "related");
    const skill = (name: string, related: string[]) => `export const meta = { description: "${name} things", related: ${JSON.stringify(related.map((target) => ({ target, why: `see ${target}` })))} };\nexport async function run() { return 1; }\n`;
    writePlugin(path.join(plugins, "agent-tools-plugin-linked"), { name: "linked", prefix: "linked", adapter: "./adapter.mjs" }, {
      "adapter.mjs": ADAPTER,
      "skills/who.mjs": skill("who", ["linked:pokes", "linked:other"]),
      "skills/other.mjs": skill("other", []),
    });
    const { code, report } = await validate(plugins);
    assert.equal(code, 1);
    assert.deepEqual(report.problems, ["skill linked:who: related link 'linked:pokes' does not resolve (plugin 'linked' has no skill 'pokes' (skills: other, who))"]);

    const server = await connect(plugins);
    try {
      const discover = await callJson(server.client, "agent_tools_linked_discover", { query: "who things", detail: true });
      const who = (discover.payload.matches as { name: string; related?: { target: string }[] }[]).find((m) => m.name === "who");
      assert.ok(who, JSON.stringify(discover.payload));
      assert.deepEqual(who.related?.map((r) => r.target), ["linked:other"]);
      const help = await callJson(server.client, "agent_tools_help", { plugin: "linked" });
      assert.doesNotMatch(JSON.stringify((help.payload.plugin as Record<string, unknown>).skills), /linked:pokes/);
      assert.match((help.payload.problems as string[]).join("\n"), /related link 'linked:pokes' does not resolve/);
    } finally {
      await server.close();
    }
  });
});
