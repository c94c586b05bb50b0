import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { ConfirmInterrupt } from "../src/confirm-interrupt.js";
import { createAndVerify, describeError, runSteps, SkillError, skillContext, unwrapResult, waitsForUser } from "../src/plugin.js";
import { baseEnv, bundleReach, callJson, connect, ROOT, runCli, writePlugin } from "./helpers.js";

/**
 * The plugin kit (`agent-tools-runtime/plugin`): what it answers, its one failure contract, and
 * that it stays slim — the built module and everything it imports load no server code.
 */

const text = (value: unknown) => ({ content: [{ type: "text", text: typeof value === "string" ? value : JSON.stringify(value) }] });

describe("plugin kit: unwrapResult and skillContext", () => {
  it("answers values whatever the adapter kind", () => {
    assert.deepEqual(unwrapResult(text({ a: 1 })), { a: 1 });
    assert.equal(unwrapResult(text("plain words, not JSON")), "plain words, not JSON");
    assert.equal(unwrapResult(text("{not json")), "{not json");
    // A whole JSON scalar is its value; a number only when JSON.parse keeps its value (nothing lost).
    assert.equal(unwrapResult(text("true")), true);
    assert.equal(unwrapResult(text(" null\n")), null);
    assert.equal(unwrapResult(text("3")), 3);
    assert.equal(unwrapResult(text("-2.5")), -2.5);
    assert.equal(unwrapResult(text('"done"')), "done");
    assert.equal(unwrapResult(text("12345678901234567890")), "12345678901234567890");
    assert.equal(unwrapResult(text("1.50")), 1.5, "1.50 has the value 1.5: nothing is lost");
    assert.equal(unwrapResult(text("1e400")), "1e400", "past a double's range");
    assert.equal(unwrapResult(text("3 tasks left")), "3 tasks left");
    assert.equal(unwrapResult(text("truest")), "truest");
    assert.deepEqual(unwrapResult({ content: [{ type: "text", text: "x" }], structuredContent: { b: 2 } }), { b: 2 });
    const image = { content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] };
    assert.deepEqual(unwrapResult(image), image.content);
    assert.deepEqual(unwrapResult({ status: 201, data: { task: { id: 1 } } }), { task: { id: 1 } });
    assert.deepEqual(unwrapResult({ status: 200, data: 1, extra: true }), { status: 200, data: 1, extra: true }, "not a rest envelope");
    assert.deepEqual(unwrapResult([1, 2]), [1, 2]);
  });

  it("a result flagged isError throws a SkillError naming the tool", () => {
    assert.throws(
      () => unwrapResult({ isError: true, content: [{ type: "text", text: "no such page" }] }, "fetch_page"),
      (error: unknown) => error instanceof SkillError && error.code === "UPSTREAM_ERROR" && /tool 'fetch_page' answered with an error: no such page/.test(error.message),
    );
  });

  it("the context passes the runtime's context on to every call", async () => {
    const seen: unknown[] = [];
    const context = { signal: new AbortController().signal, sessionId: "s1", log: console as never, confirmed: true };
    const kit = skillContext({ call: async (name, args, ctx) => (seen.push([name, args, ctx]), text({ name })) }, context);
    assert.deepEqual(await kit.call("get", { id: 1 }), { name: "get" });
    assert.deepEqual(seen, [["get", { id: 1 }, context]]);
    assert.equal(kit.confirmed, true);
  });

  it("describeError renders error bodies as words, never [object Object]", () => {
    assert.equal(describeError({ error: { code: "invalid", message: "field 'due' is wrong" } }), "field 'due' is wrong");
    assert.equal(describeError({ error: "task 3 does not exist", code: "not_found" }), "task 3 does not exist");
    assert.equal(describeError(new Error("boom")), "boom");
    assert.equal(describeError({ weird: [1] }), '{"weird":[1]}');
  });
});

describe("plugin kit: createAndVerify's one failure contract", () => {
  const store = new Map<number, Record<string, unknown>>();
  const plan = (over: Partial<Parameters<typeof createAndVerify>[0]> = {}) => ({
    what: "note",
    create: async () => {
      const note = { id: store.size + 1, title: "hello", secret: "s3cret" };
      store.set(note.id, note);
      return note;
    },
    idOf: (created: unknown) => (created as { id?: number }).id,
    read: async (id: unknown) => store.get(id as number),
    expect: { title: "hello", secret: "s3cret" },
    secret: ["secret"],
    ...over,
  });

  it("success: verified, with the checks and without secret fields", async () => {
    const done = await createAndVerify(plan());
    assert.equal(done.verified, true);
    assert.deepEqual(done.checks.map((c) => c.field), ["title"]);
    assert.deepEqual(done.stored, { id: done.id, title: "hello" });
  });

  const failing = async (over: Partial<Parameters<typeof createAndVerify>[0]>) => {
    try {
      await createAndVerify(plan(over));
    } catch (error) {
      assert.ok(error instanceof SkillError, String(error));
      return error;
    }
    throw new Error("expected a failure");
  };

  it("a failed create keeps its code: nothing to clean up", async () => {
    const error = await failing({ create: async () => Promise.reject(Object.assign(new Error("not allowed"), { code: "NOT_CONFIGURED" })) });
    assert.equal(error.code, "NOT_CONFIGURED");
    assert.match(error.message, /creating the note failed, so there is nothing to verify: not allowed/);
    assert.equal(error.details?.stage, "create");
  });

  it("a create that got no answer may have happened: its outcome is unknown and the hint says where to look first", async () => {
    const timedOut = await failing({ create: async () => Promise.reject(Object.assign(new Error("POST /notes did not answer within 30000 ms"), { code: "UPSTREAM_TIMEOUT" })), lookFirst: "the list_notes tool" });
    assert.equal(timedOut.code, "UPSTREAM_TIMEOUT");
    assert.match(timedOut.message, /creating the note got no answer, so whether it was created is unknown .*did not answer within 30000 ms/);
    assert.match(timedOut.hint ?? "", /Look for the note first \(the list_notes tool\); create it again only if it is not there/);
    assert.deepEqual(timedOut.details, { stage: "create", outcome: "unknown" });
    const broken = await failing({ create: async () => Promise.reject(Object.assign(new Error("POST /notes failed: socket hang up"), { code: "UPSTREAM_ERROR", outcomeUnknown: true })) });
    assert.equal(broken.code, "UPSTREAM_ERROR");
    assert.match(broken.hint ?? "", /Look for the note first \(the plugin's list or search tools\)/);
  });

  it("after the create, every failure is UPSTREAM_ERROR naming the id", async () => {
    const noId = await failing({ idOf: () => undefined });
    assert.equal(noId.details?.stage, "id");
    assert.equal(JSON.stringify(noId.details).includes("s3cret"), false, "secrets are not echoed");
    const readBack = await failing({ read: async () => Promise.reject(new Error("HTTP 500")) });
    assert.equal(readBack.code, "UPSTREAM_ERROR");
    assert.match(readBack.message, /note \d+ was created, but reading it back failed: HTTP 500/);
    assert.match(readBack.hint ?? "", /exists with id \d+/);
    const differs = await failing({ storedOf: () => ({ title: "HELLO" }) });
    assert.equal(differs.details?.stage, "compare");
    assert.match(differs.message, /title \(sent "hello", stored "HELLO"\)/);
    const checked = await failing({ check: () => ["it is archived"] });
    assert.match(checked.message, /differs from what was sent: it is archived/);
  });
});

describe("plugin kit: the run's stop to ask the user (waitsForUser)", () => {
  // What the confirm gate throws at a skill's write while the user is asked (src/confirm-interrupt.ts).
  const stop = () => new ConfirmInterrupt({ plugin: "notes", tool: "create_note", arguments: { title: "hello" }, skill: "add", skillArguments: {} });

  it("is told from a failure, without the runtime's class", () => {
    assert.equal(waitsForUser(stop()), true);
    for (const other of [new Error("waiting for the user to confirm 'create_note' of plugin 'notes'"), new SkillError("CONFIRM_DECLINED", "declined"), Object.assign(new Error("x"), { name: "ConfirmInterrupt" }), undefined, "ConfirmInterrupt"]) {
      assert.equal(waitsForUser(other), false, String(other));
    }
  });

  it("createAndVerify rethrows it untouched, at the create and at the read-back (never wrapped as a failed create)", async () => {
    const atCreate = stop();
    await assert.rejects(createAndVerify({ what: "note", create: () => Promise.reject(atCreate), idOf: () => 1, read: async () => ({}) }), (error) => error === atCreate);
    const atRead = stop();
    await assert.rejects(createAndVerify({ what: "note", create: async () => ({ id: 1 }), idOf: (created) => (created as { id: number }).id, read: () => Promise.reject(atRead) }), (error) => error === atRead);
  });

  it("runSteps rethrows it untouched, even from a step that tolerates failures; the steps after it are not called", async () => {
    const thrown = stop();
    const called: string[] = [];
    const adapter = {
      call: async (name: string) => {
        called.push(name);
        if (name === "create_note") throw thrown;
        return {};
      },
    };
    const steps = [
      { name: "create", tool: "create_note", args: {}, tolerate: () => true },
      { name: "list", tool: "list_notes", args: {} },
    ];
    await assert.rejects(runSteps(adapter, steps), (error) => error === thrown);
    assert.deepEqual(called, ["create_note"]);
  });
});

describe("plugin kit: slim", () => {
  it("the built subpath imports no server code (no SDK, sandbox, index, runtime)", () => {
    // The build bundles dist/plugin.js (scripts/bundle.ts); its metafile says which source files
    // each output holds and what each output imports. Walk what loading dist/plugin.js loads.
    const { sources, externals: bare } = bundleReach("dist/plugin.js");
    // errors.ts imports only import-free helpers (json-safe, binary-value, the ask-for-less sentence): the kit reads thrown values as the runtime does (describeError).
    assert.deepEqual([...sources].sort(), ["src/ask-for-less.ts", "src/binary-value.ts", "src/confirm-interrupt.ts", "src/define.ts", "src/errors.ts", "src/json-safe.ts", "src/json-text-value.ts", "src/plugin.ts", "src/plugins/skill-steps.ts"]);
    assert.deepEqual([...bare], []);
  });

  it("resolves as agent-tools-runtime/plugin from a fresh process", () => {
    const script = `const m = await import("agent-tools-runtime/plugin"); process.stdout.write(JSON.stringify({ names: Object.keys(m).sort() }));`;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: ROOT, encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    const { names } = JSON.parse(run.stdout) as { names: string[] };
    assert.deepEqual(names, ["SkillError", "createAndVerify", "definePlugin", "defineSkill", "describeError", "outcomeUnknown", "runSteps", "skillContext", "skillError", "unknownOutcomeError", "unwrapResult", "waitsForUser"]);
  });
});

describe("plugin kit: imported by a plugin outside the package", () => {
  it("resolves for skills and module adapters anywhere (AGENT_TOOLS_PLUGINS_DIR), to the running runtime's copy even when the plugin's folder has its own", async () => {
    const root = mkdtempSync(path.join(tmpdir(), "agent-tools-kit-outside-"));
    const folder = writePlugin(path.join(root, "agent-tools-plugin-kitted"), { name: "kitted", prefix: "kitted", description: "imports the kit by name", adapter: "./adapter.mjs", readonlyTools: ["codes"] }, {
      "adapter.mjs": `import { definePlugin } from "agent-tools-runtime";
import { createRedactor } from "agent-tools-runtime/adapters";
export default definePlugin(() => ({ async listTools() { return { tools: [{ name: "codes", description: "the codes", inputSchema: { type: "object" } }] }; }, async call() { return { count: typeof createRedactor === "function" ? 1 : 0 }; } }));`,
      "skills/refuse.mjs": `import { skillError } from "agent-tools-runtime/plugin";
export const meta = { description: "refuses with a kit error" };
export async function run() { throw skillError("NOT_CONFIGURED", "the kit works from here", { hint: "nothing to do" }); }`,
      // A copy installed beside the plugin, which would throw if it were the one imported.
      "node_modules/agent-tools-runtime/package.json": JSON.stringify({ name: "agent-tools-runtime", type: "module", exports: { ".": "./x.js", "./plugin": "./x.js", "./adapters": "./x.js" } }),
      "node_modules/agent-tools-runtime/x.js": `throw new Error("the plugin's own copy was imported");`,
    });
    assert.ok(folder);
    const validated = await runCli(["validate", "--plugins-dir", root], baseEnv());
    assert.equal(validated.code, 0, validated.stdout + validated.stderr);
    const server = await connect(root);
    try {
      const ran = await callJson(server.client, "agent_tools_kitted_run_skill", { skill: "refuse" });
      assert.equal(ran.isError, true);
      assert.equal(ran.payload.error?.code, "NOT_CONFIGURED", JSON.stringify(ran.payload));
      assert.match(JSON.stringify(ran.payload), /the kit works from here/);
      const called = await callJson(server.client, "agent_tools_kitted_call", { toolName: "codes", arguments: {} });
      assert.equal(called.isError, false, JSON.stringify(called.payload));
      assert.match(JSON.stringify(called.payload), /"count":\d+/);
    } finally {
      await server.close();
    }
  });

  it("a subpath the package does not export is refused naming the plugin file that imports it and the names the package exports", async () => {
    const root = mkdtempSync(path.join(tmpdir(), "agent-tools-kit-unexported-"));
    const skill = path.join(writePlugin(path.join(root, "agent-tools-plugin-inner"), { name: "inner", prefix: "inner", description: "imports an internal path", adapter: "./adapter.mjs", readonlyTools: [] }, {
      "adapter.mjs": `export default () => ({ async listTools() { return { tools: [] }; }, async call() { return {}; } });`,
      "skills/internal.mjs": `import { x } from "agent-tools-runtime/internal";
export const meta = { description: "imports what the kit does not export" };
export async function run() { return x; }`,
    }), "skills", "internal.mjs");
    const validated = await runCli(["validate", "--plugins-dir", root], baseEnv());
    assert.equal(validated.code, 1, validated.stdout + validated.stderr);
    const { problems } = JSON.parse(validated.stdout) as { problems: string[] };
    const line = problems.find((p) => p.includes("agent-tools-runtime/internal")) ?? "";
    assert.ok(line.includes(`${skill} imports 'agent-tools-runtime/internal', which agent-tools-runtime does not export; it exports 'agent-tools-runtime', 'agent-tools-runtime/adapters', 'agent-tools-runtime/plugin': import one of those`), JSON.stringify(problems, null, 1));
    assert.doesNotMatch(line, /imported from .*package\.json/);
  });
});
