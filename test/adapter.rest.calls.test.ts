import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createRestAdapter } from "../src/adapters/rest/index.js";
import type { Adapter, CallContext } from "../src/adapters/types.js";
import { sendJson, silent, startServer, type TestServer } from "./fixtures/rest/http-server.js";

/** Tool derivation, request mapping, responses, pagination, errors and timeouts against a real server. */

let server: TestServer;
const env: NodeJS.ProcessEnv = { TOKEN: "very-secret-token-1234", BASE: "" };

before(async () => {
  server = await startServer(async (req, res) => {
    const url = new URL(req.url, "http://x");
    switch (url.pathname.startsWith("/v1/echo") ? "/v1/echo" : url.pathname) {
      case "/v1/echo":
        return sendJson(res, 200, { method: req.method, url: req.url, body: req.body ? (JSON.parse(req.body) as unknown) : null, contentType: req.headers["content-type"] ?? null, custom: req.headers["x-custom"] ?? null });
      case "/v1/text":
        res.writeHead(200, { "content-type": "text/plain" });
        return res.end("hello");
      case "/v1/empty":
        res.writeHead(204);
        return res.end();
      case "/v1/link": {
        // 25 items, 10 per page, pages linked by absolute next URLs.
        const page = Number(url.searchParams.get("p") ?? "1");
        const items = Array.from({ length: 25 }, (_, i) => i + 1).slice((page - 1) * 10, page * 10);
        const headers: Record<string, string> = {};
        if (page * 10 < 25) headers.link = `<${server.url}/v1/link?p=${page + 1}>; rel="next", <${server.url}/v1/link?p=3>; rel="last"`;
        return sendJson(res, 200, items, headers);
      }
      case "/v1/written-numbers": {
        // Numbers as Python and Go write them (1.0, 1.50, 2e3) and an id past 2^53, on pages 2 and 3.
        const page = Number(url.searchParams.get("p") ?? "1");
        const bodies = ['[{"id":1,"price":2.5}]', '[{"id":2,"price":1.50,"score":1.0}]', '[{"id":12345678901234567890,"size":2e3}]'];
        const headers: Record<string, string> = { "content-type": "application/json" };
        if (page < 3) headers.link = `</v1/written-numbers?p=${page + 1}>; rel="next"`;
        res.writeHead(200, headers);
        return res.end(bodies[page - 1]);
      }
      case "/v1/endless":
        return sendJson(res, 200, [url.searchParams.get("n") ?? "0"], { link: `</v1/endless?n=${Number(url.searchParams.get("n") ?? "0") + 1}>; rel="next"` });
      case "/v1/paged": {
        const page = Number(url.searchParams.get("page") ?? "1");
        const per = Number(url.searchParams.get("per_page") ?? "3");
        const all = Array.from({ length: 7 }, (_, i) => ({ id: i + 1 }));
        return sendJson(res, 200, { items: all.slice((page - 1) * per, page * per), page });
      }
      case "/v1/fail":
        return sendJson(res, 422, { message: `invalid; your token was ${env.TOKEN}`, detail: "x".repeat(1000) });
      case "/v1/slow":
        // Far beyond the 200 ms timeout and the 100 ms cancel below, so a loaded machine cannot blur them;
        // unref'd so an abandoned answer does not hold the test process open.
        await new Promise((r) => setTimeout(r, 5000).unref());
        return sendJson(res, 200, { late: true });
      default:
        return sendJson(res, 404, { message: "Not Found" });
    }
  });
  env.BASE = `${server.url}/v1`;
});
after(() => server.close());

async function make(tools: unknown[], extra: Record<string, unknown> = {}): Promise<Adapter> {
  return await createRestAdapter({ kind: "rest", baseUrl: "${BASE}", auth: { type: "bearer", token: "${TOKEN}" }, tools, ...extra }, { pluginDir: "/tmp", manifest: {}, env, log: silent });
}

function ctx(signal: AbortSignal = new AbortController().signal): CallContext {
  return { signal, sessionId: "s", log: silent };
}

describe("tool derivation", () => {
  it("derives the input schema from path params (required strings), query and body names", async () => {
    const a = await make([{ name: "create_issue", description: "Create an issue", method: "POST", path: "/repos/{owner}/{repo}/issues", query: ["dry_run"], body: ["title", "body"] }]);
    const { tools } = await a.listTools();
    assert.equal(tools.length, 1);
    const schema = tools[0]?.inputSchema as { properties: Record<string, { type?: string | string[] }>; required: string[]; additionalProperties: boolean };
    assert.deepEqual(Object.keys(schema.properties), ["owner", "repo", "dry_run", "title", "body"]);
    assert.deepEqual(schema.properties.owner?.type, ["string", "integer"], "a path placeholder takes an id as a service answers it, text or integer");
    assert.deepEqual(schema.required, ["owner", "repo"]);
    assert.equal(schema.additionalProperties, false);
    assert.equal(tools[0]?.description, "Create an issue");
  });

  it("uses a given inputSchema, closed when the request has no place for other arguments", async () => {
    const inputSchema = { type: "object", properties: { q: { type: "string", minLength: 2 } }, required: ["q"] };
    const a = await make([
      { name: "search", path: "/echo", query: ["q"], inputSchema },
      // Nothing mapped: every other argument goes to the query string, so the schema stays open.
      { name: "open", path: "/echo", inputSchema },
      { name: "parts", path: "/echo", query: ["q"], inputSchema: { allOf: [inputSchema] } },
    ]);
    const [search, open, parts] = (await a.listTools()).tools;
    assert.deepEqual(search?.inputSchema, { ...inputSchema, additionalProperties: false });
    assert.deepEqual(open?.inputSchema, inputSchema);
    assert.deepEqual(parts?.inputSchema, { allOf: [inputSchema] });
  });

  it("an argument the request has no place for is refused before anything is sent", async () => {
    const a = await make([{ name: "parts", method: "POST", path: "/echo", body: ["title"], inputSchema: { allOf: [{ type: "object" }] } }]);
    const sent = server.requests.length;
    await assert.rejects(a.call("parts", { title: "t", titel: "u" }, ctx()), (error: unknown) => {
      assert.equal((error as { code?: string }).code, "ARG_VALIDATION_FAILED");
      assert.match((error as Error).message, /'titel' is not a parameter of 'parts' \(it takes: title\); this tool's request has no place for it, and nothing was sent\. Did you mean 'title'\?/);
      return true;
    });
    assert.equal(server.requests.length, sent);
  });

  it("only GET/HEAD are read-only by default, `readonly` overrides, exposed as annotations.readOnlyHint", async () => {
    const a = await make([
      { name: "get", method: "GET", path: "/echo" },
      { name: "head", method: "HEAD", path: "/echo" },
      { name: "post", method: "POST", path: "/echo" },
      { name: "del", method: "DELETE", path: "/echo" },
      { name: "put", method: "put", path: "/echo" },
      { name: "search_post", method: "POST", path: "/echo", readonly: true },
      { name: "get_side_effect", method: "GET", path: "/echo", readonly: false },
    ]);
    const hints = Object.fromEntries((await a.listTools()).tools.map((t) => [t.name, t.annotations?.readOnlyHint]));
    assert.deepEqual(hints, { get: true, head: true, post: false, del: false, put: false, search_post: true, get_side_effect: false });
  });

  it("names the field of a malformed tool", async () => {
    await assert.rejects(make([{ name: "x", path: "/a", method: "FETCH" }]), /tools\[0\]\.method/);
    await assert.rejects(make([{ name: "bad name", path: "/a" }]), /tools\[0\]\.name/);
    await assert.rejects(make([{ name: "a", path: "/a" }, { name: "a", path: "/b" }]), /tools\[1\]\.name 'a' is defined twice/);
    await assert.rejects(make([{ name: "a", path: "/a", paginate: { style: "cursor" } }]), /tools\[0\]\.paginate\.style/);
    await assert.rejects(make([]), /tools must be a non-empty array/);
  });
});

describe("requests and responses", () => {
  it("maps query (list and {param: arg}), body fields, headers from the spec, and returns {status, data}", async () => {
    const a = await make(
      [
        { name: "q", method: "GET", path: "/echo", query: { state: "issueState", per_page: "perPage" } },
        { name: "b", method: "POST", path: "/echo/{id}", query: ["force"], body: ["title", "labels"] },
        { name: "all", method: "PATCH", path: "/echo", body: "*" },
        { name: "default_get", method: "GET", path: "/echo/{id}" },
        { name: "default_post", method: "POST", path: "/echo/{id}" },
      ],
      { headers: { "X-Custom": "v-${TOKEN}" } },
    );
    const q = (await a.call("q", { issueState: "open", perPage: 5 }, ctx())) as { status: number; data: { url: string; custom: string } };
    assert.equal(q.status, 200);
    assert.equal(server.requests.at(-1)?.url, "/v1/echo?state=open&per_page=5");
    assert.equal(server.requests.at(-1)?.headers["x-custom"], `v-${env.TOKEN}`);
    assert.equal(q.data.custom, "v-[redacted]");

    const b = (await a.call("b", { id: 7, force: true, title: "T", labels: ["x", "y"] })) as { data: { url: string; body: unknown; contentType: string } };
    assert.equal(b.data.url, "/v1/echo/7?force=true");
    assert.deepEqual(b.data.body, { title: "T", labels: ["x", "y"] });
    assert.equal(b.data.contentType, "application/json");

    const all = (await a.call("all", { x: 1, nested: { y: [2] } })) as { data: { body: unknown; method: string } };
    assert.equal(all.data.method, "PATCH");
    assert.deepEqual(all.data.body, { x: 1, nested: { y: [2] } });

    const dg = (await a.call("default_get", { id: "a", tags: ["t1", "t2"], n: 2 })) as { data: { url: string; body: unknown } };
    assert.equal(dg.data.url, "/v1/echo/a?tags=t1&tags=t2&n=2");
    const dp = (await a.call("default_post", { id: "a", name: "N" })) as { data: { url: string; body: unknown } };
    assert.equal(dp.data.url, "/v1/echo/a");
    assert.deepEqual(dp.data.body, { name: "N" });
  });

  it("returns text for non-JSON bodies and null for no body", async () => {
    const a = await make([{ name: "text", path: "/text" }, { name: "empty", method: "DELETE", path: "/empty" }, { name: "head", method: "HEAD", path: "/echo" }]);
    assert.deepEqual(await a.call("text", {}), { status: 200, data: "hello" });
    assert.deepEqual(await a.call("empty", {}), { status: 204, data: null });
    assert.deepEqual(await a.call("head", {}), { status: 200, data: null });
  });

  it("non-2xx → UPSTREAM_ERROR with status, method, path and a short redacted excerpt", async () => {
    const a = await make([{ name: "fail", method: "POST", path: "/fail", query: ["q"] }, { name: "missing", path: "/nope/{id}" }]);
    await assert.rejects(a.call("fail", { q: "1" }), (e: Error & { code?: string; status?: number }) => {
      assert.equal(e.code, "UPSTREAM_ERROR");
      assert.equal(e.status, 422);
      assert.match(e.message, /^POST \/v1\/fail\?q=1 answered HTTP 422: /);
      assert.ok(!e.message.includes(env.TOKEN!), e.message);
      assert.ok(e.message.includes("[redacted]"));
      const excerpt = e.message.slice(e.message.indexOf(": ") + 2);
      assert.ok(excerpt.length <= 300, `excerpt is ${excerpt.length} chars`);
      return true;
    });
    await assert.rejects(a.call("missing", { id: "x/y" }), /GET \/v1\/nope\/x%2Fy answered HTTP 404: \{"message":"Not Found"\}/);
  });

  it("times out with UPSTREAM_TIMEOUT (timeoutMs)", async () => {
    const a = await make([{ name: "slow", path: "/slow" }], { timeoutMs: 200 });
    const started = Date.now();
    await assert.rejects(a.call("slow", {}, ctx()), (e: Error & { code?: string }) => {
      assert.equal(e.code, "UPSTREAM_TIMEOUT");
      assert.match(e.message, /GET \/v1\/slow did not answer within 200 ms/);
      return true;
    });
    assert.ok(Date.now() - started < 4000, "ended by the timeout, not by the answer 5 s later");
  });

  it("honours ctx.signal (cancellation is not reported as a timeout)", async () => {
    const a = await make([{ name: "slow", path: "/slow" }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await assert.rejects(a.call("slow", {}, ctx(controller.signal)), (e: Error & { code?: string }) => {
      assert.equal(e.code, "UPSTREAM_ERROR");
      assert.match(e.message, /cancelled/);
      return true;
    });
  });

  it("an unreachable server is an UPSTREAM_ERROR naming the method and path", async () => {
    const a = await createRestAdapter({ kind: "rest", baseUrl: "http://127.0.0.1:1", tools: [{ name: "t", path: "/x" }] }, { pluginDir: "/tmp", manifest: {}, env: {}, log: silent });
    await assert.rejects(a.call("t", {}), (e: Error & { code?: string }) => e.code === "UPSTREAM_ERROR" && /GET \/x failed/.test(e.message));
  });
});

describe("pagination", () => {
  it("link: follows rel=next and concatenates, complete when the last page has no next", async () => {
    const a = await make([{ name: "list", path: "/link", paginate: { style: "link" } }]);
    const result = await a.call("list", {});
    assert.deepEqual(result, { items: Array.from({ length: 25 }, (_, i) => i + 1), pages: 3, complete: true });
  });

  it("link: pages holding 1.50, 1.0, an exponent or an id past 2^53 are read as lists, only the id kept as its text", async () => {
    const a = await make([{ name: "list", path: "/written-numbers", paginate: { style: "link" } }]);
    assert.deepEqual(await a.call("list", {}), {
      items: [{ id: 1, price: 2.5 }, { id: 2, price: 1.5, score: 1 }, { id: "12345678901234567890", size: 2000 }],
      pages: 3,
      complete: true,
    });
  });

  it("link: stops at maxPages and says so", async () => {
    const a = await make([{ name: "list", path: "/endless", paginate: { style: "link", maxPages: 4 } }, { name: "dflt", path: "/endless", paginate: { style: "link" } }]);
    assert.deepEqual(await a.call("list", {}), { items: ["0", "1", "2", "3"], pages: 4, complete: false, stoppedBecause: "maxPages", stoppedDetail: "read 4 items in 4 pages, the most one call reads (maxPages). For the rest ask for larger pages or filter the list; or tell the user the plugin's paginate.maxPages can be raised." });
    const dflt = (await a.call("dflt", {})) as { pages: number; complete: boolean };
    assert.equal(dflt.pages, 10, "default cap is 10 pages");
    assert.equal(dflt.complete, false);
  });

  it("page: increments the page param with perPage, reads itemsPath, stops at a short page", async () => {
    const a = await make([{ name: "list", path: "/paged", paginate: { style: "page", param: "page", perPageParam: "per_page", perPage: 3, itemsPath: "items" } }]);
    const result = (await a.call("list", {})) as { items: { id: number }[]; pages: number; complete: boolean };
    assert.deepEqual(result.items.map((i) => i.id), [1, 2, 3, 4, 5, 6, 7]);
    assert.equal(result.pages, 3);
    assert.equal(result.complete, true);
    const urls = server.requests.slice(-3).map((r) => r.url);
    assert.deepEqual(urls, ["/v1/paged?page=1&per_page=3", "/v1/paged?page=2&per_page=3", "/v1/paged?page=3&per_page=3"]);
  });

  it("page: the cap stops early and reports it", async () => {
    const a = await make([{ name: "list", path: "/paged", paginate: { style: "page", perPageParam: "per_page", perPage: 2, itemsPath: "items", maxPages: 2 } }]);
    assert.deepEqual(await a.call("list", {}), { items: [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }], pages: 2, complete: false, stoppedBecause: "maxPages", stoppedDetail: "read 4 items in 2 pages, the most one call reads (maxPages). For the rest ask for larger pages ('per_page') or filter the list; or tell the user the plugin's paginate.maxPages can be raised." });
  });

  it("page: a page that is not a list is returned as is, marked notAnArray", async () => {
    const a = await make([{ name: "list", path: "/paged", paginate: { style: "page", itemsPath: "nothing" } }]);
    const result = (await a.call("list", {})) as { complete: boolean; stoppedBecause: string; pages: number };
    assert.equal(result.complete, false);
    assert.equal(result.stoppedBecause, "notAnArray");
    assert.equal(result.pages, 1);
  });
});
