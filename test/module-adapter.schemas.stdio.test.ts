import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { callJson, connect, writePlugin, type Connected } from "./helpers.js";

// A module adapter's tool list gets no SDK check before the runtime reads it: a tool whose
// inputSchema is no object schema is mended as an MCP server's is, and said under problems.

const ADAPTER = `
export default class ListerAdapter {
  async listTools() {
    return {
      tools: [
        { name: "ids", description: "Takes a list.", inputSchema: { type: "array", items: { type: "number" } } },
        { name: "untyped", description: "Properties without a type.", inputSchema: { properties: { n: { type: "number" } }, required: ["n"] } },
        { name: "plain", description: "A proper schema.", inputSchema: { type: "object", properties: { q: { type: "string" } } } },
      ],
    };
  }
  async call(name, args) {
    return { name, args };
  }
}
`;

describe("a module adapter's tool whose inputSchema is no object schema", () => {
  let server: Connected;
  before(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-module-schemas-"));
    writePlugin(path.join(dir, "agent-tools-plugin-lister"), { name: "lister", prefix: "lister", description: "Odd schemas (tests only)", adapter: "./adapter.mjs", requireConfirm: false }, { "adapter.mjs": ADAPTER });
    server = await connect(dir, { AGENT_TOOLS_CACHE_DIR: path.join(dir, "cache") });
  });
  after(() => server.close());

  it("is taken as {type: \"object\"}: it stays callable, its arguments unchecked, and help's problems say so", async () => {
    const called = await callJson(server.client, "agent_tools_lister_call", { toolName: "ids", arguments: { anything: [1, 2] } });
    assert.equal(called.isError, false, JSON.stringify(called.payload));
    assert.deepEqual(called.payload.result, { name: "ids", args: { anything: [1, 2] } });
    const help = await callJson(server.client, "agent_tools_help", { plugin: "lister" });
    assert.deepEqual(help.payload.problems, [`plugin 'lister': in its adapter's tool list, tool 'ids': its inputSchema has type "array", not "object", so it was taken as {"type": "object"} and the tool's arguments are not checked`]);
  });

  it("a schema with properties and no type gets the object type and keeps its checks, unreported", async () => {
    const refused = await callJson(server.client, "agent_tools_lister_call", { toolName: "untyped", arguments: {} });
    assert.equal(refused.payload.error?.code, "ARG_VALIDATION_FAILED", JSON.stringify(refused.payload));
    const called = await callJson(server.client, "agent_tools_lister_call", { toolName: "untyped", arguments: { n: 3 } });
    assert.equal(called.isError, false, JSON.stringify(called.payload));
    const plain = await callJson(server.client, "agent_tools_lister_call", { toolName: "plain", arguments: { q: 5 } });
    assert.equal(plain.payload.error?.code, "ARG_VALIDATION_FAILED", "a proper schema is still checked");
  });
});
