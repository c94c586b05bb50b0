import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { callJson, connect, type Connected } from "./helpers.js";

/**
 * A `plugin` argument that is no prefix at all (5, "", ["notes"]) on the tools that do not take it
 * as a search filter, over real stdio with the SDK client. Routing honours an explicit `plugin`
 * (another plugin's prefix on a per-plugin tool runs nothing), so an unreadable one runs nothing
 * either: the call is refused naming the value, never routed by its name alone. `null` counts as
 * not given, as on search. (agent_tools_search's own refusal: facade.search-plugin.test.ts.)
 */

interface ErrorPayload {
  code: string;
  message: string;
  details?: { errors?: { path: string; message: string }[] };
}

const UNREADABLE: [unknown, string][] = [
  [5, "5"],
  ["", "an empty string"],
  [["notes"], "an array"],
  [false, "false"],
];

describe("an unreadable plugin argument (per-plugin facade)", () => {
  let server: Connected;
  before(async () => {
    server = await connect(undefined, { AGENT_TOOLS_SEARCH_ENGINE: "bm25f" });
  });
  after(() => server.close());

  it("a per-plugin _call, _discover or _run_skill refuses it and runs nothing", async () => {
    for (const [tool, extra] of [
      ["agent_tools_notes_call", { toolName: "list_notes" }],
      ["agent_tools_notes_discover", {}],
      ["agent_tools_notes_run_skill", { skill: "count" }],
    ] as const) {
      for (const [plugin, got] of UNREADABLE) {
        const { payload, isError } = await callJson(server.client, tool, { ...extra, plugin });
        assert.equal(isError, true, `${tool} ${JSON.stringify(plugin)}: ${JSON.stringify(payload)}`);
        const error = payload.error as ErrorPayload;
        assert.equal(error.code, "ARG_VALIDATION_FAILED");
        assert.equal(error.message, `'plugin' must be a plugin's prefix, as a string; got ${got}; nothing was run. ${tool} belongs to plugin 'notes': leave 'plugin' out`);
        assert.deepEqual(error.details?.errors, [{ path: "/plugin", message: `must be 'notes' or absent on ${tool}` }]);
      }
    }
  });

  it("null or its own prefix runs the call; other unknown arguments are still passed over", async () => {
    for (const extra of [{ plugin: null }, { plugin: "notes" }, { plugin: " Notes " }, { unrelated: 5 }]) {
      const { payload, isError } = await callJson(server.client, "agent_tools_notes_call", { toolName: "list_notes", ...extra });
      assert.equal(isError, false, `${JSON.stringify(extra)}: ${JSON.stringify(payload)}`);
      assert.ok(Array.isArray((payload.result as { notes?: unknown }).notes), JSON.stringify(payload));
    }
  });

  it("a misspelt tool name is not mended by its name alone past an unreadable plugin", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_notes_cal", { toolName: "list_notes", plugin: 5 });
    assert.equal(isError, true, JSON.stringify(payload));
    const error = payload.error as ErrorPayload;
    assert.equal(error.code, "ARG_VALIDATION_FAILED");
    assert.match(error.message, /^'plugin' must be a plugin's prefix, as a string; got 5; nothing was run\. Send a plugin's prefix as a string/);
  });

  it("help answers every plugin and says the plugin it could not read", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_help", { plugin: 5 });
    assert.equal(isError, false, JSON.stringify(payload));
    assert.equal(payload.note, "'plugin' must be a plugin's prefix, as a string; got 5; every plugin is listed below");
    assert.ok((payload.plugins as { prefix: string }[]).some((p) => p.prefix === "notes"));
  });
});

describe("an unreadable plugin argument (compact facade)", () => {
  let server: Connected;
  before(async () => {
    server = await connect(undefined, { AGENT_TOOLS_SEARCH_ENGINE: "bm25f", AGENT_TOOLS_FACADE: "compact" });
  });
  after(() => server.close());

  it("agent_tools_call refuses it naming the value, where it used to say 'plugin' was missing", async () => {
    for (const [plugin, got] of UNREADABLE) {
      const { payload, isError } = await callJson(server.client, "agent_tools_call", { plugin, toolName: "list_notes" });
      assert.equal(isError, true, JSON.stringify(plugin));
      const error = payload.error as ErrorPayload;
      assert.equal(error.code, "ARG_VALIDATION_FAILED");
      assert.match(error.message, new RegExp(`^'plugin' must be a plugin's prefix, as a string; got ${got.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}; nothing was run\\.`));
      assert.deepEqual(error.details?.errors, [{ path: "/plugin", message: "must be a non-empty string (a plugin's prefix) or absent" }]);
    }
    const named = await callJson(server.client, "agent_tools_call", { plugin: "notes", toolName: "list_notes" });
    assert.equal(named.isError, false, JSON.stringify(named.payload));
  });
});
