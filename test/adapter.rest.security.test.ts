import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createRestAdapter, restRequesterFromEnv } from "../src/adapters/rest/index.js";
import type { Adapter } from "../src/adapters/types.js";
import { sendJson, silent, startServer, type TestServer } from "./fixtures/rest/http-server.js";

/** The base URL can never be escaped: path encoding, template and raw-path checks, Link and redirect guards. */

let server: TestServer;
let env: NodeJS.ProcessEnv;

before(async () => {
  server = await startServer((req, res) => {
    if (req.url.startsWith("/api/redirect-out")) {
      res.writeHead(302, { location: "http://example.invalid/steal" });
      return res.end();
    }
    if (req.url.startsWith("/api/redirect-in")) {
      res.writeHead(302, { location: "/api/landed" });
      return res.end();
    }
    if (req.url.startsWith("/api/link-out")) return sendJson(res, 200, [1], { link: '<http://example.invalid/api/page2>; rel="next"' });
    if (req.url.startsWith("/api/link-prefix")) return sendJson(res, 200, [1], { link: "</other/page2>; rel=\"next\"" });
    sendJson(res, 200, { url: req.url, auth: req.headers["x-key"] ?? null });
  });
  env = { API_BASE: `${server.url}/api`, KEY: "s3cret-key-value" };
});
after(() => server.close());

async function adapter(tools: unknown[], extra: Record<string, unknown> = {}): Promise<Adapter> {
  return createRestAdapter({ kind: "rest", baseUrl: "${API_BASE}", tools, ...extra }, { pluginDir: "/tmp", manifest: {}, env, log: silent });
}

function lastUrl(): string {
  return server.requests.at(-1)?.url ?? "";
}

describe("path parameters", () => {
  it("are encoded with encodeURIComponent, so a value with slashes stays one segment", async () => {
    const a = await adapter([{ name: "get", method: "GET", path: "/repos/{owner}/{repo}" }]);
    const result = (await a.call("get", { owner: "a/b...c/.d", repo: "x y?#%" })) as { status: number; data: { url: string } };
    assert.equal(result.status, 200);
    assert.equal(result.data.url, "/api/repos/a%2Fb...c%2F.d/x%20y%3F%23%25");
  });

  it("refuse a value with a dot segment between its slashes, also percent-encoded, before any request is sent", async () => {
    // Sent as one segment (`..%2F..%2Fadmin`), but a front that decodes %2F first (nginx, Apache
    // AllowEncodedSlashes) would resolve it to /admin, outside the base path.
    const a = await adapter([{ name: "get", method: "GET", path: "/items/{id}" }]);
    const before = server.requests.length;
    const values: [string, string][] = [
      ["../../admin", ".."],
      ["a/../b", ".."],
      ["a/./b", "."],
      ["..\\admin", ".."],
      ["%2e%2e/admin", ".."],
      ["%252e%252e%252fadmin", ".."],
      ["x/..;/admin", "..;"],
      ["x/..%2fadmin", ".."],
    ];
    for (const [value, segment] of values) {
      await assert.rejects(a.call("get", { id: value }), (e: Error & { code?: string }) => {
        assert.equal(e.code, "ARG_VALIDATION_FAILED", e.message);
        assert.ok(e.message.includes(`path parameter 'id' must not contain a '${segment}' segment between slashes (${JSON.stringify(value)})`), e.message);
        assert.match(e.message, /pass the identifier itself/);
        return true;
      });
    }
    assert.equal(server.requests.length, before);
  });

  it("refuse a value that is a dot segment, before any request is sent", async () => {
    const a = await adapter([{ name: "get", method: "GET", path: "/repos/{owner}" }]);
    const before = server.requests.length;
    for (const value of ["..", ".", "..;", ".;x=1"]) {
      await assert.rejects(a.call("get", { owner: value }), (e: Error & { code?: string }) => {
        assert.equal(e.code, "ARG_VALIDATION_FAILED");
        assert.match(e.message, /owner/);
        assert.ok(e.message.includes(JSON.stringify(value)));
        return true;
      });
    }
    await assert.rejects(a.call("get", {}), /missing path parameter 'owner'/);
    assert.equal(server.requests.length, before);
  });
});

describe("path templates in the manifest", () => {
  const refused: [string, RegExp][] = [
    ["https://evil.example/x", /absolute URL/],
    ["//evil.example/x", /'\/\/'/],
    ["/a/../b", /'\.\.' segment/],
    ["/a/./b", /'\.' segment/],
    ["/..", /'\.\.' segment/],
    ["/ok/..;/admin", /'\.\.;'.*servlet/],
    ["/ok/..;jsessionid=1/admin", /servlet/],
    ["/ok/.;/admin", /servlet/],
    ["/ok/..%3b/admin", /servlet/],
    ["/%2e%2e/admin", /encoded/],
    ["/%2E%2E/admin", /encoded/],
    ["/a%2fb", /encoded/],
    ["/a%252e%252e/x", /encoded/],
    ["/a%5cb", /encoded/],
    ["\\\\evil.example\\x", /backslash|must start/],
    ["/a\\b", /backslash/],
    ["relative/path", /must start with '\/'/],
    ["/x?y=1", /'\?'/],
    ["/x y", /whitespace/],
  ];
  for (const [path, reason] of refused) {
    it(`refuse ${JSON.stringify(path)}`, async () => {
      await assert.rejects(adapter([{ name: "t", method: "GET", path }]), (e: Error) => {
        assert.match(e.message, /tools\[0\]\.path/);
        assert.ok(e.message.includes(JSON.stringify(path)), e.message);
        assert.match(e.message, reason);
        return true;
      });
    });
  }
});

describe("raw paths given to the text-layer requester", () => {
  const refused = [
    "http://127.0.0.1:1/x",
    "//evil.example/x",
    "/../admin",
    "/a/../../admin",
    "/%2e%2e/admin",
    "/.%2e/admin",
    "/a%2f..%2f..%2fadmin",
    "/a%252f..",
    "/a\\..\\admin",
    "/ok/..;/admin",
    "/ok/..;x=1/..;/admin",
    "/ok/.;/admin",
    "x",
    "/a#frag",
  ];
  for (const path of refused) {
    it(`refuse ${JSON.stringify(path)}`, async () => {
      const requester = restRequesterFromEnv({ AGENT_API_BASE_URL: `${server.url}/api`, AGENT_API_TOKEN: "tok-123456" });
      const before = server.requests.length;
      await assert.rejects(requester.request("GET", path), (e: Error & { code?: string }) => {
        assert.equal(e.code, "ARG_VALIDATION_FAILED");
        assert.ok(e.message.includes(JSON.stringify(path)), e.message);
        return true;
      });
      assert.equal(server.requests.length, before);
    });
  }

  it("send a good path with its query under the base, with the bearer token", async () => {
    const requester = restRequesterFromEnv({ AGENT_API_BASE_URL: `${server.url}/api/`, AGENT_API_TOKEN: "tok-123456" });
    const result = await requester.request("post", "/things?x=1&y=a%20b", { a: 1 });
    assert.equal(result.status, 200);
    const recorded = server.requests.at(-1);
    assert.equal(recorded?.url, "/api/things?x=1&y=a%20b");
    assert.equal(recorded?.method, "POST");
    assert.equal(recorded?.headers.authorization, "Bearer tok-123456");
    assert.equal(recorded?.body, '{"a":1}');
  });

  it("is NOT_CONFIGURED without AGENT_API_BASE_URL", () => {
    assert.throws(() => restRequesterFromEnv({}), (e: Error & { code?: string }) => e.code === "NOT_CONFIGURED" && /AGENT_API_BASE_URL/.test(e.message));
  });
});

describe("URLs from the server", () => {
  it("follow a redirect that stays under the base", async () => {
    const a = await adapter([{ name: "t", method: "GET", path: "/redirect-in" }]);
    const result = (await a.call("t", {})) as { data: { url: string } };
    assert.equal(result.data.url, "/api/landed");
  });

  it("refuse a redirect to another origin, so credentials never follow it", async () => {
    const a = await adapter([{ name: "t", method: "GET", path: "/redirect-out" }], { auth: { type: "header", name: "X-Key", value: "${KEY}" } });
    await assert.rejects(a.call("t", {}), (e: Error & { code?: string }) => {
      assert.equal(e.code, "UPSTREAM_ERROR");
      assert.match(e.message, /redirected outside the base URL/);
      assert.ok(!e.message.includes("s3cret-key-value"));
      return true;
    });
  });

  it("refuse a Link next URL on another origin or outside the base path", async () => {
    const a = await adapter([
      { name: "out", method: "GET", path: "/link-out", paginate: { style: "link" } },
      { name: "prefix", method: "GET", path: "/link-prefix", paginate: { style: "link" } },
    ]);
    // The server's header, not the arguments: the page read so far comes back, marked incomplete.
    type Paged = { items: unknown[]; pages: number; complete: boolean; stoppedBecause?: string; stoppedDetail?: string };
    const out = (await a.call("out", {})) as Paged;
    assert.deepEqual([out.items, out.pages, out.complete, out.stoppedBecause], [[1], 1, false, "nextLinkRefused"]);
    assert.match(out.stoppedDetail ?? "", /Link header next URL 'http:\/\/example\.invalid\/api\/page2' is outside the base URL.*different origin/);
    const prefix = (await a.call("prefix", {})) as Paged;
    assert.equal(prefix.stoppedBecause, "nextLinkRefused");
    assert.match(prefix.stoppedDetail ?? "", /outside the base URL.*does not start with '\/api\/'/);
    assert.ok(!lastUrl().startsWith("/other"));
  });

  it("keep the base prefix boundary: /api does not admit /api2", async () => {
    const { assertWithinBase, parseBaseUrl } = await import("../src/adapters/rest/index.js");
    const base = parseBaseUrl(`${server.url}/api`);
    assert.throws(() => assertWithinBase(new URL(`${server.url}/api2/x`), base), /outside the base URL/);
    assert.doesNotThrow(() => assertWithinBase(new URL(`${server.url}/api/x`), base));
  });

  it("refuse a server-given URL whose path has a servlet dot segment (`..;`), which URL parsing keeps", async () => {
    const { assertWithinBase, parseBaseUrl } = await import("../src/adapters/rest/index.js");
    const base = parseBaseUrl(`${server.url}/api`);
    assert.throws(() => assertWithinBase(new URL(`${server.url}/api/ok/..;/..;/admin`), base), /'\.\.;'.*dot segment/);
  });
});

describe("base URL", () => {
  it("refuses a base that is not http(s), or that carries a query or credentials", async () => {
    for (const baseUrl of ["file:///etc", "https://u:p@host/x", "https://host/x?y=1", "not a url"]) {
      const a = await createRestAdapter({ kind: "rest", baseUrl, tools: [{ name: "t", path: "/x" }] }, { pluginDir: "/tmp", manifest: {}, env: {}, log: silent });
      await assert.rejects(a.call("t", {}), (e: Error & { code?: string }) => e.code === "NOT_CONFIGURED" && /baseUrl/.test(e.message));
    }
  });

  it("a base with a key in its query is refused without showing the key (it is often one: ?access_key=…)", async () => {
    const a = await createRestAdapter({ kind: "rest", baseUrl: "https://api.example.com/v1?access_key=lit-base-key-12345#frag-9", tools: [{ name: "t", path: "/x" }] }, { pluginDir: "/tmp", manifest: {}, env: {}, log: silent });
    await assert.rejects(a.call("t", {}), (e: Error & { code?: string }) => {
      assert.equal(e.code, "NOT_CONFIGURED");
      assert.match(e.message, /baseUrl 'https:\/\/api\.example\.com\/v1' must not have a query/);
      assert.ok(!e.message.includes("lit-base-key-12345") && !e.message.includes("frag-9"), e.message);
      // The fix is in plugin.json (the key goes to adapter.auth), not a variable in the environment.
      const hint = (e as Error & { hint?: string }).hint ?? "";
      assert.match(hint, /plugin\.json/);
      assert.match(hint, /adapter\.auth/);
      assert.match(hint, /"type": "query"/);
      assert.doesNotMatch(hint, /Set what/, "not the generic NOT_CONFIGURED hint (set a variable)");
      assert.ok(!hint.includes("lit-base-key-12345"), hint);
      return true;
    });
  });
});

describe("secrets in errors", () => {
  it("a secret base URL variable is redacted from guard messages too", async () => {
    const secretEnv = { SECRET_BASE: `${server.url}/api` };
    const a = await createRestAdapter(
      { kind: "rest", baseUrl: "${SECRET_BASE}", tools: [{ name: "t", path: "/link-prefix", paginate: { style: "link" } }] },
      { pluginDir: "/tmp", manifest: {}, env: secretEnv, log: silent },
    );
    const result = (await a.call("t", {})) as { stoppedDetail?: string };
    assert.match(result.stoppedDetail ?? "", /outside the base URL '\[redacted\]'/);
    await assert.rejects(a.call("nope", {}), (e: Error & { code?: string }) => e.code === "UNKNOWN_TOOL" && /known: t/.test(e.message));
  });
});
