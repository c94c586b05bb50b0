import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { callJson, connect, FIXTURES } from "./helpers.js";

/**
 * Liberal in what the mcp adapter accepts: a downstream server whose initialize result lacks
 * serverInfo.version (or serverInfo altogether) is initialised once, listed and called.
 */

let dir: string;
before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-lax-"));
});
after(() => rmSync(dir, { recursive: true, force: true }));

for (const variant of [{ label: "without serverInfo.version", args: [] }, { label: "without serverInfo", args: ["--no-server-info"] }]) {
  describe(`a downstream server ${variant.label}`, () => {
    it("is listed and called after one initialize", async () => {
      const log = path.join(dir, `${variant.args.length ? "bare" : "noversion"}.log`);
      const config = path.join(dir, `${variant.args.length ? "bare" : "noversion"}.json`);
      writeFileSync(config, JSON.stringify({ mcpServers: { lax: { command: process.execPath, args: [path.join(FIXTURES, "mcp", "lax-handshake-server.mjs"), ...variant.args], env: { LAX_SERVER_LOG: log } } } }));
      const conn = await connect(path.join(dir, "no-plugins"), { AGENT_TOOLS_CONFIG: config });
      try {
        const search = await callJson(conn.client, "agent_tools_search", { query: "capitals shout" });
        assert.equal(search.payload.ok, true, JSON.stringify(search.payload));
        assert.equal(search.payload.unavailable, undefined, JSON.stringify(search.payload.unavailable));
        assert.deepEqual((search.payload.hits as { plugin: string; name: string }[]).map((h) => `${h.plugin}/${h.name}`), ["lax/shout"]);
        const discover = await callJson(conn.client, "agent_tools_lax_discover", {});
        assert.deepEqual((discover.payload.matches as { name: string }[]).map((m) => m.name), ["shout"]);
        const called = await callJson(conn.client, "agent_tools_lax_call", { toolName: "shout", arguments: { text: "hello" } });
        assert.equal(called.isError, false, JSON.stringify(called.payload));
        assert.equal(called.payload.result, "HELLO");
        assert.ok(existsSync(log));
        assert.equal(readFileSync(log, "utf8"), "initialize\n", "one handshake for the whole session");
        assert.doesNotMatch(conn.stderr(), /expected string, received undefined/);
      } finally {
        await conn.close();
      }
    });
  });
}

describe("a downstream server that answers initialize with the wrong id", () => {
  it("fails its start naming the answer that matched no request, a bug of the server, not as a server that did not answer", async () => {
    const config = path.join(dir, "wrong-id.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { lax: { command: process.execPath, args: [path.join(FIXTURES, "mcp", "lax-handshake-server.mjs"), "--wrong-init-id"], timeoutMs: 3000 } } }));
    const conn = await connect(path.join(dir, "no-plugins"), { AGENT_TOOLS_CONFIG: config });
    try {
      const discover = await callJson(conn.client, "agent_tools_lax_discover", {});
      const error = discover.payload.error as { code: string; message: string; hint: string };
      assert.equal(error.code, "UPSTREAM_ERROR", JSON.stringify(discover.payload));
      assert.match(error.message, /MCP server 'lax' did not finish starting within 3000 ms: it answered with id 1000, which matches no request of the handshake \(those had ids [^)]*\): a bug in the server, whose answer was dropped/);
      assert.match(error.hint, /answered the MCP handshake, but not with the id of the request .* a bug in the server/);
      assert.doesNotMatch(error.hint, /did not answer the MCP handshake|Run its command by hand/);
    } finally {
      await conn.close();
    }
  });
});
