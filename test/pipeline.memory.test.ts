import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { parseConfig } from "../src/config/config.js";
import { compileSchema } from "../src/json-schema.js";
import { silentLogger } from "../src/log.js";
import type { PluginManifest } from "../src/plugins/manifest.js";
import { createRuntime, type Runtime } from "../src/runtime/runtime.js";
import { closeSession } from "../src/runtime/session.js";
import { createTextLayer } from "../src/text/text-layer.js";
import { STDIO_FIXTURE } from "./fixtures/mcp/support.js";
import { sendJson, startServer, type TestServer } from "./fixtures/rest/http-server.js";
import { PLUGINS, type Payload } from "./helpers.js";
import { linkFacade, type LinkedFacade } from "./memory-kit.js";

/**
 * The call pipeline in-process (facade and SDK client over InMemoryTransport): the loop breaker
 * on an injected clock, recovery of a real REST backend, the repairs models need, the gate over
 * everything a skill reaches, and the shape of answers (next, hints, size).
 */

/** Every `next` in an answer, wherever it sits. */
function nextsOf(value: unknown, found: unknown[] = []): unknown[] {
  if (Array.isArray(value)) for (const v of value) nextsOf(v, found);
  else if (value && typeof value === "object") {
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (key === "next") found.push(v);
      nextsOf(v, found);
    }
  }
  return found;
}

/** The rules every answer keeps: each next is a JSON object without confirm: true; each hint's `details.x` exists. */
function checkAnswer(payload: Payload, text: string): void {
  for (const next of nextsOf(payload)) {
    assert.equal(typeof next, "object", `next is an object: ${JSON.stringify(next)}`);
    assert.deepEqual(JSON.parse(JSON.stringify(next)), next, "next survives JSON as is");
    assert.ok(!JSON.stringify(next).includes('"confirm":true'), `next never pre-fills confirm: ${JSON.stringify(next)}`);
  }
  const hint = payload.error?.hint ?? "";
  for (const m of hint.matchAll(/`details\.([A-Za-z]+)`/g)) assert.ok(payload.error?.details?.[m[1] ?? ""] !== undefined, `the hint points at details.${m[1]}, which exists: ${text}`);
}

describe("loop breaker (injected clock)", () => {
  let runtime: Runtime;
  let facade: LinkedFacade;
  let now = 1_000_000;
  before(async () => {
    runtime = await createRuntime({ pluginDirs: [path.join(PLUGINS, "agent-tools-plugin-notes")], env: {}, log: silentLogger, clock: () => now });
    facade = await linkFacade(runtime, "loop");
  });
  after(async () => {
    await facade.close();
    await runtime.close();
  });

  it("blocks the third identical failure a retry cannot fix, and lets it through after the window", async () => {
    const bad = { toolName: "get_note", arguments: { nope: true } };
    const codes: string[] = [];
    for (let i = 0; i < 4; i++) codes.push((await facade.call("agent_tools_notes_call", bad)).payload.error?.code ?? "ok");
    assert.deepEqual(codes, ["ARG_VALIDATION_FAILED", "ARG_VALIDATION_FAILED", "LOOP_DETECTED", "LOOP_DETECTED"]);
    now += 30_000;
    assert.equal((await facade.call("agent_tools_notes_call", bad)).payload.error?.code, "LOOP_DETECTED", "still inside the window");
    now += 31_000;
    assert.equal((await facade.call("agent_tools_notes_call", bad)).payload.error?.code, "ARG_VALIDATION_FAILED", "the window passed: it runs again");
  });

  it("counts unknown tools and missing confirmation too, never upstream failures", async () => {
    const unknown = { toolName: "no_such_tool", arguments: {} };
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await facade.call("agent_tools_notes_call", unknown)).payload.error?.code);
    assert.deepEqual(codes, ["UNKNOWN_TOOL", "UNKNOWN_TOOL", "LOOP_DETECTED"]);
    const write = { toolName: "delete_note", arguments: { id: "n9" } };
    const gated = [];
    for (let i = 0; i < 3; i++) gated.push((await facade.call("agent_tools_notes_call", write)).payload.error?.code);
    assert.deepEqual(gated, ["CONFIRM_REQUIRED", "CONFIRM_REQUIRED", "LOOP_DETECTED"]);
    for (let i = 0; i < 6; i++) assert.equal((await facade.call("agent_tools_notes_call", { toolName: "fail_always" })).payload.error?.code, "UPSTREAM_ERROR");
  });

  it("never blocks 200 identical successful reads", async () => {
    for (let i = 0; i < 200; i++) {
      const { isError } = await facade.call("agent_tools_notes_call", { toolName: "list_notes", arguments: {} });
      assert.equal(isError, false, `read ${i + 1}`);
    }
  });
});

describe("a REST backend that fails twice and recovers", () => {
  let api: TestServer;
  let runtime: Runtime;
  let facade: LinkedFacade;
  let hits = 0;
  before(async () => {
    api = await startServer((req, res) => {
      if (req.url !== "/status") return sendJson(res, 404, { message: "Not Found" });
      hits += 1;
      return hits <= 2 ? sendJson(res, 500, { message: "database restarting" }) : sendJson(res, 200, { healthy: true, attempt: hits });
    });
    const manifest: PluginManifest = {
      file: path.join(tmpdir(), "status.json"),
      dir: tmpdir(),
      form: "config",
      name: "status",
      description: "A status API",
      prefix: "status",
      adapter: { kind: "rest", baseUrl: "${STATUS_BASE}", tools: [{ name: "get_status", method: "GET", path: "/status" }] },
      readonlyTools: ["get_status"],
      requireConfirm: true,
      requires: { env: [], bins: [] },
      raw: {},
    };
    runtime = await createRuntime({ manifests: [manifest], env: { STATUS_BASE: api.url }, log: silentLogger });
    facade = await linkFacade(runtime, "rest");
  });
  after(async () => {
    await facade.close();
    await runtime.close();
    await api.close();
  });

  it("is reached by the third identical call", async () => {
    const call = { toolName: "get_status", arguments: {} };
    const first = await facade.call("agent_tools_status_call", call);
    const second = await facade.call("agent_tools_status_call", call);
    const third = await facade.call("agent_tools_status_call", call);
    assert.equal(first.payload.error?.code, "UPSTREAM_ERROR");
    assert.equal(second.payload.error?.code, "UPSTREAM_ERROR");
    assert.match(first.payload.error?.message ?? "", /status/, "the error names the plugin");
    assert.equal(third.isError, false, JSON.stringify(third.payload));
    assert.deepEqual((third.payload.result as { data: unknown }).data, { healthy: true, attempt: 3 });
    assert.equal(hits, 3, "every call reached the backend");
  });
});

describe("repairs of what models send", () => {
  let runtime: Runtime;
  let facade: LinkedFacade;
  before(async () => {
    runtime = await createRuntime({ pluginDirs: [path.join(PLUGINS, "agent-tools-plugin-notes")], env: {}, log: silentLogger });
    facade = await linkFacade(runtime, "repairs");
  });
  after(async () => {
    await facade.close();
    await runtime.close();
  });

  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ["arguments.arguments", { toolName: "get_note", arguments: { arguments: { id: "n2" } } }, /'arguments' held its content inside 'arguments'/],
    ["args", { toolName: "get_note", args: { id: "n2" } }, /'args' was read as 'arguments'/],
    ["params", { toolName: "get_note", params: { id: "n2" } }, /'params' was read as 'arguments'/],
    ["input", { toolName: "get_note", input: { id: "n2" } }, /'input' was read as 'arguments'/],
    ["a JSON string", { toolName: "get_note", arguments: '{"id":"n2"}' }, /'arguments' was a JSON string/],
    ["a JSON string inside arguments.arguments", { toolName: "get_note", arguments: { arguments: '{"id":"n2"}' } }, /JSON string/],
  ];
  for (const [what, request, repair] of cases) {
    it(`${what} succeeds with a named repair`, async () => {
      const { payload, isError, text } = await facade.call("agent_tools_notes_call", request);
      assert.equal(isError, false, text);
      assert.equal((payload.result as { id: string }).id, "n2");
      assert.match(JSON.stringify(payload.repairs), repair);
      checkAnswer(payload, text);
    });
  }

  it("the facade's input schema lets a JSON-string arguments through (a validating client would not refuse it)", async () => {
    const { tools } = await facade.client.listTools();
    for (const name of ["agent_tools_notes_call", "agent_tools_notes_run_skill"]) {
      const schema = tools.find((t) => t.name === name)?.inputSchema as Record<string, unknown>;
      const validate = compileSchema(schema);
      assert.ok(!(validate instanceof Error));
      assert.ok(validate({ [name.endsWith("_call") ? "toolName" : "skill"]: "x", arguments: '{"id":"n2"}' }), name);
    }
  });

  it("a confirm inside arguments is never honoured, and the answer says where it belongs", async () => {
    for (const request of [
      { toolName: "create_note", arguments: { title: "t", body: "b", confirm: true } },
      { arguments: { toolName: "create_note", arguments: { title: "t", body: "b" }, confirm: true } },
      { toolName: "create_note", arguments: { arguments: { title: "t", body: "b", confirm: true } } },
    ]) {
      const { payload, isError, text } = await facade.call("agent_tools_notes_call", request);
      assert.equal(isError, true, text);
      assert.equal(payload.error?.code, "CONFIRM_REQUIRED", text);
      assert.match(payload.error?.message ?? "", /was not honoured: it belongs at the top level/);
      checkAnswer(payload, text);
    }
    const listed = await facade.call("agent_tools_notes_call", { toolName: "list_notes", arguments: {} });
    assert.deepEqual((listed.payload.result as { notes: unknown[] }).notes.length, 2, "nothing was created");
    const read = await facade.call("agent_tools_notes_call", { toolName: "list_notes", arguments: { confirm: true } });
    assert.equal(read.isError, false);
    assert.match(JSON.stringify(read.payload.repairs), /not honoured: confirm belongs at the top level/);
  });
});

describe("the gate covers everything a skill reaches", () => {
  let dir: string;
  let runtime: Runtime;
  let facade: LinkedFacade;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "gate-"));
    const plugin = path.join(dir, "agent-tools-plugin-store");
    mkdirSync(path.join(plugin, "skills"), { recursive: true });
    writeFileSync(path.join(plugin, "plugin.json"), JSON.stringify({ name: "store", prefix: "store", description: "A store", adapter: "./adapter.mjs", adapterExport: "Store", readonlyTools: ["count"], skills: "skills" }));
    writeFileSync(
      path.join(plugin, "adapter.mjs"),
      `export class Store {
        items = ["a", "b"];
        async listTools() { return { tools: [{ name: "count", inputSchema: { type: "object" } }, { name: "add", inputSchema: { type: "object" } }] }; }
        async call(name, args) { if (name === "count") return { count: this.items.length }; this.items.push(args.item); return { added: args.item }; }
        async erase() { this.items = []; return { erased: true }; }
        // A client the adapter hands its skills, with no readsOnly: each of its methods is a write.
        backend = { rows: ["r1", "r2"], async drop() { this.rows = []; return { dropped: true }; } };
      }`,
    );
    writeFileSync(path.join(plugin, "skills", "wipe.mjs"), `export const meta = { description: "Count, then erase everything." };\nexport async function run(adapter) { const before = await adapter.call("count", {}); await adapter.erase(); return before; }`);
    writeFileSync(
      path.join(plugin, "skills", "drop.mjs"),
      `export const meta = { description: "Drop the backend's rows." };\nexport async function run(adapter) { const same = adapter.backend === adapter.backend; const rows = adapter.backend.rows.map((r) => r.toUpperCase()); await adapter.backend.drop(); return { same, rows, left: adapter.backend.rows.length }; }`,
    );
    runtime = await createRuntime({ pluginDirs: [plugin], env: {}, log: silentLogger });
    facade = await linkFacade(runtime, "gate");
  });
  after(async () => {
    await facade.close();
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("an adapter method other than call is gated like a write", async () => {
    const refused = await facade.call("agent_tools_store_run_skill", { skill: "wipe" });
    assert.equal(refused.payload.error?.code, "CONFIRM_REQUIRED", refused.text);
    assert.match(refused.payload.error?.message ?? "", /calls 'erase'/);
    assert.equal(refused.payload.error?.details?.why, "an adapter method not in the adapter's readsOnly");
    assert.deepEqual((await facade.call("agent_tools_store_call", { toolName: "count" })).payload.result, { count: 2 }, "nothing was erased");
    const done = await facade.call("agent_tools_store_run_skill", { skill: "wipe", confirm: true });
    assert.equal(done.isError, false, done.text);
    assert.deepEqual((await facade.call("agent_tools_store_call", { toolName: "count" })).payload.result, { count: 0 });
  });

  it("a method of an object the adapter holds is gated like a write, named with a dot", async () => {
    const refused = await facade.call("agent_tools_store_run_skill", { skill: "drop" });
    assert.equal(refused.payload.error?.code, "CONFIRM_REQUIRED", refused.text);
    assert.match(refused.payload.error?.message ?? "", /skill 'drop' calls 'backend\.drop', which changes data/);
    assert.equal(refused.payload.error?.details?.tool, "backend.drop");
    const done = await facade.call("agent_tools_store_run_skill", { skill: "drop", confirm: true });
    assert.equal(done.isError, false, done.text);
    // The held object is the same one each time it is reached, and its data (an array) is read as it is.
    assert.deepEqual(done.payload.result, { same: true, rows: ["R1", "R2"], left: 0 });
  });
});

describe("answers that cost little", () => {
  let runtime: Runtime;
  let facade: LinkedFacade;
  before(async () => {
    runtime = await createRuntime({ pluginDirs: ["notes", "tracker", "vault"].map((p) => path.join(PLUGINS, `agent-tools-plugin-${p}`)), env: {}, log: silentLogger });
    facade = await linkFacade(runtime, "answers");
  });
  after(async () => {
    await facade.close();
    await runtime.close();
  });

  it("a one-field mistake costs at most 150 tokens and names the field with its schema", async () => {
    const { payload, text } = await facade.call("agent_tools_notes_call", { toolName: "search_notes", arguments: { text: 5 } });
    assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED");
    const tokens = countTokens(text);
    assert.ok(tokens <= 150, `${tokens} tokens: ${text}`);
    assert.deepEqual(payload.error?.details?.errors, [{ path: "/text", message: "'text' must be a string", schema: { type: "string", minLength: 2 } }]);
    checkAnswer(payload, text);
  });

  it("every next in discover, search and error answers parses and never carries confirm: true", async () => {
    const answers = [
      await facade.call("agent_tools_notes_discover", { query: "delete a note" }),
      await facade.call("agent_tools_notes_discover", {}),
      await facade.call("agent_tools_search", { query: "create a note" }),
      await facade.call("agent_tools_search", { query: "count" }),
      await facade.call("agent_tools_notes_call", { toolName: "delete_note", arguments: { id: "n1" } }),
      await facade.call("agent_tools_notes_call", { toolName: "nope" }),
      await facade.call("agent_tools_notes_run_skill", { skill: "nope" }),
      await facade.call("agent_tools_nothing_call", { toolName: "x" }),
      await facade.call("agent_tools_vault_call", { toolName: "x" }),
    ];
    let nexts = 0;
    for (const { payload, text } of answers) {
      checkAnswer(payload, text);
      nexts += nextsOf(payload).length;
    }
    assert.ok(nexts >= 4, `answers carry next calls (${nexts})`);
  });
});

describe("text modules take the same pipeline as _call", () => {
  let runtime: Runtime;
  before(async () => {
    runtime = await createRuntime({ pluginDirs: [], env: {}, log: silentLogger, callTimeoutMs: 4000 });
  });
  after(async () => runtime.close());

  it("a module's call meets the runtime's deadline and loop breaker, and its errors name the module's plugin", async () => {
    const layer = createTextLayer(runtime, { env: { PATH: process.env.PATH, AGENT_STDIO_MCP_COMMAND: process.execPath, AGENT_STDIO_MCP_ARGS: JSON.stringify([STDIO_FIXTURE]) }, timeoutMs: 20_000 });
    const session = runtime.createSession("module-pipeline");
    try {
      assert.equal((await layer.exec(session, "load commands/stdio-mcp")).exitCode, 0);
      // The first command starts the server and lists its tools (not what is timed below).
      assert.equal((await layer.exec(session, "stdio-mcp-search echo")).exitCode, 0);
      const hung = await layer.exec(session, "stdio-mcp-call --confirm hang");
      assert.equal(hung.exitCode, 5, hung.stderr);
      assert.match(hung.stderr, /UPSTREAM_TIMEOUT: tool 'stdio-mcp\/hang' did not answer within 4000 ms/);
      const codes = [];
      // A bare flag is true, where the tool takes a string: refused by validation (a word, even one
      // that reads as JSON, is sent as the text for a string parameter).
      for (let i = 0; i < 3; i++) codes.push((await layer.exec(session, "stdio-mcp-call --confirm echo --text")).exitCode);
      assert.deepEqual(codes, [2, 2, 6], "two validation failures, then LOOP_DETECTED (exit 6)");
      const unconfirmed = [];
      for (let i = 0; i < 3; i++) unconfirmed.push((await layer.exec(session, "stdio-mcp-call echo --text hey")).exitCode);
      assert.deepEqual(unconfirmed, [4, 4, 6]);
    } finally {
      await closeSession(session);
    }
  });
});

describe("errors name the plugin", () => {
  it("an mcpServers entry that cannot start is named by its entry, not by its adapter kind", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "named-"));
    const config = parseConfig(path.join(dir, "agent-tools.config.json"), { mcpServers: { broken_db: { command: path.join(dir, "no-such-server") } } });
    const runtime = await createRuntime({ config, pluginDirs: [], env: { PATH: process.env.PATH ?? "" }, log: silentLogger });
    const facade = await linkFacade(runtime, "named");
    try {
      const { payload, text } = await facade.call("agent_tools_broken_db_call", { toolName: "anything" });
      assert.equal(payload.plugin, "broken_db");
      assert.match(payload.error?.message ?? "", /MCP server 'broken_db'/, text);
      assert.doesNotMatch(text, /MCP server 'mcp'/);
      checkAnswer(payload, text);
    } finally {
      await facade.close();
      await runtime.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
