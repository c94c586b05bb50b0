import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { callJson, connect, type Connected } from "./helpers.js";

/**
 * agent_tools_search's `plugin`, over real stdio with the SDK client: a prefix narrows the
 * search, null or leaving it out searches every plugin, and any other value (5, "", ["notes"]) is
 * refused naming the value, not read as "every plugin" without a word.
 */

interface Hit {
  plugin: string;
}

describe("agent_tools_search's plugin", () => {
  let server: Connected;
  before(async () => {
    server = await connect(undefined, { AGENT_TOOLS_SEARCH_ENGINE: "bm25f" });
  });
  after(() => server.close());

  it("a prefix narrows the search; null or leaving it out searches every plugin", async () => {
    const one = await callJson(server.client, "agent_tools_search", { query: "list", plugin: " notes " });
    assert.equal(one.isError, false, JSON.stringify(one.payload));
    const hits = one.payload.hits as Hit[];
    assert.ok(hits.length > 0);
    assert.deepEqual([...new Set(hits.map((h) => h.plugin))], ["notes"]);
    for (const unset of [{}, { plugin: null }]) {
      const every = await callJson(server.client, "agent_tools_search", { query: "list", ...unset });
      assert.equal(every.isError, false, JSON.stringify(every.payload));
      assert.ok(new Set((every.payload.hits as Hit[]).map((h) => h.plugin)).size > 1, JSON.stringify(every.payload.hits));
    }
  });

  it("a value that is not a prefix is refused, naming it and how to send one", async () => {
    const cases: [unknown, string][] = [
      [5, "5"],
      ["", "an empty string"],
      ["  ", "an empty string"],
      [["notes"], "an array"],
      [{ prefix: "notes" }, "an object"],
      [true, "true"],
    ];
    for (const [plugin, got] of cases) {
      const { payload, isError } = await callJson(server.client, "agent_tools_search", { query: "note", plugin });
      assert.equal(isError, true, JSON.stringify(plugin));
      const error = payload.error as { code: string; message: string; details?: { errors?: unknown } };
      assert.equal(error.code, "ARG_VALIDATION_FAILED");
      assert.equal(
        error.message,
        `'plugin' must be one plugin's prefix, as a string; got ${got}. Send e.g. {"query": "list issues", "plugin": "<prefix>"} (help and search hits show each prefix), or leave 'plugin' out to search every plugin`,
      );
      assert.deepEqual(error.details?.errors, [{ path: "/plugin", message: "must be a non-empty string (a plugin's prefix)" }]);
    }
  });

  it("a string that is no plugin's prefix answers UNKNOWN_PLUGIN with the nearest", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_search", { query: "note", plugin: "notse" });
    assert.equal(isError, true);
    const error = payload.error as { code: string; message: string };
    assert.equal(error.code, "UNKNOWN_PLUGIN");
    assert.match(error.message, /no plugin has prefix 'notse'; nothing was run; did you mean 'notes'/);
  });
});
