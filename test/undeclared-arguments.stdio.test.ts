import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { CLI_FIXTURES } from "./fixtures/cli/helpers.js";
import { sendJson, startServer, type TestServer } from "./fixtures/rest/http-server.js";
import { callJson, connect, writePlugin, type Connected } from "./helpers.js";

// An argument a tool does not declare, over real stdio against a real local HTTP server and a real
// CLI program: a REST or CLI tool that has no place for it refuses the call naming it and the near
// parameter, and nothing is sent or run; a tool that carries extras passes it on and says so.

describe("undeclared arguments of REST and CLI tools", () => {
  let backend: TestServer;
  let server: Connected;
  before(async () => {
    backend = await startServer((req, res) => sendJson(res, 200, { method: req.method, url: req.url, body: req.body ? (JSON.parse(req.body) as unknown) : null }));
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-undeclared-"));
    const item = { type: "object", properties: { id: { type: "string" }, verbose: { type: "boolean" } }, required: ["id"] };
    writePlugin(path.join(dir, "agent-tools-plugin-rapi"), {
      name: "rapi",
      prefix: "rapi",
      description: "A REST service of items (tests only)",
      adapter: {
        kind: "rest",
        baseUrl: backend.url,
        tools: [
          { name: "get_item", path: "/items/{id}", query: ["verbose"], inputSchema: item },
          { name: "create_item", method: "POST", path: "/items", body: ["name", "count"], inputSchema: { type: "object", properties: { name: { type: "string" }, count: { type: "integer" } } } },
          // Built from parts: the schema cannot be closed, and the adapter refuses what it cannot carry.
          { name: "get_item_parts", path: "/items/{id}", query: ["verbose"], inputSchema: { allOf: [item] } },
          // Neither query nor body mapped: every other argument goes to the query string.
          { name: "find", path: "/find", inputSchema: { type: "object", properties: { q: { type: "string" } } } },
        ],
      },
    });
    writePlugin(path.join(dir, "agent-tools-plugin-cdemo"), {
      name: "cdemo",
      prefix: "cdemo",
      description: "A CLI over a fixture script (tests only)",
      adapter: {
        kind: "cli",
        program: "argv-json",
        allowlist: ["argv-json"],
        tools: [
          { name: "show", argv: ["show", "{repo}"], parse: "json", readonly: true, optional: { limit: ["--limit", "{limit}"] }, inputSchema: { type: "object", properties: { repo: { type: "string" }, limit: { type: "integer" } }, required: ["repo"] } },
        ],
      },
    });
    server = await connect(dir, { PATH: [CLI_FIXTURES, path.dirname(process.execPath), process.env.PATH ?? ""].join(path.delimiter) });
  });
  after(async () => {
    await server.close();
    await backend.close();
  });

  it("a REST query argument misspelt is refused naming the near parameter, and nothing is sent", async () => {
    const sent = backend.requests.length;
    const { payload, isError } = await callJson(server.client, "agent_tools_rapi_call", { toolName: "get_item", arguments: { id: "x", verbos: true } });
    assert.equal(isError, true);
    assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED", JSON.stringify(payload));
    assert.match(payload.error?.message ?? "", /\/verbos: unknown property 'verbos' is not allowed; did you mean 'verbose'\?/);
    assert.equal(payload.repairs, undefined, "no note says it was passed on");
    assert.equal(backend.requests.length, sent, "no request reached the server");
    // Spelt right, it reaches the query string.
    const right = await callJson(server.client, "agent_tools_rapi_call", { toolName: "get_item", arguments: { id: "x", verbose: true } });
    assert.equal((right.payload.result as { data: { url: string } }).data.url, "/items/x?verbose=true");
  });

  it("a REST body argument the tool does not map is refused, and nothing is sent", async () => {
    const sent = backend.requests.length;
    const { payload } = await callJson(server.client, "agent_tools_rapi_call", { toolName: "create_item", arguments: { name: "w", count: 2, extra: "z" }, confirm: true });
    assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED", JSON.stringify(payload));
    assert.match(payload.error?.message ?? "", /unknown property 'extra' is not allowed/);
    assert.equal(backend.requests.length, sent);
  });

  it("a schema built from parts is not closed, and the adapter refuses the argument it has no place for", async () => {
    const sent = backend.requests.length;
    const { payload } = await callJson(server.client, "agent_tools_rapi_call", { toolName: "get_item_parts", arguments: { id: "x", verbos: true } });
    assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED", JSON.stringify(payload));
    assert.match(payload.error?.message ?? "", /'verbos' is not a parameter of 'get_item_parts' \(it takes: id, verbose\); this tool's request has no place for it, and nothing was sent\. Did you mean 'verbose'\?/);
    assert.equal(payload.error?.details?.suggestion, "verbose");
    assert.equal(backend.requests.length, sent);
  });

  it("a REST tool that sends every other argument in its query passes it on and says so", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_rapi_call", { toolName: "find", arguments: { q: "a", page: 2 } });
    assert.equal(isError, false, JSON.stringify(payload));
    assert.equal((payload.result as { data: { url: string } }).data.url, "/find?q=a&page=2");
    assert.deepEqual(payload.repairs, ["'page' is not a parameter of 'find' (it takes: q); it was passed on as sent"]);
  });

  it("a CLI argument its argv has no place for is refused naming the near parameter, and nothing runs", async () => {
    const { payload } = await callJson(server.client, "agent_tools_cdemo_call", { toolName: "show", arguments: { repo: "a/b", limt: 3 } });
    assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED", JSON.stringify(payload));
    assert.match(payload.error?.message ?? "", /unknown property 'limt' is not allowed; did you mean 'limit'\?/);
    const right = await callJson(server.client, "agent_tools_cdemo_call", { toolName: "show", arguments: { repo: "a/b", limit: 3 } });
    assert.deepEqual((right.payload.result as { stdout: { argv: string[] } }).stdout.argv, ["show", "a/b", "--limit", "3"], JSON.stringify(right.payload));
  });
});
