import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { callJson, connect, FIXTURES, type Connected } from "./helpers.js";

/**
 * `params`, `input`, `args` and `parameters` sent next to toolName are read as `arguments` only
 * when the tool does not declare that key (over stdio, against the built server and the fixture
 * server test/fixtures/mcp/lax-handshake-server.mjs --alias-params, which answers what it received).
 */

const SERVER = path.join(FIXTURES, "mcp", "lax-handshake-server.mjs");
let dir: string;

for (const facadeMode of ["per-plugin", "compact"]) {
  describe(`a declared parameter named like 'arguments' (${facadeMode} facade)`, () => {
    let conn: Connected;
    before(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-aliases-"));
      const config = path.join(dir, "config.json");
      writeFileSync(config, JSON.stringify({ mcpServers: { lax: { command: process.execPath, args: [SERVER, "--alias-params"] } } }));
      conn = await connect(path.join(dir, "no-plugins"), { AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_CATALOG_CACHE: "off", AGENT_TOOLS_FACADE: facadeMode });
    });
    after(async () => {
      await conn.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const call = (request: Record<string, unknown>) =>
      facadeMode === "compact" ? callJson(conn.client, "agent_tools_call", { plugin: "lax", ...request }) : callJson(conn.client, "agent_tools_lax_call", request);

    it("sends `params` next to toolName as the tool's own `params`, not as its whole arguments", async () => {
      const { payload, isError } = await call({ toolName: "rpc", method: "m", params: { a: 1 } });
      assert.equal(isError, false, JSON.stringify(payload));
      assert.deepEqual(payload.result, { method: "m", params: { a: 1 } });
      assert.doesNotMatch(JSON.stringify(payload.repairs), /read as 'arguments'/);
    });

    it("sends a string `input` next to toolName as the tool's `input`", async () => {
      const { payload, isError } = await call({ toolName: "say", input: "hello" });
      assert.equal(isError, false, JSON.stringify(payload));
      assert.deepEqual(payload.result, { input: "hello" });
    });

    it("still reads an undeclared `input` as the arguments", async () => {
      const { payload, isError } = await call({ toolName: "rpc", input: { method: "m" } });
      assert.equal(isError, false, JSON.stringify(payload));
      assert.deepEqual(payload.result, { method: "m" });
      assert.match(JSON.stringify(payload.repairs), /'input' was read as 'arguments'/);
    });
  });
}
