import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { eventually, raw, rawInitialize, sessionHeaders, startHttp, type RunningHttp } from "./http-helpers.js";

/**
 * The HTTP server loads what first requests would otherwise wait for (the search model in its
 * thread and the catalog's embeddings, the shell, the tokenizer) once it listens (issue #15: under
 * 200 sessions the first wave of searches and command lines waited 8-12 s for these).
 */

const WARMED = /warm-up done in (\d+) ms/;

async function callTool(server: RunningHttp, session: string, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const answer = await raw(server.url, { headers: sessionHeaders(session), body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name, arguments: args } }) });
  assert.equal(answer.status, 200, answer.body);
  const result = answer.json().result as { isError?: boolean; content: { text: string }[] };
  assert.notEqual(result.isError, true, answer.body);
  return JSON.parse(result.content[0]!.text) as Record<string, unknown>;
}

describe("HTTP warm-up", () => {
  let server: RunningHttp;
  // The search waits for the catalog's embedding (listed by that search itself), not the default
  // 250 ms: what is checked is that the model was loaded by the warm-up, on a possibly loaded machine.
  before(async () => (server = await startHttp({ AGENT_TOOLS_WARM_UP: "on", AGENT_TOOLS_LOG: "debug", AGENT_TOOLS_SEMANTIC_WAIT_MS: "ready" })));
  after(async () => server.stop());

  it("loads the model, the shell and the tokenizer once it listens, serving meanwhile, with stdout clean", async () => {
    // Served while warming up.
    const session = await rawInitialize(server.url);
    const note = await callTool(server, session, "agent_tools_notes_call", { toolName: "get_note", arguments: { id: "n1" } });
    assert.ok(note, "a call is answered during the warm-up");
    // Generous: the model's first load takes seconds on a loaded machine.
    await eventually(() => WARMED.test(server.stderr()), "the warm-up line", 180_000);
    assert.doesNotMatch(server.stderr(), /warm-up: could not load/);
    const found = await callTool(server, session, "agent_tools_search", { query: "find notes by text" });
    assert.equal(found.notice, undefined, `the first search after the warm-up ranks with the model: ${JSON.stringify(found.notice)}`);
  });
});

describe("HTTP warm-up off", () => {
  let server: RunningHttp;
  before(async () => (server = await startHttp({ AGENT_TOOLS_WARM_UP: "off", AGENT_TOOLS_LOG: "debug" })));
  after(async () => server.stop());

  it("AGENT_TOOLS_WARM_UP=off leaves the loading to the first request that needs it", async () => {
    const session = await rawInitialize(server.url);
    await callTool(server, session, "agent_tools_help", {});
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.doesNotMatch(server.stderr(), WARMED);
  });
});
