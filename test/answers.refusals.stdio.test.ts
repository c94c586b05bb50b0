import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { sendJson, startServer, type Recorded, type TestServer } from "./fixtures/rest/http-server.js";
import { callJson, connect, FIXTURES, writePlugin, type Connected, type Payload } from "./helpers.js";
import { headWithinJsonString } from "../src/runtime/json-string-head.js";

/**
 * What the model is told when a service refuses a call, over real stdio with the SDK client
 * against the built server: an OpenAPI plugin on a real local HTTP service, a REST plugin whose
 * body is its `body` argument, and an MCP stdio server whose tool answers an error result. A 4xx
 * gets the hint that fits it (look the id up, read the state, fix the argument, tell the user),
 * never "the service failed"; the same refusal three times is a loop; a 429 or a rate-limited 403
 * is never one. Also: search's error names the plugin sent, a body sent one level off is moved
 * where the tool takes it, and a cut result fits the cap as the model receives it.
 */

const SERVICE_FAILED = /service behind this plugin failed/;

/** One item with a little stock, and a long list whose JSON is full of quotes (for the cut). */
const stock: Record<string, number> = { "XYZ-1": 3 };
const BIG = { items: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `item "${i}"`, note: 'a \\ "quoted" note' })) };

function handle(req: Recorded, res: Parameters<typeof sendJson>[0]): void {
  const url = new URL(req.url, "http://x");
  const item = /^\/api\/items\/([^/]+)$/.exec(url.pathname);
  if (item) {
    const sku = decodeURIComponent(item[1] ?? "");
    if (req.method === "PUT") {
      stock[sku] = (JSON.parse(req.body) as { stock: number }).stock;
      return sendJson(res, 201, { sku, stock: stock[sku] });
    }
    if (!(sku in stock)) return sendJson(res, 404, { error: `item ${sku} does not exist` });
    if (req.method === "GET") return sendJson(res, 200, { sku, stock: stock[sku] });
    const { delta } = JSON.parse(req.body) as { delta: number };
    const now = stock[sku] ?? 0;
    if (now + delta < 0) return sendJson(res, 409, { error: `stock would go negative (${now} + ${delta})` });
    stock[sku] = now + delta;
    return sendJson(res, 200, { sku, stock: stock[sku] });
  }
  switch (url.pathname) {
    case "/api/tasks": {
      const { due } = JSON.parse(req.body) as { due?: string };
      if (due !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(due)) return sendJson(res, 422, { error: "field 'due' must be a date YYYY-MM-DD" });
      return sendJson(res, 201, { id: 1 });
    }
    case "/api/private":
      return sendJson(res, 403, { error: "this account may not read the audit trail" });
    case "/api/busy":
      return sendJson(res, 429, { error: "slow down" }, { "retry-after": "1" });
    case "/api/limited":
      return sendJson(res, 403, { message: "API rate limit exceeded" }, { "x-ratelimit-remaining": "0" });
    case "/api/big":
      return sendJson(res, 200, BIG);
    case "/api/memos":
      return sendJson(res, 201, { saved: JSON.parse(req.body) as unknown });
    default:
      return sendJson(res, 404, { error: "no such route" });
  }
}

const json = (schema: Record<string, unknown>) => ({ content: { "application/json": { schema } } });
const SPEC = {
  openapi: "3.0.0",
  info: { title: "shop", version: "1" },
  paths: {
    "/items/{sku}": {
      parameters: [{ name: "sku", in: "path", required: true, schema: { type: "string" } }],
      get: { operationId: "getItem", responses: {} },
      put: { operationId: "addItem", requestBody: { required: true, ...json({ type: "object", properties: { stock: { type: "integer" } }, required: ["stock"] }) }, responses: {} },
      patch: {
        operationId: "adjustStock",
        requestBody: { required: true, ...json({ type: "object", properties: { delta: { type: "integer" }, reason: { type: "string" } }, required: ["delta"] }) },
        responses: {},
      },
    },
    "/tasks": { post: { operationId: "createTask", requestBody: json({ type: "object", properties: { title: { type: "string" }, due: { type: "string" } }, required: ["title"] }), responses: {} } },
    "/private": { get: { operationId: "readAudit", responses: {} } },
    "/busy": { get: { operationId: "busy", responses: {} } },
    "/limited": { get: { operationId: "limited", responses: {} } },
    "/big": { get: { operationId: "bigList", responses: {} } },
  },
};

let service: TestServer;
let dir: string;
let plugins: string;
let config: string;

before(async () => {
  service = await startServer(handle);
  dir = mkdtempSync(path.join(os.tmpdir(), "answers-refusals-"));
  plugins = path.join(dir, "plugins");
  writePlugin(path.join(plugins, "agent-tools-plugin-shop"), { name: "shop", prefix: "shop", description: "a shop's stock and tasks", adapter: { kind: "openapi", spec: "./spec.json", baseUrl: `${service.url}/api` } }, { "spec.json": JSON.stringify(SPEC) });
  writePlugin(path.join(plugins, "agent-tools-plugin-memo"), {
    name: "memo",
    prefix: "memo",
    description: "memos whose body is one argument",
    adapter: {
      kind: "rest",
      baseUrl: `${service.url}/api`,
      tools: [
        {
          name: "add_memo",
          method: "POST",
          path: "/memos",
          bodyArg: "body",
          inputSchema: {
            type: "object",
            properties: { body: { type: "object", properties: { title: { type: "string" }, text: { type: "string" } }, required: ["title"], additionalProperties: false } },
            required: ["body"],
            additionalProperties: false,
          },
        },
      ],
    },
  });
  // A CLI plugin whose program answers with an error of its own (exit 128, as git's "unknown revision").
  const fail = path.join(FIXTURES, "cli", "fail");
  writePlugin(path.join(plugins, "agent-tools-plugin-vcs"), {
    name: "vcs",
    prefix: "vcs",
    description: "a version control CLI",
    adapter: { kind: "cli", program: fail, allowlist: [fail], tools: [{ name: "show", argv: ["128", "unknown revision {rev}"], readonly: true }] },
  });
  config = path.join(dir, "agent-tools.config.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { jot: { command: process.execPath, args: [path.join(FIXTURES, "mcp", "stdio-server.mjs"), "--echo-as", "error"] } } }));
});
after(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

const requestsTo = (method: string, pathname: string): number => service.requests.filter((r) => r.method === method && new URL(r.url, "http://x").pathname === pathname).length;

/** The error of an answer that must be one. */
function errorOf(answer: { payload: Payload; isError: boolean }): NonNullable<Payload["error"]> {
  assert.equal(answer.isError, true, JSON.stringify(answer.payload));
  return answer.payload.error ?? assert.fail(JSON.stringify(answer.payload));
}

describe("a service's refusal, as the model is told it", () => {
  let server: Connected;
  before(async () => {
    server = await connect(plugins, { AGENT_TOOLS_CONFIG: config });
  });
  after(() => server.close());
  const shop = (toolName: string, args: Record<string, unknown>, confirm = false) => callJson(server.client, "agent_tools_shop_call", { toolName, arguments: args, ...(confirm ? { confirm } : {}) });

  it("404: the id does not exist, look it up first; the same call a third time is LOOP_DETECTED and is not sent", async () => {
    const first = errorOf(await shop("getItem", { sku: "NOPE" }));
    assert.equal(first.code, "UPSTREAM_ERROR");
    assert.match(first.message, /answered HTTP 404: \{"error":"item NOPE does not exist"\}/);
    assert.deepEqual(first.details, { status: 404 });
    assert.match(first.hint, /working and has nothing at what this call names \(HTTP 404\): an id, name or path in the arguments does not exist/);
    assert.match(first.hint, /Look it up first with one of this plugin's list, search or get tools/);
    assert.doesNotMatch(first.hint, SERVICE_FAILED);

    assert.equal(errorOf(await shop("getItem", { sku: "NOPE" })).code, "UPSTREAM_ERROR");
    const third = errorOf(await shop("getItem", { sku: "NOPE" }));
    assert.equal(third.code, "LOOP_DETECTED");
    assert.match(third.message, /failed 2 times in a row with UPSTREAM_ERROR \(HTTP 404\)/);
    assert.deepEqual(third.details, { previousError: "UPSTREAM_ERROR", previousStatus: 404, attempts: 3 });
    assert.equal(requestsTo("GET", "/api/items/NOPE"), 2, "the third call was not sent");

    const fixed = await shop("getItem", { sku: "XYZ-1" });
    assert.equal(fixed.isError, false, JSON.stringify(fixed.payload));
  });

  it("a write that succeeds clears its plugin's counted refusals: the read it made valid runs (not LOOP_DETECTED)", async () => {
    // The probe's sequence: the item is not there twice, the agent adds it, and reads it again.
    for (let i = 0; i < 2; i++) assert.equal(errorOf(await shop("getItem", { sku: "NEW-1" })).details?.status, 404);
    const added = await shop("addItem", { sku: "NEW-1", stock: 5 }, true);
    assert.equal(added.isError, false, JSON.stringify(added.payload));
    const read = await shop("getItem", { sku: "NEW-1" });
    assert.equal(read.isError, false, JSON.stringify(read.payload));
    assert.deepEqual((read.payload.result as { data: unknown }).data, { sku: "NEW-1", stock: 5 });
    assert.equal(requestsTo("GET", "/api/items/NEW-1"), 3, "the read after the write was sent");

    // A read that succeeds changes nothing: the refused call is still a loop on its third try.
    for (let i = 0; i < 2; i++) errorOf(await shop("getItem", { sku: "GONE-1" }));
    assert.equal((await shop("getItem", { sku: "XYZ-1" })).isError, false);
    assert.equal(errorOf(await shop("getItem", { sku: "GONE-1" })).code, "LOOP_DETECTED");
    // Nor does a write to another plugin: its data is not this one's.
    assert.equal((await callJson(server.client, "agent_tools_memo_call", { toolName: "add_memo", arguments: { body: { title: "x" } }, confirm: true })).isError, false);
    assert.equal(errorOf(await shop("getItem", { sku: "GONE-1" })).code, "LOOP_DETECTED");
    // A write refused by the schema (nothing sent) clears nothing either; the next write that succeeds does.
    assert.equal(errorOf(await shop("addItem", { sku: "GONE-2", stock: "many" }, true)).code, "ARG_VALIDATION_FAILED");
    assert.equal(errorOf(await shop("getItem", { sku: "GONE-1" })).code, "LOOP_DETECTED");
    assert.equal((await shop("addItem", { sku: "GONE-1", stock: 1 }, true)).isError, false);
    assert.equal((await shop("getItem", { sku: "GONE-1" })).isError, false);
    assert.equal(requestsTo("GET", "/api/items/GONE-1"), 3, "two refusals, then the read after the write");
  });

  it("409: the data's current state refused it, read it first", async () => {
    const error = errorOf(await shop("adjustStock", { sku: "XYZ-1", delta: -10 }, true));
    assert.match(error.message, /HTTP 409: \{"error":"stock would go negative \(3 \+ -10\)"\}/);
    assert.deepEqual(error.details, { status: 409 });
    assert.match(error.hint, /refused the call because of the data's current state \(HTTP 409, a conflict\)/);
    assert.match(error.hint, /Read the current state first/);
    assert.doesNotMatch(error.hint, SERVICE_FAILED);
  });

  it("422: fix the argument the message names", async () => {
    const error = errorOf(await shop("createTask", { title: "Pay rent", due: "tomorrow" }, true));
    assert.match(error.message, /HTTP 422: \{"error":"field 'due' must be a date YYYY-MM-DD"\}/);
    assert.match(error.hint, /^The service is working and refused the call's arguments \(HTTP 422\)\. Fix the argument `message` names/);
    assert.doesNotMatch(error.hint, SERVICE_FAILED);
    const fixed = await shop("createTask", { title: "Pay rent", due: "2030-01-31" }, true);
    assert.equal(fixed.isError, false, JSON.stringify(fixed.payload));
  });

  it("403 with no credentials configured: tell the user, do not retry", async () => {
    const error = errorOf(await shop("readAudit", {}));
    assert.deepEqual(error.details, { status: 403 });
    assert.match(error.hint, /refused the credentials or this account's permissions \(HTTP 403\); the arguments are not at fault\. Tell the user/);
    assert.match(error.hint, /do not send the call again/);
  });

  it("429 and a rate-limited 403 are waits, never a loop: the third identical call is sent", async () => {
    for (const [tool, route] of [["busy", "/api/busy"], ["limited", "/api/limited"]] as const) {
      const errors = [];
      for (let i = 0; i < 3; i++) errors.push(errorOf(await shop(tool, {})));
      for (const error of errors) {
        assert.equal(error.code, "UPSTREAM_ERROR", tool);
        assert.match(error.hint, /is rate limiting these calls/, tool);
      }
      assert.equal(requestsTo("GET", route), 3, `${tool}: every call was sent`);
    }
    const busy = errorOf(await shop("busy", {}));
    assert.deepEqual(busy.details, { status: 429, retryAfterSeconds: 1 });
    const limited = errorOf(await shop("limited", {}));
    assert.deepEqual(limited.details, { status: 403, rateLimited: true });
    assert.match(limited.hint, /\(HTTP 403\).*Wait a few seconds/);
  });

  it("an MCP tool's own error result: fix the id or argument it names; not 'the service failed'", async () => {
    const error = errorOf(await callJson(server.client, "agent_tools_jot_call", { toolName: "echo", arguments: { text: "note 99 not found" } }));
    assert.equal(error.code, "UPSTREAM_ERROR");
    assert.equal(error.message, "the tool answered with an error: note 99 not found");
    assert.match(error.hint, /answered with an error of its own .*look an id up first with one of this plugin's list, search or get tools/);
    assert.doesNotMatch(error.hint, SERVICE_FAILED);
  });

  it("a CLI program that exits non-zero answered with an error of its own: the same advice as an MCP tool's, not 'the service failed'", async () => {
    const error = errorOf(await callJson(server.client, "agent_tools_vcs_call", { toolName: "show", arguments: { rev: "HEAD~99" } }));
    assert.equal(error.code, "UPSTREAM_ERROR");
    assert.match(error.message, /exited with code 128; stderr: error: unknown revision HEAD~99$/);
    assert.match(error.hint, /^The program answered with an error of its own \(`message` quotes what it printed\)\. If it names an id, an argument or a state .*look an id up first with one of this plugin's list, search or get tools/);
    assert.doesNotMatch(error.hint, SERVICE_FAILED);
    // One wording: the MCP tool's hint is the same but for whose error it is.
    const mcp = errorOf(await callJson(server.client, "agent_tools_jot_call", { toolName: "echo", arguments: { text: "note 99 not found" } }));
    assert.equal(error.hint.replace("The program", "The tool").replace("quotes what it printed", "quotes it"), mcp.hint);
  });

  it("search's error answer names the plugin as sent, and none when none was sent (never '*')", async () => {
    const unknown = await callJson(server.client, "agent_tools_search", { query: "list", plugin: "shp" });
    assert.equal(errorOf(unknown).code, "UNKNOWN_PLUGIN");
    assert.equal(unknown.payload.plugin, "shp");
    const noQuery = await callJson(server.client, "agent_tools_search", {});
    assert.equal(errorOf(noQuery).code, "ARG_VALIDATION_FAILED");
    assert.equal("plugin" in noQuery.payload, false, JSON.stringify(noQuery.payload));
  });

  it("a body nested under 'body' is moved to the top level when the tool takes its fields there, and said", async () => {
    const before = service.requests.length;
    const moved = await shop("adjustStock", { sku: "XYZ-1", body: { delta: -1, reason: "sold one" } }, true);
    assert.equal(moved.isError, false, JSON.stringify(moved.payload));
    assert.deepEqual(moved.payload.repairs, ["'arguments.body' held the request body's fields (delta, reason); this tool takes them at the top level of 'arguments', where they were moved"]);
    const sent = service.requests.slice(before);
    assert.equal(sent.length, 1);
    assert.deepEqual(JSON.parse(sent[0]?.body ?? ""), { delta: -1, reason: "sold one" });

    // A field the tool does not take: not guessed, the validation names it.
    const unknown = errorOf(await shop("adjustStock", { sku: "XYZ-1", body: { delta: -1, colour: "red" } }, true));
    assert.equal(unknown.code, "ARG_VALIDATION_FAILED");
    assert.equal(service.requests.length, before + 1, "nothing more was sent");
  });

  it("a body's fields sent at the top level go inside 'body' when that is where the tool takes them", async () => {
    const before = service.requests.length;
    const wrapped = await callJson(server.client, "agent_tools_memo_call", { toolName: "add_memo", arguments: { title: "Milk", text: "two litres" }, confirm: true });
    assert.equal(wrapped.isError, false, JSON.stringify(wrapped.payload));
    assert.deepEqual(wrapped.payload.repairs, ["'arguments' held the request body's fields (title, text) at its top level; this tool takes them inside 'arguments.body', where they were moved"]);
    assert.deepEqual(JSON.parse(service.requests[before]?.body ?? ""), { title: "Milk", text: "two litres" });
  });
});

describe("a result cut to the cap, as the model receives it", () => {
  let server: Connected;
  before(async () => {
    server = await connect(plugins, { AGENT_TOOLS_MAX_RESULT_CHARS: "400" });
  });
  after(() => server.close());

  it("the cut JSON, written in the answer with its quotes escaped, is at most the cap; shownChars counts the JSON it holds", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_shop_call", { toolName: "bigList", arguments: {} });
    assert.equal(isError, false, JSON.stringify(payload));
    const result = payload.result as string;
    assert.equal(typeof result, "string");
    const truncated = payload.truncated as { originalChars: number; shownChars: number; note: string };
    const written = JSON.stringify(result).length;
    assert.ok(written <= 400, `the result takes ${written} characters in the answer`);
    assert.ok(written >= 390, `the cut uses the cap (${written})`);
    assert.equal(truncated.shownChars, result.length);
    assert.ok(result.length < 400 - 20, "the quotes' escapes were paid for out of the cap");
    assert.ok(truncated.originalChars > JSON.stringify(BIG).length - 1);
    assert.match(result, /^\{.*"items":\[\{"id":0,"name":"item \\"0\\""/);
    assert.match(truncated.note, /`result` holds the first characters of its JSON/);
  });
});

describe("the cut as JSON.stringify writes it", () => {
  it("is the longest start whose JSON string fits: escapes, control characters, surrogate pairs and lone surrogates", () => {
    const samples = ['plain text', 'a "quoted" \\ back', "tab\tnew\nline\u0001bell", "emoji \u{1F600}\u{1F600} pairs", "lone \ud800 high and \udc00 low", ""];
    for (const text of samples) {
      for (let cap = 0; cap <= JSON.stringify(text).length + 1; cap++) {
        const head = headWithinJsonString(text, cap);
        assert.ok(text.startsWith(head), JSON.stringify({ text, cap }));
        if (head.length) assert.ok(JSON.stringify(head).length <= cap, JSON.stringify({ text, cap, head }));
        // One more unit (or the rest of a pair) would not fit.
        const longer = text.slice(0, head.length + 1);
        const pairEnd = /[\ud800-\udbff]$/.test(longer) ? text.slice(0, head.length + 2) : longer;
        if (head.length < text.length) assert.ok(JSON.stringify(pairEnd).length > cap, JSON.stringify({ text, cap, head }));
        assert.ok(!/[\ud800-\udbff]$/.test(head) || !/^[\udc00-\udfff]/.test(text.slice(head.length)), "a pair is never cut in two");
      }
    }
  });
});
