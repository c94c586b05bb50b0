import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createRestAdapter } from "../src/adapters/rest/index.js";
import { parseResultShape, pick, shapeBody } from "../src/adapters/rest/result-shape.js";
import type { Adapter } from "../src/adapters/types.js";
import { fromThrown } from "../src/runtime/errors.js";
import { sendJson, silent, startServer, type TestServer } from "./fixtures/rest/http-server.js";

/** The rest kind's `result` shaping, `constQuery`, link-style page sizes and `errors` rules, against a real server. */

let server: TestServer;
const env: NodeJS.ProcessEnv = { BASE: "", TOKEN: "shaping-secret-token-42" };

before(async () => {
  server = await startServer((req, res) => {
    const url = new URL(req.url, "http://x");
    switch (url.pathname) {
      case "/api/things": {
        // 7 things, every third a "kind: other" entry, pages linked by rel="next".
        const per = Number(url.searchParams.get("size") ?? "2");
        const page = Number(url.searchParams.get("page") ?? "1");
        const all = Array.from({ length: 7 }, (_, i) => ({ id: i + 1, name: `t${i + 1}`, owner: { login: `u${i}` }, tags: [{ name: "a" }, { name: "b" }], ...(i % 3 === 2 ? { other: { yes: true } } : {}), noise: "x".repeat(50) }));
        const headers: Record<string, string> = {};
        if (page * per < all.length) headers.link = `</api/things?size=${per}&page=${page + 1}>; rel="next"`;
        return sendJson(res, 200, all.slice((page - 1) * per, page * per), headers);
      }
      case "/api/search":
        return sendJson(res, 200, { total: 2, items: [{ id: 1, big: "x", keep: "k1" }, { id: 2, big: "y", keep: "k2" }], query: url.search });
      case "/api/one":
        return sendJson(res, 200, { id: 9, nested: { deep: "d" }, dropped: "z" });
      case "/api/limited":
        return sendJson(res, 403, { message: "API rate limit exceeded" }, { "x-ratelimit-remaining": "0", "x-ratelimit-reset": "1893456000" });
      case "/api/secondary":
        return sendJson(res, 403, { message: "slow down" }, { "retry-after": "30" });
      case "/api/invalid":
        return sendJson(res, 422, { message: "Validation Failed", errors: [{ field: "title", code: "missing_field" }], token: env.TOKEN });
      case "/api/plain403":
        return sendJson(res, 403, { message: "Forbidden" });
      default:
        return sendJson(res, 404, { message: "Not Found" });
    }
  });
  env.BASE = `${server.url}/api`;
});
after(() => server.close());

const ERRORS = [
  { status: [403, 429], headers: { "x-ratelimit-remaining": "0" }, message: "limit reached; resets {header.x-ratelimit-reset|time}", hint: "wait until {header.x-ratelimit-reset|time}", details: { resetAt: "{header.x-ratelimit-reset|time}" } },
  { status: 403, headers: { "retry-after": "*" }, message: "secondary: {body.message}", hint: "wait {header.retry-after}s", details: { retryAfter: "{header.retry-after}" } },
  { status: 422, code: "ARG_VALIDATION_FAILED", message: "{body.message} {body.errors}", details: { errors: "{body.errors}", where: "{method} {path}", token: "{body.token}" } },
  { status: 404, bodyMatches: "not\\s+found", message: "nothing at {path}" },
];

async function make(tools: unknown[]): Promise<Adapter> {
  return await createRestAdapter({ kind: "rest", baseUrl: "${BASE}", auth: { type: "bearer", token: "${TOKEN}" }, errors: ERRORS, tools }, { pluginDir: "/tmp", manifest: {}, env, log: silent });
}

async function failure(adapter: Adapter, tool: string): Promise<Error & { code?: string; hint?: string; details?: Record<string, unknown> }> {
  try {
    await adapter.call(tool, {});
  } catch (error) {
    return error as Error;
  }
  throw new Error(`${tool} did not fail`);
}

describe("rest result shaping", () => {
  it("drops items with a marker key across every page, projects fields, counts what was dropped, asks for the page size", async () => {
    server.requests.length = 0;
    const a = await make([{ name: "things", path: "/things", query: ["size"], paginate: { style: "link", perPageParam: "size", perPage: 3 }, result: { drop: ["other"], fields: { id: "id", owner: "owner.login", tags: "tags[].name" } } }]);
    const r = (await a.call("things", {})) as { items: unknown[]; pages: number; complete: boolean; dropped: number };
    assert.equal(r.pages, 3);
    assert.equal(r.complete, true);
    assert.equal(r.dropped, 2);
    assert.deepEqual(r.items[0], { id: 1, owner: "u0", tags: ["a", "b"] });
    assert.deepEqual(r.items.map((i) => (i as { id: number }).id), [1, 2, 4, 5, 7]);
    assert.deepEqual(server.requests.map((q) => q.url), ["/api/things?size=3", "/api/things?size=3&page=2", "/api/things?size=3&page=3"]);
  });

  it("a caller's own page size wins over perPage", async () => {
    server.requests.length = 0;
    const a = await make([{ name: "things", path: "/things", query: ["size"], paginate: { style: "link", perPageParam: "size", perPage: 3 } }]);
    const r = (await a.call("things", { size: 5 })) as { pages: number; items: unknown[] };
    assert.equal(r.pages, 2);
    assert.equal(r.items.length, 7);
    assert.equal(server.requests[0]?.url, "/api/things?size=5");
  });

  it("itemsPath shapes the list inside an envelope and keeps the envelope; constQuery pins a value over an argument", async () => {
    const a = await make([{ name: "search", path: "/search", query: ["q", "n"], constQuery: { n: "1" }, result: { itemsPath: "items", fields: { id: "id", keep: "keep" } } }]);
    const r = (await a.call("search", { q: "a b", n: 50 })) as { data: { total: number; items: unknown[]; query: string } };
    assert.equal(r.data.total, 2);
    assert.deepEqual(r.data.items, [{ id: 1, keep: "k1" }, { id: 2, keep: "k2" }]);
    assert.equal(r.data.query, "?q=a+b&n=1");
  });

  it("first: the list becomes its first item; fields on an object body project it", async () => {
    const a = await make([
      { name: "first", path: "/things", result: { first: true, fields: { name: "name" } } },
      { name: "one", path: "/one", result: { fields: { id: "id", deep: "nested.deep", missing: "no.such" } } },
    ]);
    assert.deepEqual(((await a.call("first", {})) as { data: unknown }).data, { name: "t1" });
    assert.deepEqual(((await a.call("one", {})) as { data: unknown }).data, { id: 9, deep: "d" });
  });

  it("shapeBody and pick handle empty lists and missing arrays", () => {
    assert.equal(shapeBody([], { first: true }), null);
    assert.deepEqual(pick({ a: [{ b: 1 }, { c: 2 }] }, ["a[]", "b"]), [1]);
    assert.equal(pick({ a: "x" }, ["a[]", "b"]), undefined);
  });

  it("a bad result block names the field", () => {
    assert.throws(() => parseResultShape({ drop: "pull_request" }, "tools[0].result"), /tools\[0\]\.result\.drop must be a non-empty array/);
    assert.throws(() => parseResultShape({ fields: { a: "b..c" } }, "tools[0].result"), /tools\[0\]\.result\.fields\.a must be a dot path/);
    assert.throws(() => parseResultShape({ pick: [] }, "tools[0].result"), /tools\[0\]\.result\.pick is not a result option/);
  });
});

describe("rest errors rules", () => {
  it("a header condition, a |time filter, hint and details", async () => {
    const a = await make([{ name: "limited", path: "/limited" }]);
    const error = await failure(a, "limited");
    assert.equal(error.code, "UPSTREAM_ERROR");
    assert.equal(error.message, "GET /api/limited answered HTTP 403: limit reached; resets 2030-01-01T00:00:00.000Z");
    assert.equal(error.hint, "wait until 2030-01-01T00:00:00.000Z");
    assert.deepEqual(error.details, { status: 403, resetAt: "2030-01-01T00:00:00.000Z" });
  });

  it("a header present with '*'", async () => {
    const error = await failure(await make([{ name: "secondary", path: "/secondary" }]), "secondary");
    assert.match(error.message, /HTTP 403: secondary: slow down$/);
    assert.deepEqual(error.details, { status: 403, retryAfter: "30" });
  });

  it("a code other than UPSTREAM_ERROR, a whole-value detail kept as an array, secrets redacted", async () => {
    const error = await failure(await make([{ name: "invalid", method: "POST", path: "/invalid" }]), "invalid");
    assert.equal(error.code, "ARG_VALIDATION_FAILED");
    assert.deepEqual(error.details?.errors, [{ field: "title", code: "missing_field" }]);
    assert.equal(error.details?.where, "POST /api/invalid");
    assert.equal(error.details?.token, "[redacted]");
    assert.ok(!JSON.stringify({ m: error.message, d: error.details }).includes(env.TOKEN ?? "?"));
  });

  it("bodyMatches; a status no rule names keeps the generic message", async () => {
    const a = await make([{ name: "missing", path: "/missing" }, { name: "plain", path: "/plain403" }]);
    assert.match((await failure(a, "missing")).message, /HTTP 404: nothing at \/api\/missing$/);
    const plain = await failure(a, "plain");
    assert.match(plain.message, /HTTP 403: \{"message":"Forbidden"\}/);
    // No rule names it, and a 403 without a rate-limit sign is refused credentials: the hint names the auth's variable.
    assert.match(plain.hint ?? "", /refused the credentials \(HTTP 403\): TOKEN, which this plugin's auth reads/);
  });

  it("the runtime keeps the rule's hint and details", async () => {
    const error = await failure(await make([{ name: "secondary", path: "/secondary" }]), "secondary");
    const payload = fromThrown(error).toPayload();
    assert.equal(payload.hint, "wait 30s");
    assert.deepEqual(payload.details, { status: 403, retryAfter: "30" });
  });

  it("bad rules name the field", async () => {
    const bad: [unknown, RegExp][] = [
      [[{ message: "x" }], /errors\[0\]\.status is required/],
      [[{ status: 404 }], /errors\[0\]\.message is required; it must be a non-empty string/],
      [[{ status: 404, message: "m", code: "NOPE" }], /errors\[0\]\.code must be one of/],
      [[{ status: 404, message: "m", bodyMatches: "(" }], /errors\[0\]\.bodyMatches is not a valid regular expression/],
      [[{ status: 404, message: "m", headers: { a: 1 } }], /errors\[0\]\.headers\.a must be a string/],
      [{}, /errors must be an array/],
    ];
    for (const [errors, pattern] of bad) {
      await assert.rejects(async () => createRestAdapter({ kind: "rest", baseUrl: "${BASE}", errors, tools: [{ name: "t", path: "/t" }] }, { pluginDir: "/tmp", manifest: {}, env, log: silent }), pattern);
    }
  });
});
