import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { callJson, connect, writePlugin, type Connected } from "./helpers.js";

/**
 * agent_tools_search's `detail`, over real stdio with the SDK client: true adds each tool hit's
 * input schema; the strings "true" and "false" are read as the booleans and said in `repairs`;
 * anything else that is not a boolean is refused naming the value, not read as false without a word;
 * a detail answer over big schemas is kept under its own budget (3,000 tokens), saying what was left out.
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

// 30 tools of about 400 tokens of schema each: 50 hits with every schema would pass 12,000 tokens.
const BIG_SCHEMAS = `
const properties = Object.fromEntries(Array.from({ length: 12 }, (_, i) => ["field_" + i, { type: "string", description: "The widget's setting number " + i + ", said in a sentence long enough to cost tokens" }]));
export class WidgetAdapter {
  async listTools() {
    return { tools: Array.from({ length: 30 }, (_, i) => ({ name: "widget_tool_" + i, description: "Work on widgets, way " + i, inputSchema: { type: "object", properties, required: ["field_0"] } })) };
  }
  async call(name) { return { ran: name }; }
}
`;

describe("agent_tools_search's detail budget", () => {
  let server: Connected;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "agent-tools-detail-budget-"));
    writePlugin(path.join(dir, "agent-tools-plugin-widgets"), { name: "widgets", prefix: "widgets", description: "Widgets (tests only)", adapter: "./adapter.mjs", adapterExport: "WidgetAdapter" }, { "adapter.mjs": BIG_SCHEMAS });
    server = await connect(dir, { AGENT_TOOLS_SEARCH_ENGINE: "bm25f" });
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps a detail answer under 3,000 tokens, dropping the lowest hits and saying how many and what to ask", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_search", { query: "widgets", detail: true, limit: 50 });
    assert.equal(isError, false, JSON.stringify(payload).slice(0, 500));
    const tokens = countTokens(JSON.stringify(payload));
    assert.ok(tokens <= 3000, `a detail answer of ${tokens} tokens`);
    const hits = payload.hits as Hit[];
    assert.ok(hits.length > 1 && hits.length < 30, `${hits.length} hits shown`);
    assert.equal(withSchema(hits), hits.length, "every hit shown keeps its whole schema");
    assert.equal(payload.total, 30);
    assert.equal(payload.shown, hits.length);
    assert.equal(payload.more, `${30 - hits.length} more; ask without detail to list them, or refine the query (answers are kept under 2980 tokens)`);
    // Without detail the same search lists more of them, under the short budget.
    const short = await callJson(server.client, "agent_tools_search", { query: "widgets", limit: 50 });
    assert.ok((short.payload.hits as Hit[]).length > hits.length);
    assert.ok(countTokens(JSON.stringify(short.payload)) <= 800);
  });
});
