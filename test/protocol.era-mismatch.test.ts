import assert from "node:assert/strict";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { writePlugin } from "./helpers.js";
import { startHttp, type RunningHttp } from "./http-helpers.js";
import { lineServer, type LineServer } from "./stdio-lines.js";
import { MODERN, V2_DOWNSTREAM_ARGS } from "./v2-helpers.js";

/**
 * Requests of the wrong era: over stdio the first request other than server/discover fixes the
 * era, and a request of the other era after that is refused naming the mismatch and the fix,
 * with nothing run (README "Protocol"). A discover without the envelope, or an envelope naming a
 * 2025 version, says so over stdio and HTTP.
 */

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "probe", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
};
const INITIALIZE = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "probe", version: "0" } };

const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-era-mismatch-"));
const writes = path.join(dir, "writes.log");
writePlugin(path.join(dir, "plugins", "agent-tools-plugin-db"), {
  name: "db",
  prefix: "db",
  description: "A table store.",
  adapter: { kind: "mcp", command: process.execPath, args: [...V2_DOWNSTREAM_ARGS], env: { V2_WRITE_LOG: writes }, timeoutMs: 30_000 },
});
const ENV = { AGENT_TOOLS_PLUGINS_DIR: path.join(dir, "plugins") };
const WRITE = { name: "agent_tools_db_call", arguments: { toolName: "write_row", arguments: { table: "t", value: "1" } } };

describe("stdio: server/discover then initialize makes a 2025-era connection", () => {
  let server: LineServer;
  before(() => (server = lineServer(ENV)));
  after(() => server.close());

  it("discover is a probe: initialize after it is the 2025 handshake", async () => {
    assert.ok((await server.request(1, "server/discover", { _meta: ENVELOPE })).result?.supportedVersions);
    const init = await server.request(2, "initialize", INITIALIZE);
    assert.equal(init.result?.protocolVersion, "2025-11-25", JSON.stringify(init));
    server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  });

  it("a 2026-07-28 write on it is refused with a JSON-RPC error naming the mismatch and the fix; nothing runs", async () => {
    const answer = await server.request(3, "tools/call", { ...WRITE, _meta: ENVELOPE });
    assert.equal(answer.error?.code, -32022, JSON.stringify(answer));
    assert.match(answer.error.message, /this connection is in the 2025 era/);
    assert.match(answer.error.message, /without the io\.modelcontextprotocol\/ keys of _meta, or start a new connection/);
    assert.doesNotMatch(answer.error.message, /did not declare/);
    assert.equal(existsSync(writes), false, "the write must not have run");
  });

  it("a server/discover on it says the same", async () => {
    const answer = await server.request(4, "server/discover", { _meta: ENVELOPE });
    assert.equal(answer.error?.code, -32022, JSON.stringify(answer));
    assert.match(answer.error.message, /server\/discover names "2026-07-28".*2025 era/);
  });

  it("2025-era requests on it are served as before", async () => {
    const answer = await server.request(5, "tools/call", WRITE);
    const payload = JSON.parse((answer.result?.content as { text: string }[])[0]!.text) as { error: { code: string } };
    assert.equal(payload.error.code, "CONFIRM_REQUIRED");
  });
});

describe("stdio: a 2026-07-28 request fixes the era", () => {
  let server: LineServer;
  before(() => (server = lineServer(ENV)));
  after(() => server.close());

  it("initialize after it is refused saying why and what to do", async () => {
    assert.ok((await server.request(1, "server/discover", { _meta: ENVELOPE })).result);
    assert.ok((await server.request(2, "tools/list", { _meta: ENVELOPE })).result?.tools);
    const init = await server.request(3, "initialize", INITIALIZE);
    assert.equal(init.error?.code, -32022, JSON.stringify(init));
    assert.match(init.error.message, /this connection is in the 2026-07-28 era, so initialize .*2025-11-25.* is refused/);
    assert.match(init.error.message, /start a new connection that opens with initialize/);
    assert.ok((await server.request(4, "tools/list", { _meta: ENVELOPE })).result?.tools, "the connection goes on in its era");
  });
});

describe("stdio: server/discover without the envelope", () => {
  let server: LineServer;
  before(() => (server = lineServer(ENV)));
  after(() => server.close());

  it("is answered -32602 naming the missing envelope, and fixes no era", async () => {
    for (const [id, params] of [[1, undefined], [2, {}], [3, { _meta: {} }]] as const) {
      const answer = await server.request(id, "server/discover", params);
      assert.equal(answer.error?.code, -32602, JSON.stringify(answer));
      assert.match(answer.error.message, /server\/discover is a request of protocol revision 2026-07-28, and it is missing the required per-request envelope/);
      assert.match(answer.error.message, /A 2025-era client opens with initialize instead/);
    }
    assert.deepEqual((await server.request(4, "server/discover", {})).error?.data, { envelope: { missing: ["_meta"] } });
    // Nothing was fixed: a modern discover and a modern request are still served as such.
    assert.ok((await server.request(5, "server/discover", { _meta: ENVELOPE })).result?.supportedVersions);
    assert.ok((await server.request(6, "tools/list", { _meta: ENVELOPE })).result?.tools);
  });

  it("an envelope naming a 2025 version says that era opens with initialize", async () => {
    const answer = await server.request(7, "server/discover", { _meta: { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2025-11-25" } });
    assert.equal(answer.error?.code, -32022, JSON.stringify(answer));
    assert.match(answer.error.message, /2025-11-25 is a 2025-era version: that era opens with initialize/);
    assert.deepEqual((answer.error.data as { requested: string }).requested, "2025-11-25");
  });

  it("an envelope naming a date that is no version (of neither era) is told the versions this server speaks, not to initialize with it", async () => {
    for (const [id, version] of [[8, "2026-07-27"], [9, "1999-01-01"]] as const) {
      const answer = await server.request(id, "server/discover", { _meta: { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": version } });
      assert.equal(answer.error?.code, -32022, JSON.stringify(answer));
      assert.match(answer.error.message, new RegExp(`${version} is not a protocol version this server speaks: it speaks 2026-07-28, and the 2025 era's 2025-11-25, 2025-06-18, .*2024-11-05`));
      assert.doesNotMatch(answer.error.message, /is a 2025-era version|initialize \{"protocolVersion"/);
      assert.deepEqual((answer.error.data as { requested: string }).requested, version);
    }
  });
});

describe("HTTP: server/discover without the envelope, or naming a 2025 version", () => {
  let http: RunningHttp;
  before(async () => (http = await startHttp()));
  after(() => http.stop());
  const post = async (params: unknown): Promise<{ status: number; body: { error?: { code: number; message: string } } }> => {
    const response = await fetch(http.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", ...(params !== undefined ? { params } : {}) }),
    });
    return { status: response.status, body: (await response.json()) as { error?: { code: number; message: string } } };
  };

  it("answers as stdio does", async () => {
    const missing = await post({});
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error?.code, -32602);
    assert.match(missing.body.error.message, /missing the required per-request envelope/);
    const earlier = await post({ _meta: { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2025-06-18" } });
    assert.equal(earlier.status, 400);
    assert.equal(earlier.body.error?.code, -32022);
    assert.match(earlier.body.error.message, /2025-06-18 is a 2025-era version: that era opens with initialize/);
  });
});
