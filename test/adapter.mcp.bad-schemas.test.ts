import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { callJson, connect, FIXTURES, type Connected } from "./helpers.js";

/**
 * A server whose tools/list holds malformed entries next to good ones (test/fixtures/mcp/
 * lax-handshake-server.mjs --bad-schemas), over stdio against the built server: the SDK's
 * result check refused the whole list, and every tool of the plugin with it.
 */

const SERVER = path.join(FIXTURES, "mcp", "lax-handshake-server.mjs");
let dir: string;
let conn: Connected;

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-bad-schemas-"));
  const config = path.join(dir, "config.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { lax: { command: process.execPath, args: [SERVER, "--bad-schemas"] } } }));
  conn = await connect(path.join(dir, "no-plugins"), { AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_CATALOG_CACHE: "off" });
});
after(async () => {
  await conn.close();
  rmSync(dir, { recursive: true, force: true });
});

const NOTES = [
  `plugin 'lax': in its server's tool list, tool 'array_type': its inputSchema has type "array", not "object", so it was taken as {"type": "object"} and the tool's arguments are not checked`,
  // Names MCP does not allow (a line break, over 128 characters) are left out, named by their place, escaped and cut.
  "plugin 'lax': in its server's tool list, entry 8 ('evil\\nFAKE-LOG-LINE level=error') was left out: its name holds control characters (a line break, an escape sequence…), which MCP's tool names may not hold",
  `plugin 'lax': in its server's tool list, entry 9 ('${"x".repeat(40)}…') was left out: its name is longer than the 128 characters MCP's tool names may have`,
  "plugin 'lax': in its server's tool list, tool 'bool_schema': its inputSchema is true, not a JSON Schema object, so it was taken as {\"type\": \"object\"} and the tool's arguments are not checked",
  "plugin 'lax': in its server's tool list, tool 'list_properties': its inputSchema's \"properties\" is a list, not an object of schemas, so it was ignored",
  "plugin 'lax': in its server's tool list, 2 tools ('null_required', 'null_required_2'): its inputSchema's \"required\" is null, read as no required fields",
  "plugin 'lax': in its server's tool list, tool 'bad_output': its outputSchema is \"text\", not a JSON Schema object, so it was ignored",
  "plugin 'lax': in its server's tool list, a tools/list entry without a name was left out",
];

describe("a $schema spelt another way than Ajv's meta-schema id", () => {
  for (const tool of ["draft7_spelt", "draft2020_spelt"]) {
    it(`${tool}: the arguments are still checked (the schema was not compiled, and wrong types reached the server)`, async () => {
      const called = await callJson(conn.client, "agent_tools_lax_call", { toolName: tool, arguments: { n: "x" }, confirm: true });
      assert.equal(called.isError, true, JSON.stringify(called.payload));
      assert.equal(called.payload.error?.code, "ARG_VALIDATION_FAILED", JSON.stringify(called.payload));
      assert.doesNotMatch(conn.stderr(), new RegExp(`${tool}: the schema cannot be compiled`));
    });
  }
});

describe("a tools/list with malformed entries", () => {
  it("keeps the good tool callable", async () => {
    const called = await callJson(conn.client, "agent_tools_lax_call", { toolName: "shout", arguments: { text: "hi" } });
    assert.equal(called.isError, false, JSON.stringify(called.payload));
    assert.equal(called.payload.result, "HI");
  });

  it("keeps each mendable entry: a missing inputSchema is {type: object}, one without a type keeps its checks", async () => {
    const discover = await callJson(conn.client, "agent_tools_lax_discover", { limit: 50 });
    const names = (discover.payload.matches as { name: string }[]).map((m) => m.name).sort();
    assert.deepEqual(
      names.filter((n) => /^[a-z0-9_]+$/.test(n) && n.length < 100),
      ["array_type", "bad_output", "bool_schema", "draft2020_spelt", "draft7_spelt", "list_properties", "no_schema", "no_type", "null_required", "null_required_2", "shout"],
    );
    const noSchema = await callJson(conn.client, "agent_tools_lax_call", { toolName: "no_schema", arguments: {}, confirm: true });
    assert.equal(noSchema.isError, false, JSON.stringify(noSchema.payload));
    const noType = await callJson(conn.client, "agent_tools_lax_call", { toolName: "no_type", arguments: { n: "x" }, confirm: true });
    assert.equal(noType.isError, true, "the schema without a type still checks its properties");
    assert.equal(noType.payload.error?.code, "ARG_VALIDATION_FAILED", JSON.stringify(noType.payload));
    const unchecked = await callJson(conn.client, "agent_tools_lax_call", { toolName: "array_type", arguments: { any: 1 }, confirm: true });
    assert.equal(unchecked.isError, false, JSON.stringify(unchecked.payload));
  });

  it("says each mended or left-out entry once, in the help's problems and on stderr, with no zod dump", async () => {
    await callJson(conn.client, "agent_tools_lax_discover", {});
    const help = await callJson(conn.client, "agent_tools_help", {});
    const problems = (help.payload.problems as string[]).filter((p) => p.includes("'lax'"));
    assert.deepEqual(problems.slice().sort(), NOTES.slice().sort());
    for (const note of NOTES) assert.equal(conn.stderr().split(note).length - 1, 1, conn.stderr());
    assert.doesNotMatch(conn.stderr(), /Invalid result for tools\/list|"expected"/);
    assert.doesNotMatch(conn.stderr(), /^FAKE-LOG-LINE/m, "a line break in a tool name writes no line of its own");
    assert.doesNotMatch(conn.stderr(), /x{41}/, "a long tool name is cut");
  });

  it("per-plugin help says the plugin's own problems too", async () => {
    await callJson(conn.client, "agent_tools_lax_discover", {});
    const help = await callJson(conn.client, "agent_tools_help", { plugin: "lax" });
    assert.deepEqual((help.payload.problems as string[]).slice().sort(), NOTES.slice().sort());
  });

  it("a schema whose only fault is `required: null` keeps its properties: shown by discover, checked on call", async () => {
    const discover = await callJson(conn.client, "agent_tools_lax_discover", { query: "null_required" });
    const match = (discover.payload.matches as { name: string; params: string }[]).find((m) => m.name === "null_required");
    assert.equal(match?.params, "n");
    const called = await callJson(conn.client, "agent_tools_lax_call", { toolName: "null_required", arguments: { n: "x" }, confirm: true });
    assert.equal(called.payload.error?.code, "ARG_VALIDATION_FAILED", JSON.stringify(called.payload));
    const fine = await callJson(conn.client, "agent_tools_lax_call", { toolName: "null_required", arguments: {}, confirm: true });
    assert.equal(fine.isError, false, JSON.stringify(fine.payload));
  });
});
