import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { callJson, connect, type Connected, type Payload } from "./helpers.js";

/**
 * The `limit` of _discover and agent_tools_search, and `discover --limit` in agent_tools_exec,
 * over real stdio with the SDK client: what models send that can mean a count is repaired (and
 * said in `repairs`), the rest is refused naming the value, the same way in both layers.
 */

interface ErrorPayload {
  code: string;
  message: string;
  hint: string;
  details?: { errors?: { path: string; message: string }[] };
}

describe("discover and search limit", () => {
  let server: Connected;
  before(async () => {
    // BM25F only: these tests count entries, and the model's load would only slow them.
    server = await connect(undefined, { AGENT_TOOLS_SEARCH_ENGINE: "bm25f" });
  });
  after(() => server.close());

  it("a number sent as a string is read as that number, and said in repairs", async () => {
    const discover = await callJson(server.client, "agent_tools_notes_discover", { limit: "2" });
    assert.equal(discover.isError, false);
    assert.equal(discover.payload.shown, 2);
    assert.deepEqual(discover.payload.repairs, [`'limit' was the string "2"; it was read as the number 2`]);
    const search = await callJson(server.client, "agent_tools_search", { query: "note", limit: " 1 " });
    assert.equal(search.isError, false);
    assert.equal((search.payload.hits as unknown[]).length, 1);
    assert.deepEqual(search.payload.repairs, [`'limit' was the string " 1 "; it was read as the number 1`]);
  });

  it("a limit over the most shown asks for the most, said in repairs; null is not given", async () => {
    const over = await callJson(server.client, "agent_tools_notes_discover", { limit: 500 });
    assert.equal(over.isError, false);
    assert.deepEqual(over.payload.repairs, ["'limit' 500 is over the most an answer shows; 50 were asked for"]);
    const unset = await callJson(server.client, "agent_tools_notes_discover", { limit: null });
    assert.equal(unset.isError, false);
    assert.equal(unset.payload.repairs, undefined);
  });

  it("what cannot be a count is refused, naming the value and how to send it", async () => {
    const cases: [unknown, string][] = [
      ["ten", 'the string "ten"'],
      [0, "0"],
      [-3, "-3"],
      [2.5, "2.5"],
      ["2.5", 'the string "2.5"'],
      [true, "true"],
      [{ n: 5 }, "an object"],
    ];
    for (const [tool, defaultLimit, extra] of [
      ["agent_tools_notes_discover", 5, {}],
      ["agent_tools_search", 10, { query: "note" }],
    ] as const) {
      for (const [limit, got] of cases) {
        const { payload, isError } = await callJson(server.client, tool, { ...extra, limit });
        assert.equal(isError, true, `${tool} ${JSON.stringify(limit)}`);
        const error = payload.error as ErrorPayload;
        assert.equal(error.code, "ARG_VALIDATION_FAILED");
        assert.equal(error.message, `'limit' must be a whole number from 1 to 50; got ${got}. Send e.g. {"limit": 5}, or leave it out for the default ${defaultLimit}`);
        assert.deepEqual(error.details?.errors, [{ path: "/limit", message: "must be a whole number from 1 to 50" }]);
        assert.match(error.hint, /details\.errors/);
      }
    }
  });

  it("agent_tools_exec's discover --limit reads the value the same way; every refusal of its words is prefixed 'notes discover'", async () => {
    const exec = async (command: string) => (await callJson(server.client, "agent_tools_exec", { command })).payload as Payload & { exitCode: number; stdout: string; stderr: string };
    const repaired = await exec(`notes discover --limit '"2"' | jq -c '[.shown, .repairs]'`);
    assert.equal(repaired.stdout, `[2,["'limit' was the string \\"2\\"; it was read as the number 2"]]\n`, repaired.stderr);
    const refused = await exec(`notes discover --limit '"2.5"'`);
    assert.equal(refused.exitCode, 2);
    assert.match(refused.stderr, /^notes discover: --limit needs a whole number from 1 to 50, e\.g\. --limit 5 \(got the string "2\.5"\)\n/);
    const word = await exec("notes discover note --limit ten");
    assert.match(word.stderr, /^notes discover: --limit needs a whole number from 1 to 50, e\.g\. --limit 5 \(got the string "ten"\)\n/);
    const flag = await exec("notes discover --confirm=true");
    assert.equal(flag.exitCode, 2);
    assert.match(flag.stderr, /^notes discover: --confirm takes no value/);
  });
});
