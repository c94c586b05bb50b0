import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { callJson, connect, type Connected } from "./helpers.js";

/**
 * agent_tools_search's `detail`, over real stdio with the SDK client: true adds each tool hit's
 * input schema; the strings "true" and "false" are read as the booleans and said in `repairs`;
 * anything else that is not a boolean is refused naming the value, not read as false without a word.
 */

interface Hit {
  kind?: string;
  inputSchema?: unknown;
}

const withSchema = (hits: Hit[]): number => hits.filter((h) => h.inputSchema !== undefined).length;

describe("agent_tools_search's detail", () => {
  let server: Connected;
  before(async () => {
    server = await connect(undefined, { AGENT_TOOLS_SEARCH_ENGINE: "bm25f" });
  });
  after(() => server.close());

  it("true adds the schemas; false, null or leaving it out keeps the short answer", async () => {
    const detailed = await callJson(server.client, "agent_tools_search", { query: "note", plugin: "notes", detail: true });
    assert.equal(detailed.isError, false, JSON.stringify(detailed.payload));
    assert.ok(withSchema(detailed.payload.hits as Hit[]) > 0, JSON.stringify(detailed.payload.hits));
    assert.equal(detailed.payload.repairs, undefined);
    for (const unset of [{}, { detail: false }, { detail: null }]) {
      const short = await callJson(server.client, "agent_tools_search", { query: "note", plugin: "notes", ...unset });
      assert.equal(short.isError, false, JSON.stringify(short.payload));
      assert.equal(withSchema(short.payload.hits as Hit[]), 0, JSON.stringify(unset));
      assert.equal(short.payload.repairs, undefined);
    }
  });

  it('the strings "true" and "false" are read as the booleans, and said in repairs', async () => {
    const yes = await callJson(server.client, "agent_tools_search", { query: "note", plugin: "notes", detail: "true" });
    assert.equal(yes.isError, false, JSON.stringify(yes.payload));
    assert.ok(withSchema(yes.payload.hits as Hit[]) > 0, "the schemas asked for are there");
    assert.deepEqual(yes.payload.repairs, [`'detail' was the string "true"; it was read as the boolean true`]);
    const no = await callJson(server.client, "agent_tools_search", { query: "note", plugin: "notes", detail: " False " });
    assert.equal(no.isError, false, JSON.stringify(no.payload));
    assert.equal(withSchema(no.payload.hits as Hit[]), 0);
    assert.deepEqual(no.payload.repairs, [`'detail' was the string " False "; it was read as the boolean false`]);
  });

  it("a value that is not a boolean is refused, naming it and how to send one", async () => {
    const cases: [unknown, string][] = [
      [1, "1"],
      ["yes", 'the string "yes"'],
      ["", "an empty string"],
      [[true], "an array"],
      [{ on: true }, "an object"],
    ];
    for (const [detail, got] of cases) {
      const { payload, isError } = await callJson(server.client, "agent_tools_search", { query: "note", detail });
      assert.equal(isError, true, JSON.stringify(detail));
      const error = payload.error as { code: string; message: string; details?: { errors?: unknown } };
      assert.equal(error.code, "ARG_VALIDATION_FAILED");
      assert.equal(error.message, `'detail' must be true or false; got ${got}. Send {"detail": true} to add each hit's input schema, or leave it out for the short answer`);
      assert.deepEqual(error.details?.errors, [{ path: "/detail", message: "must be a boolean" }]);
    }
  });
});
