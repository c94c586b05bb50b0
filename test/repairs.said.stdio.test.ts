import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { callJson, stdioForSuite } from "./helpers.js";

// Repairs that ran silently are said, and an `arguments` string that is no JSON object is refused
// saying why and the shape to send.

describe("repairs of skill and plugin names are said", () => {
  const server = stdioForSuite();

  it("a skill name matched by case or separators runs and says so", async () => {
    for (const sent of ["Count", "COUNT"]) {
      const { payload, isError } = await callJson(server.client, "agent_tools_notes_run_skill", { skill: sent, arguments: { tag: "home" } });
      assert.equal(isError, false, JSON.stringify(payload));
      assert.deepEqual(payload.result, { count: 1 });
      assert.deepEqual(payload.repairs, [`skill name '${sent}' was matched to 'count'`]);
    }
  });

  it("a skill name carrying the plugin prefix is said to be a skill name", async () => {
    const { payload } = await callJson(server.client, "agent_tools_notes_run_skill", { skill: "notes_count", arguments: { tag: "home" } });
    assert.deepEqual(payload.result, { count: 1 });
    assert.deepEqual(payload.repairs, ["skill name 'notes_count' carried the plugin prefix; ran 'count'"]);
  });

  it("help's plugin is read with case and -/_ folded, said in repairs, and answers that plugin alone", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_help", { plugin: "NOTES" });
    assert.equal(isError, false);
    assert.equal((payload.plugin as { prefix: string }).prefix, "notes");
    assert.equal(payload.protocol, undefined, "not the whole fleet's help");
    assert.deepEqual(payload.repairs, ["plugin 'NOTES' was read as 'notes'"]);
  });
});

describe("an arguments string that is not a JSON object", () => {
  const server = stdioForSuite();

  for (const [sent, why] of [
    ["{'id': 'n1'}", /not a string that did not parse as JSON \(Expected property name or '\}' in JSON at position 1\)/],
    ['{"id":"n1",}', /not a string that did not parse as JSON \(Expected double-quoted property name in JSON at position 11\)/],
    ["id=n1", /not a string that did not parse as JSON \(Unexpected token/],
    ['["n1"]', /not a string holding a JSON array\./],
  ] as const) {
    it(`${sent}: says it did not parse (or what it held) and the shape to send`, async () => {
      const { payload } = await callJson(server.client, "agent_tools_notes_call", { toolName: "get_note", arguments: sent });
      assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED");
      assert.match(payload.error?.message ?? "", why);
      assert.match(payload.error?.message ?? "", /Send it as a JSON object, e\.g\. "arguments": \{"id": …\}$/);
    });
  }

  it("the JSON string of an object is still parsed and said", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_notes_call", { toolName: "get_note", arguments: '{"id":"n1"}' });
    assert.equal(isError, false);
    assert.deepEqual(payload.repairs, ["'arguments' was a JSON string; it was parsed into an object"]);
  });
});
