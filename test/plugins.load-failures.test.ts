import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { baseEnv, callJson, connect, runCli, stdioForSuite, writePlugin } from "./helpers.js";

/**
 * Plugin code that fails to load, through the built server and CLI: a skill or a module adapter
 * whose error holds a credential is reported masked (help, validate, stderr), a skill file that
 * never finishes importing is reported past the import deadline while the rest loads, and a
 * skill whose meta.args is not a valid JSON Schema is reported with the schema's error.
 */

const TOKEN = "ghp_abcdefghijklmnop1234567890";
const API_KEY = "sk-live-adapter-key-5566778899";
/** Short, so the tests do not wait the default 10 s; generous against a loaded machine's imports. */
const DEADLINE_MS = "3000";

const OK_SKILL = `export const meta = { description: "works", args: { type: "object", properties: { word: { type: "string" } } } };
export async function run(adapter, args) { return { echoed: args.word ?? null }; }`;
const ADAPTER = `export default class { async listTools() { return { tools: [{ name: "ping", description: "ping", inputSchema: { type: "object" } }] }; } async call() { return { pong: true }; } }`;

function fleet(): string {
  const root = mkdtempSync(path.join(tmpdir(), "agent-tools-load-failures-"));
  writePlugin(path.join(root, "agent-tools-plugin-shaky"), { name: "shaky", prefix: "shaky", description: "skills that fail to load", adapter: "./adapter.mjs" }, {
    "adapter.mjs": ADAPTER,
    "skills/leaky.mjs": `throw new Error("login failed for token " + process.env.GITHUB_TOKEN);\nexport const meta = { description: "x" };\nexport async function run() {}`,
    "skills/forever.mjs": `await new Promise(() => {});\nexport const meta = { description: "never" };\nexport async function run() {}`,
    "skills/slow.mjs": `await new Promise((resolve) => setTimeout(resolve, 600000));\nexport const meta = { description: "ten minutes" };\nexport async function run() {}`,
    "skills/typo.mjs": `export const meta = { description: "bad schema", args: { type: "objec", properties: 5 } };\nexport async function run() {}`,
    "skills/fine.mjs": OK_SKILL,
  });
  writePlugin(path.join(root, "agent-tools-plugin-keyed"), { name: "keyed", prefix: "keyed", description: "an adapter that throws its key", adapter: "./adapter.mjs" }, {
    "adapter.mjs": `export default class { constructor() { throw new Error("bad API key " + process.env.KEYED_API_KEY); } async listTools() {} async call() {} }`,
  });
  writePlugin(path.join(root, "agent-tools-plugin-stuck"), { name: "stuck", prefix: "stuck", description: "an adapter module that never finishes importing", adapter: "./adapter.mjs" }, {
    "adapter.mjs": `await new Promise(() => {});\n${ADAPTER}`,
  });
  return root;
}

const ENV = { GITHUB_TOKEN: TOKEN, KEYED_API_KEY: API_KEY, AGENT_TOOLS_IMPORT_TIMEOUT_MS: DEADLINE_MS };

describe("plugin code that fails to load, over stdio", () => {
  const server = stdioForSuite(fleet(), ENV);

  it("answers initialize, loads the rest, and reports each failure, credentials masked", async () => {
    const { tools } = await server.client.listTools();
    assert.ok(tools.some((t) => t.name === "agent_tools_shaky_call"), "the plugin with broken skills still loads");
    const { payload } = await callJson(server.client, "agent_tools_help");
    const problems = payload.problems as string[];
    const text = problems.join("\n");
    assert.ok(!text.includes(TOKEN) && !text.includes(API_KEY), text);
    assert.match(text, /skill 'leaky' of plugin 'shaky' failed to load \(.*leaky\.mjs\): login failed for token \[redacted\]/);
    assert.match(text, /plugin\.json: field 'adapter' could not be loaded from '\.\/adapter\.mjs': bad API key \[redacted\]/);
    for (const file of ["forever", "slow"]) {
      assert.match(text, new RegExp(`skill '${file}' of plugin 'shaky' failed to load \\(.*${file}\\.mjs\\): its import did not finish within ${DEADLINE_MS} ms`));
    }
    assert.match(text, /agent-tools-plugin-stuck\/plugin\.json: field 'adapter' could not be loaded from '\.\/adapter\.mjs': its import did not finish within 3000 ms/);
    assert.match(text, /skill 'typo' of plugin 'shaky' failed to load .*meta\.args is not a valid JSON Schema \(.*meta\.args\/properties must be object/);
    const shaky = (payload.plugins as { prefix: string; skills?: string[] }[]).find((p) => p.prefix === "shaky");
    assert.deepEqual(shaky?.skills, ["fine"]);
    const stderr = server.stderr();
    assert.ok(!stderr.includes(TOKEN) && !stderr.includes(API_KEY), "stderr holds no credential");
    assert.equal(stderr.match(/bad API key \[redacted\]/g)?.length, 1, `the adapter's failure is logged once:\n${stderr}`);
  });

  it("the skill that loaded validates its arguments and runs", async () => {
    const ran = await callJson(server.client, "agent_tools_shaky_run_skill", { skill: "fine", arguments: { word: "hi" } });
    assert.equal(ran.isError, false, JSON.stringify(ran.payload));
    const refused = await callJson(server.client, "agent_tools_shaky_run_skill", { skill: "fine", arguments: { word: 5 } });
    assert.equal(refused.payload.error?.code, "ARG_VALIDATION_FAILED");
  });
});

describe("agent-tools validate with plugin code that fails to load", () => {
  it("exits 1 soon after its report, although a skill's import still waits ten minutes", async () => {
    const started = Date.now();
    const run = await runCli(["validate", "--plugins-dir", fleet()], baseEnv(ENV));
    // Four imports of 3 s each at most and the 2 s a one-off command may linger: far under the skill's ten minutes.
    assert.ok(Date.now() - started < 60_000, `took ${Date.now() - started} ms`);
    assert.equal(run.code, 1, run.stderr);
    const report = JSON.parse(run.stdout) as { ok: boolean; problems: string[] };
    assert.equal(report.ok, false);
    assert.equal(report.problems.filter((p) => p.includes(`did not finish within ${DEADLINE_MS} ms`)).length, 3);
    for (const output of [run.stdout, run.stderr]) assert.ok(!output.includes(TOKEN) && !output.includes(API_KEY), output);
    assert.match(run.stdout, /login failed for token \[redacted\]/);
  });
});

describe("several skill files that never finish importing", () => {
  it("cost one import deadline together, not one each: the server answers initialize within about one; the problems keep the files' order", async () => {
    // Three hanging files: one after another they would take at least 3 × 6 s = 18 s before initialize.
    const deadlineMs = 6000;
    const root = mkdtempSync(path.join(tmpdir(), "agent-tools-hanging-skills-"));
    const hanging = `await new Promise(() => {});\nexport const meta = { description: "never" };\nexport async function run() {}`;
    writePlugin(path.join(root, "agent-tools-plugin-stalled"), { name: "stalled", prefix: "stalled", description: "skills that never finish importing", adapter: "./adapter.mjs" }, {
      "adapter.mjs": ADAPTER,
      "skills/a-first.mjs": hanging,
      "skills/b-fine.mjs": OK_SKILL,
      "skills/c-second.mjs": hanging,
      "skills/d-third.mjs": hanging,
    });
    const started = Date.now();
    const server = await connect(root, { AGENT_TOOLS_IMPORT_TIMEOUT_MS: String(deadlineMs) });
    const elapsed = Date.now() - started;
    try {
      assert.ok(elapsed >= deadlineMs, `initialize waited for the deadline (${elapsed} ms)`);
      // One deadline and the start (a few seconds on a loaded machine), well under the two deadlines a second file would add.
      assert.ok(elapsed < 2 * deadlineMs + 2000, `initialize took ${elapsed} ms: the hanging files' deadlines added up`);
      const { payload } = await callJson(server.client, "agent_tools_help");
      const failed = (payload.problems as string[]).map((p) => /skill '([^']+)' of plugin 'stalled' failed to load .*did not finish within 6000 ms/.exec(p)?.[1]).filter(Boolean);
      assert.deepEqual(failed, ["a-first", "c-second", "d-third"]);
      const stalled = (payload.plugins as { prefix: string; skills?: string[] }[]).find((p) => p.prefix === "stalled");
      assert.deepEqual(stalled?.skills, ["b-fine"]);
    } finally {
      await server.close();
    }
  });
});

describe("several plugins whose adapter module never finishes importing", () => {
  it("load side by side: together they cost the server's start one import deadline, and the plugins load in the order of their folders", async () => {
    // Three stuck plugins: one after another they would take at least 3 × 6 s = 18 s before initialize.
    const deadlineMs = 6000;
    const root = mkdtempSync(path.join(tmpdir(), "agent-tools-hanging-adapters-"));
    for (const name of ["a-stuck", "b-fine", "c-stuck", "d-stuck", "e-fine"]) {
      const stuck = name.endsWith("stuck");
      writePlugin(path.join(root, `agent-tools-plugin-${name}`), { name, prefix: name.replace("-", "_"), description: stuck ? "never finishes importing" : "loads", adapter: "./adapter.mjs" }, {
        "adapter.mjs": stuck ? `await new Promise(() => {});\n${ADAPTER}` : ADAPTER,
      });
    }
    const started = Date.now();
    const server = await connect(root, { AGENT_TOOLS_IMPORT_TIMEOUT_MS: String(deadlineMs) });
    const elapsed = Date.now() - started;
    try {
      assert.ok(elapsed >= deadlineMs, `initialize waited for the deadline (${elapsed} ms)`);
      assert.ok(elapsed < 2 * deadlineMs + 2000, `initialize took ${elapsed} ms: the stuck plugins' deadlines added up`);
      const { payload } = await callJson(server.client, "agent_tools_help");
      const stuck = (payload.problems as string[]).map((p) => /agent-tools-plugin-(\w+-stuck)\/plugin\.json: field 'adapter' could not be loaded .*did not finish within 6000 ms/.exec(p)?.[1]).filter(Boolean);
      assert.deepEqual(stuck, ["a-stuck", "c-stuck", "d-stuck"]);
      const loaded = (payload.plugins as { prefix: string }[]).map((p) => p.prefix).filter((prefix) => /^[a-e]_/.test(prefix));
      assert.deepEqual(loaded, ["b_fine", "e_fine"]);
    } finally {
      await server.close();
    }
  });
});

describe("a module adapter whose factory never settles", () => {
  function hangingFactory(): string {
    const root = mkdtempSync(path.join(tmpdir(), "agent-tools-hanging-factory-"));
    writePlugin(path.join(root, "agent-tools-plugin-hang"), { name: "hang", prefix: "hang", description: "a factory whose promise never settles", adapter: "./adapter.mjs" }, {
      "adapter.mjs": `export default function createAdapter() { return new Promise(() => {}); }`,
    });
    writePlugin(path.join(root, "agent-tools-plugin-thenable"), { name: "thenable", prefix: "thenable", description: "a class whose constructor returns a thenable that never settles", adapter: "./adapter.mjs", adapterExport: "Stuck" }, {
      "adapter.mjs": `export class Stuck { constructor() { return { then() {} }; } }`,
    });
    writePlugin(path.join(root, "agent-tools-plugin-fine"), { name: "fine", prefix: "fine", description: "loads", adapter: "./adapter.mjs" }, { "adapter.mjs": ADAPTER });
    return root;
  }
  const factoryProblem = /agent-tools-plugin-hang\/plugin\.json: field 'adapter' could not be loaded from '\.\/adapter\.mjs': export 'default' of \.\/adapter\.mjs returned a promise that did not settle within 3000 ms; make the factory resolve/;
  const ctorProblem = /agent-tools-plugin-thenable\/plugin\.json: field 'adapter' could not be loaded from '\.\/adapter\.mjs': export 'Stuck' of \.\/adapter\.mjs returned a promise that did not settle within 3000 ms/;

  it("over stdio: the server stays up, answers, serves the other plugin and reports the factory past the import deadline", async () => {
    const server = await connect(hangingFactory(), { AGENT_TOOLS_IMPORT_TIMEOUT_MS: DEADLINE_MS });
    try {
      const { tools } = await server.client.listTools();
      assert.ok(tools.some((t) => t.name === "agent_tools_fine_call"), tools.map((t) => t.name).join(", "));
      const { payload } = await callJson(server.client, "agent_tools_help");
      const text = (payload.problems as string[]).join("\n");
      assert.match(text, factoryProblem);
      assert.match(text, ctorProblem);
      assert.match(server.stderr(), /plugin skipped: .*agent-tools-plugin-hang.*did not settle within 3000 ms/);
    } finally {
      await server.close();
    }
  });

  it("agent-tools validate reports it and exits 1", async () => {
    const run = await runCli(["validate", "--plugins-dir", hangingFactory()], baseEnv({ AGENT_TOOLS_IMPORT_TIMEOUT_MS: DEADLINE_MS }));
    assert.equal(run.code, 1, run.stderr);
    const report = JSON.parse(run.stdout) as { ok: boolean; problems: string[] };
    assert.equal(report.ok, false);
    assert.match(report.problems.join("\n"), factoryProblem);
    assert.match(report.problems.join("\n"), ctorProblem);
  });
});

describe("help for a plugin whose adapter (built on first use) could not be built", () => {
  it("says it is broken and whom to tell as `next`, instead of inviting its discover", async () => {
    const root = mkdtempSync(path.join(tmpdir(), "agent-tools-broken-build-"));
    writePlugin(path.join(root, "agent-tools-plugin-facthrow"), { name: "facthrow", prefix: "facthrow", description: "a factory that throws", adapter: "./adapter.mjs" }, {
      "adapter.mjs": `export default function create() { throw new Error("factory failed: need config"); }`,
    });
    writePlugin(path.join(root, "agent-tools-plugin-fine"), { name: "fine", prefix: "fine", description: "loads", adapter: "./adapter.mjs" }, { "adapter.mjs": ADAPTER });
    // A cache folder: the adapters are built on first use, where a broken one shows.
    const server = await connect(root, { AGENT_TOOLS_CATALOG_CACHE: "on", AGENT_TOOLS_CACHE_DIR: path.join(root, "cache") });
    try {
      const fine = await callJson(server.client, "agent_tools_help", { plugin: "fine" });
      assert.deepEqual((fine.payload.plugin as { next: unknown }).next, { tool: "agent_tools_fine_discover", arguments: { query: "<string>" } });

      const failed = await callJson(server.client, "agent_tools_facthrow_discover", {});
      assert.equal(failed.isError, true);
      const help = await callJson(server.client, "agent_tools_help", { plugin: "facthrow" });
      const plugin = help.payload.plugin as { status: string; next: Record<string, unknown>; broken?: unknown };
      assert.match(plugin.status, /^failing: its adapter could not be built: .*factory failed: need config/);
      assert.deepEqual(plugin.next, {
        broken: "Its adapter could not be built (`status` and `problems` say why), so none of its tools or skills can run; its author or operator must fix it (no arguments or retry can)",
        tell: "the user what `problems` says: only the plugin's author or operator can fix it; meanwhile do the work another way",
      });
      assert.equal(plugin.broken, undefined, "said once, in next");
      assert.match((help.payload.problems as string[]).join("\n"), /^plugin 'facthrow' cannot be used: .*factory failed: need config/);
    } finally {
      await server.close();
    }
  });
});
