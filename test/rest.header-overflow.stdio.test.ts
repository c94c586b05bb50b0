import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { sendJson, startServer, type TestServer } from "./fixtures/rest/http-server.js";
import { callJson, connect, writePlugin, type Connected } from "./helpers.js";

// A REST service answering with more header bytes than Node reads (one 64 KB header, or 5,000
// short ones) failed as "fetch failed: UND_ERR_HEADERS_OVERFLOW", under the generic hint to fix
// the arguments. Through the built server over stdio: the message says the service's headers are
// over Node's limit (16 KiB in all, node's --max-http-header-size), and the hint that changing the
// arguments will not help.

let backend: TestServer;
const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-header-overflow-"));

before(async () => {
  backend = await startServer((req, res) => {
    if (req.url === "/big") return sendJson(res, 200, { ok: "big" }, { "x-big": "a".repeat(64 * 1024) });
    if (req.url === "/many") return sendJson(res, 200, { ok: "many" }, Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`x-h${i}`, "v"])));
    // Under the limit with the status line and the other headers.
    return sendJson(res, 200, { ok: "near" }, { "x-near": "a".repeat(15 * 1024) });
  });
  writePlugin(path.join(dir, "agent-tools-plugin-heady"), {
    name: "heady",
    prefix: "heady",
    description: "A service with oversized headers (tests only)",
    adapter: { kind: "rest", baseUrl: backend.url, tools: [{ name: "get", method: "GET", path: "/{p}", readonly: true }] },
  });
});
after(async () => {
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a REST service answering with headers over Node's limit", () => {
  let server: Connected;
  before(async () => {
    server = await connect(dir);
  });
  after(() => server.close());

  for (const [p, what] of [
    ["big", "one header of 64 KB"],
    ["many", "5,000 headers"],
  ]) {
    it(`${what}: the error says the service's headers are over the 16 KiB limit, and that arguments will not help`, async () => {
      const { payload, isError } = await callJson(server.client, "agent_tools_heady_call", { toolName: "get", arguments: { p } });
      assert.equal(isError, true);
      assert.equal(payload.error?.code, "UPSTREAM_ERROR", JSON.stringify(payload));
      assert.equal(payload.error?.message, `tool 'heady/get' failed: GET /${p} failed: the service answered with headers over Node's 16 KiB limit (the status line and all headers together; UND_ERR_HEADERS_OVERFLOW), so its answer could not be read`);
      assert.match(payload.error?.hint ?? "", /^Changing the arguments will not help: .*tell the user\. Node's --max-http-header-size \(in NODE_OPTIONS where the agent-tools server starts\) raises the limit/);
      assert.deepEqual(payload.error?.details, { code: "UND_ERR_HEADERS_OVERFLOW", maxHeaderBytes: 16_384 });
    });
  }

  it("15 KB of headers are read", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_heady_call", { toolName: "get", arguments: { p: "near" } });
    assert.equal(isError, false, JSON.stringify(payload));
  });
});

describe("the limit node's --max-http-header-size sets", () => {
  let server: Connected;
  before(async () => {
    server = await connect(dir, {}, ["--max-http-header-size=131072"]);
  });
  after(() => server.close());

  it("a server started with 128 KiB reads the 64 KB header", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_heady_call", { toolName: "get", arguments: { p: "big" } });
    assert.equal(isError, false, JSON.stringify(payload));
    assert.match(JSON.stringify(payload.result), /"big"/);
  });
});
