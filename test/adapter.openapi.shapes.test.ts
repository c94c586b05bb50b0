import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { createOpenApiAdapter } from "../src/adapters/openapi/index.js";
import { MAX_SCHEMA_NODES } from "../src/adapters/openapi/schema.js";
import type { ToolDescriptor } from "../src/adapters/types.js";
import { checkAgainstSchema } from "../src/json-schema.js";
import { silent, startServer, type TestServer } from "./fixtures/rest/http-server.js";
import { callJson, connect, writePlugin } from "./helpers.js";

/**
 * OpenAPI documents whose shape costs: components shared by many paths (a few KB reaching one
 * component by millions of paths), and names that are Object.prototype members.
 */

/** LEVELS component schemas, each with WIDTH properties that all name the next level (no cycle). */
function sharedLevels(levels: number, width: number): Record<string, unknown> {
  const schemas: Record<string, unknown> = {};
  for (let level = 0; level < levels; level++) {
    const next = level < levels - 1 ? { $ref: `#/components/schemas/L${level + 1}` } : { type: "string" };
    schemas[`L${level}`] = { type: "object", properties: Object.fromEntries(Array.from({ length: width }, (_, i) => [`p${i}`, next])) };
  }
  return {
    openapi: "3.0.0",
    info: { title: "levels", version: "1" },
    components: { schemas },
    paths: {
      "/x": { post: { operationId: "deep", requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/L0" } } } }, responses: {} } },
      "/ok": { get: { operationId: "ok", responses: {} } },
    },
  };
}

/** Schema objects in a schema written out as a tree. */
function nodes(value: unknown): number {
  if (!value || typeof value !== "object") return 0;
  if (Array.isArray(value)) return value.reduce((sum: number, v) => sum + nodes(v), 0);
  return 1 + Object.values(value).reduce((sum: number, v) => sum + nodes(v), 0);
}

let server: TestServer;
let dir: string;
before(async () => {
  server = await startServer((_req, res) => {
    res.setHeader("content-type", "application/json");
    res.end('{"done":true}');
  });
  dir = await mkdtemp(path.join(os.tmpdir(), "openapi-shapes-"));
});
after(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

async function adapterFor(doc: Record<string, unknown>, name: string, warnings: string[] = []): Promise<{ tools: ToolDescriptor[]; call: (tool: string, args: Record<string, unknown>) => Promise<unknown> }> {
  await writeFile(path.join(dir, `${name}.json`), JSON.stringify(doc));
  const log = { ...silent, warn: (m: string) => warnings.push(m) };
  const adapter = await createOpenApiAdapter({ kind: "openapi", spec: `${name}.json`, baseUrl: `${server.url}/api` }, { pluginDir: dir, manifest: {}, env: {}, log });
  return { tools: (await adapter.listTools()).tools, call: (tool, args) => adapter.call(tool, args) };
}

describe("a component reached by many paths", () => {
  it("8 levels × 10 properties (10^7 paths to the last) loads at once, within the node budget, and says what it left out", async () => {
    const warnings: string[] = [];
    const started = Date.now();
    const { tools } = await adapterFor(sharedLevels(8, 10), "levels", warnings);
    // Before: 70 s at this size (width 6 ran the heap out); now a few milliseconds. Generous for a loaded machine.
    assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
    const deep = tools.find((t) => t.name === "deep");
    assert.ok(deep);
    assert.ok(nodes(deep.inputSchema) <= MAX_SCHEMA_NODES + 50, `${nodes(deep.inputSchema)} nodes`);
    const text = JSON.stringify(deep.inputSchema);
    assert.match(text, /schema too large to list here; any value is accepted/);
    assert.ok(warnings.some((w) => /operation 'deep' \(POST \/x\): its input schema is larger than 2000 schema nodes/.test(w)), warnings.join("\n"));
    // The first branch is written out in full; the validator reads it (a wrong type deep down is refused).
    assert.deepEqual(checkAgainstSchema(deep.inputSchema, { p0: { p0: { p0: {} } } }), { ok: true });
    const wrong = checkAgainstSchema(deep.inputSchema, { p0: { p0: "not an object" } });
    assert.equal(wrong.ok, false);
  });

  it("a small shared component is written out in full at each use, and each tool's schema is its own", async () => {
    const address = { type: "object", required: ["city"], properties: { city: { type: "string" }, zip: { type: "string", nullable: true } } };
    const doc = {
      openapi: "3.0.0",
      info: { title: "shared", version: "1" },
      components: { schemas: { Address: address, Person: { type: "object", properties: { home: { $ref: "#/components/schemas/Address" }, work: { $ref: "#/components/schemas/Address" } } } } },
      paths: {
        "/a": { post: { operationId: "a", requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Person" } } } }, responses: {} } },
        "/b": { post: { operationId: "b", requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Person" } } } }, responses: {} } },
      },
    };
    const warnings: string[] = [];
    const { tools } = await adapterFor(doc, "shared", warnings);
    assert.deepEqual(warnings, []);
    const expected = { type: "object", required: ["city"], properties: { city: { type: "string" }, zip: { type: ["string", "null"] } } };
    const [a, b] = tools.map((t) => t.inputSchema as { properties: Record<string, Record<string, unknown>> });
    assert.deepEqual(a?.properties.home, expected);
    assert.deepEqual(a?.properties.work, expected);
    assert.notEqual(a?.properties.home, a?.properties.work, "no object shared between places");
    assert.notEqual(a?.properties.home, b?.properties.home, "nor between tools");
  });

  it("a $ref to nothing is refused at load, naming the reference", async () => {
    const doc = sharedLevels(2, 1);
    (doc.components as { schemas: Record<string, unknown> }).schemas.L1 = { $ref: "#/components/schemas/Missing" };
    await assert.rejects(adapterFor(doc, "broken"), /has a \$ref that cannot be resolved: '#\/components\/schemas\/Missing' points at nothing/);
  });

  it("over stdio, the built server answers discover and a call at once, and stays up", async () => {
    const plugins = path.join(dir, "plugins");
    writePlugin(
      path.join(plugins, "agent-tools-plugin-levels"),
      { name: "levels", version: "1.0.0", description: "levels", extensions: { "dev.agent-tools-runtime": { prefix: "levels", adapter: { kind: "openapi", spec: "./spec.json", baseUrl: `${server.url}/api` } } } },
      { "spec.json": JSON.stringify(sharedLevels(8, 10)) },
    );
    const connected = await connect(plugins);
    try {
      const discovered = await callJson(connected.client, "agent_tools_levels_discover");
      assert.equal(discovered.payload.ok, true, JSON.stringify(discovered.payload));
      const called = await callJson(connected.client, "agent_tools_levels_call", { toolName: "deep", arguments: { p0: { p1: { p2: "x" } } }, confirm: true });
      assert.equal(called.payload.ok, true, JSON.stringify(called.payload));
      assert.deepEqual(JSON.parse(server.requests.at(-1)?.body ?? "null"), { p0: { p1: { p2: "x" } } });
      assert.match(connected.stderr(), /operation 'deep'/);
    } finally {
      await connected.close();
    }
  });
});

describe("names that are Object.prototype members", () => {
  it("parameters `constructor`, `toString`, `__proto__` keep their names and replace no prototype; body properties `valueOf`, `hasOwnProperty` do not clash", async () => {
    const doc = {
      openapi: "3.0.0",
      info: { title: "proto", version: "1" },
      paths: {
        "/things": {
          post: {
            operationId: "make",
            parameters: ["constructor", "toString", "__proto__"].map((name) => ({ name, in: "query", schema: { type: "string" } })),
            requestBody: { content: { "application/json": { schema: { type: "object", properties: { valueOf: { type: "integer" }, hasOwnProperty: { type: "boolean" } } } } } },
            responses: {},
          },
        },
      },
    };
    const { tools, call } = await adapterFor(JSON.parse(JSON.stringify(doc)) as Record<string, unknown>, "proto");
    const schema = tools[0]?.inputSchema as { properties: Record<string, unknown> };
    assert.deepEqual(Object.keys(schema.properties), ["constructor", "toString", "__proto__", "valueOf", "hasOwnProperty"]);
    assert.equal(Object.getPrototypeOf(schema.properties), Object.prototype, "no prototype replaced");
    // (Ajv refuses an argument named `__proto__` whatever the schema says, so that one is declared but not sent here.)
    const args = { constructor: "c", toString: "t", valueOf: 3, hasOwnProperty: true };
    assert.deepEqual(checkAgainstSchema(tools[0]!.inputSchema, args), { ok: true });
    await call("make", args);
    const sent = server.requests.at(-1);
    assert.equal(sent?.url, "/api/things?constructor=c&toString=t");
    assert.deepEqual(JSON.parse(sent?.body ?? "null"), { valueOf: 3, hasOwnProperty: true });
  });
});

describe("operations that could not be sent as written", () => {
  it("three parameters named alike get three arguments (`id`, `query_id`, `query_id_2`), each described by its parameter, each value sent once", async () => {
    const doc = {
      openapi: "3.0.0",
      info: { title: "names", version: "1" },
      paths: {
        "/things/{id}": {
          get: {
            operationId: "thing",
            parameters: [
              { name: "query_id", in: "query", schema: { type: "string" } },
              { name: "id", in: "path", required: true, schema: { type: "string" } },
              { name: "id", in: "query", description: "the other id", schema: { type: "string" } },
            ],
            responses: {},
          },
        },
      },
    };
    const { tools, call } = await adapterFor(doc, "names");
    const schema = tools[0]?.inputSchema as { properties: Record<string, { description?: string }>; required: string[] };
    assert.deepEqual(Object.keys(schema.properties), ["query_id", "id", "query_id_2"]);
    assert.equal(schema.properties.query_id_2?.description, "query parameter 'id': the other id");
    assert.deepEqual(schema.required, ["id"]);
    await call("thing", { query_id: "A", id: "P", query_id_2: "B" });
    assert.equal(server.requests.at(-1)?.url, "/api/things/P?query_id=A&id=B");
  });

  it("an operation whose body is only multipart/form-data is left out with a warning naming it; a form-urlencoded alternative is sent instead", async () => {
    const form = { type: "object", properties: { name: { type: "string" }, file: { type: "string", format: "binary" } } };
    const doc = {
      openapi: "3.0.0",
      info: { title: "multipart", version: "1" },
      paths: {
        "/upload": { put: { operationId: "upload", requestBody: { required: true, content: { "multipart/form-data": { schema: form } } }, responses: {} } },
        "/either": {
          post: { operationId: "either", requestBody: { content: { "multipart/form-data": { schema: form }, "application/x-www-form-urlencoded": { schema: form } } }, responses: {} },
        },
      },
    };
    const warnings: string[] = [];
    const { tools, call } = await adapterFor(doc, "multipart", warnings);
    assert.deepEqual(
      tools.map((t) => t.name),
      ["either"],
    );
    assert.ok(
      warnings.some((w) => /^openapi: operation 'upload' \(PUT \/upload\) skipped: its request body is only 'multipart\/form-data' \(form parts and files\), which this adapter does not send/.test(w)),
      warnings.join("\n"),
    );
    await call("either", { body: { name: "n" } });
    const sent = server.requests.at(-1);
    assert.equal(sent?.headers["content-type"], "application/x-www-form-urlencoded");
    assert.equal(sent?.body, "name=n");
  });

  it("a header argument past Latin-1 is refused naming the argument, and nothing is sent; a Latin-1 one is sent", async () => {
    const doc = {
      openapi: "3.0.0",
      info: { title: "headers", version: "1" },
      paths: { "/h": { get: { operationId: "h", parameters: [{ name: "X-Thing", in: "header", schema: { type: "string" } }], responses: {} } } },
    };
    const { call } = await adapterFor(doc, "headers");
    const before = server.requests.length;
    await assert.rejects(call("h", { "X-Thing": "€uro" }), (error: Error & { code?: string; details?: unknown }) => {
      assert.equal(error.code, "ARG_VALIDATION_FAILED");
      assert.match(error.message, /^header argument 'X-Thing' of tool 'h' has the character '€' at position 0, and nothing was sent: HTTP header values carry only Latin-1/);
      assert.deepEqual(error.details, { argument: "X-Thing" });
      return true;
    });
    assert.equal(server.requests.length, before);
    await call("h", { "X-Thing": "caf\u00e9" });
    assert.equal(Buffer.from(String(server.requests.at(-1)?.headers["x-thing"]), "latin1").toString("latin1"), "caf\u00e9");
  });

  it("a servers URL variable without a default is a load problem naming baseUrl, not a host to call", async () => {
    const doc = {
      openapi: "3.1.0",
      info: { title: "servers", version: "1" },
      servers: [{ url: "http://{host}:18771/v1", variables: { host: { enum: ["127.0.0.1"] } } }],
      paths: { "/e": { get: { operationId: "e", responses: {} } } },
    };
    await writeFile(path.join(dir, "servers.json"), JSON.stringify(doc));
    await assert.rejects(
      async () => createOpenApiAdapter({ kind: "openapi", spec: "servers.json" }, { pluginDir: dir, manifest: {}, env: {}, log: silent }),
      (error: Error & { problems?: { field: string; message: string }[] }) => {
        assert.equal(error.problems?.[0]?.field, "baseUrl");
        assert.match(error.problems?.[0]?.message ?? "", /^is needed: the spec's first server URL 'http:\/\/\{host\}:18771\/v1' has the variable '\{host\}' with no default; set adapter\.baseUrl in plugin\.json/);
        return true;
      },
    );
  });
});
