import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import { createRestAdapter } from "../src/adapters/rest/index.js";
import { urlCredentials } from "../src/adapters/shared/env-vars.js";
import { createRedactor } from "../src/adapters/shared/redact.js";
import type { Adapter } from "../src/adapters/types.js";
import { sendJson, silent, startServer, type TestServer } from "./fixtures/rest/http-server.js";

/**
 * What a REST call answers when the service's answer is ordinary but awkward: results that quote
 * the base URL, a 200 labelled JSON that is not, credentials the service refuses.
 */

const KEY = "tk_live_SUPERSECRET_0123456789";
const PASSWORD = "RealPassw0rd!!";
let server: TestServer;
let env: NodeJS.ProcessEnv;

before(async () => {
  server = await startServer((req, res) => {
    const path = req.url.split("?")[0];
    if (path === "/api/echo-base") return sendJson(res, 200, { html_url: `${server.url}/api/o/r`, title: `check ${server.url}/api/health is up` });
    if (path === "/api/portal") {
      res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
      return res.end(`<html>captive portal ${"x".repeat(400)}</html>`);
    }
    if (path === "/api/vendor-json") {
      res.writeHead(200, { "content-type": "application/vnd.github+json" });
      return res.end("{not json");
    }
    if (path === "/api/gzip-500") {
      res.writeHead(500, { "content-type": "application/json", "content-encoding": "gzip" });
      return res.end(gzipSync(Buffer.alloc(5000)));
    }
    if (path === "/api/bytes-502") {
      res.writeHead(502);
      return res.end(Buffer.from(Array.from({ length: 700 }, (_, i) => (i * 37) % 256)));
    }
    if (path === "/api/text-500") {
      res.writeHead(500, { "content-type": "text/plain" });
      return res.end("Tab\there, an accent: é, and a line\nbreak");
    }
    const streams: Record<string, [string, string]> = {
      "/api/seq": ["application/json-seq", '\x1e{"a":1}\n\x1e{"a":2}\n'],
      "/api/lines": ["application/json-lines", '{"a":1}\n{"a":2}\n'],
      "/api/ndjson": ["application/x-ndjson; charset=utf-8", '{"a":1}\n{"a":2}\n'],
      "/api/text-json": ["text/json ; charset=utf-8", '{"a":1}'],
    };
    const stream = path === undefined ? undefined : streams[path];
    if (stream) {
      res.writeHead(200, { "content-type": stream[0] });
      return res.end(stream[1]);
    }
    if (path === "/api/bytes-200") {
      res.writeHead(200);
      return res.end(Buffer.from([0, 1, 2, 255, 254, 0, 7, 8]));
    }
    if (path === "/api/latin1") {
      res.writeHead(200, { "content-type": "text/plain; charset=iso-8859-1" });
      return res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9])); // "café" in Latin-1
    }
    if (path === "/api/bignum") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end('{"id": 12345678901234567890, "price": 1.50, "n": 3, "note": "1.50 in a string"}');
    }
    if (path === "/api/plain-numbers") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end('{"id": 1234567890123456, "price": 1.5, "v": "v1.0", "big": "12345678901234567890"}');
    }
    if (path === "/api/deep") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(`${"[".repeat(5000)}"${KEY}"${"]".repeat(5000)}`);
    }
    if (path === "/api/not-modified") {
      res.writeHead(304);
      return res.end();
    }
    if (path === "/api/text") {
      res.writeHead(200, { "content-type": "text/plain" });
      return res.end("plain words");
    }
    if (path === "/api/login") {
      const body = JSON.parse(req.body) as { password?: string };
      if (body.password !== PASSWORD) return sendJson(res, 400, { message: "Failed to authenticate." });
      return sendJson(res, 200, { token: "session-token-0123456789" });
    }
    if (path === "/api/echo-prefix") return sendJson(res, 401, { message: `Bad credentials for ${String(req.headers["x-api-key"]).slice(0, 12)}…` });
    if (path === "/api/limited") return sendJson(res, 403, { message: "slow down" }, { "x-ratelimit-remaining": "0" });
    if (req.headers["x-api-key"] !== KEY) return sendJson(res, 401, { error: "invalid api key" });
    sendJson(res, 200, { ok: true });
  });
  env = { TASKS_API_BASE: `${server.url}/api`, TASKS_API_KEY: KEY, PB_EMAIL: "admin@example.com", PB_PASS: PASSWORD };
});
after(() => server.close());

async function adapter(tools: unknown[], extra: Record<string, unknown> = {}, hostEnv = env): Promise<{ a: Adapter; redact: (text: string) => string }> {
  const redactor = createRedactor();
  const a = await createRestAdapter(
    { kind: "rest", baseUrl: "${TASKS_API_BASE}", auth: { type: "header", name: "x-api-key", value: "${TASKS_API_KEY}" }, tools, ...extra },
    { pluginDir: "/tmp", manifest: {}, env: hostEnv, log: silent, redactor },
  );
  return { a, redact: (text) => redactor.redact(text) };
}

type Failure = Error & { code?: string; hint?: string; details?: Record<string, unknown> };

describe("the base URL in results", () => {
  it("stays readable: the base URL variable is an address, not a credential", async () => {
    const { a, redact } = await adapter([{ name: "echo", path: "/echo-base" }]);
    const result = (await a.call("echo", {})) as { data: { html_url: string; title: string } };
    assert.equal(result.data.html_url, `${server.url}/api/o/r`);
    assert.equal(result.data.title, `check ${server.url}/api/health is up`);
    assert.equal(redact(`see ${server.url}/api`), `see ${server.url}/api`);
    assert.equal(redact(`key ${KEY}`), "key [redacted]", "the auth value is still masked");
  });

  it("a bad base URL value is quoted in the error, a credential in it is not", async () => {
    const { a } = await adapter([{ name: "echo", path: "/echo-base" }], {}, { ...env, TASKS_API_BASE: "api.example.com/v1" });
    await assert.rejects(a.call("echo", {}), (e: Failure) => e.code === "NOT_CONFIGURED" && e.message.includes("baseUrl 'api.example.com/v1' is not an absolute URL"));
    const { a: withUser } = await adapter([{ name: "echo", path: "/echo-base" }], {}, { ...env, TASKS_API_BASE: "admin:hunter2-long@localhost/api" });
    await assert.rejects(withUser.call("echo", {}), (e: Failure) => {
      assert.ok(!e.message.includes("hunter2-long"), e.message);
      assert.match(e.message, /admin:\[redacted\]@localhost/);
      return true;
    });
  });

  it("urlCredentials picks the credential parts of a URL, nothing else", () => {
    assert.deepEqual(urlCredentials("https://api.example.com/v1?format=json&page=2"), []);
    assert.deepEqual(urlCredentials("https://user:p%40ss@h.example/x").sort(), ["p%40ss", "p@ss"].sort());
    assert.deepEqual(urlCredentials("https://ghp_0123456789abcdefghijKLMN@h.example/"), ["ghp_0123456789abcdefghijKLMN"]);
    assert.deepEqual(urlCredentials("https://h.example/mcp?api_key=k-123&key=abcd&sig=zz99&q=hello"), ["k-123", "abcd", "zz99"]);
    assert.deepEqual(urlCredentials("https://h.example/mcp?session=a1b2c3d4e5f6g7h8i9j0k1"), ["a1b2c3d4e5f6g7h8i9j0k1"], "a token-shaped value whatever its name");
    assert.deepEqual(urlCredentials("u:secretpw@h.example"), ["secretpw"], "read as http:// when the scheme is missing");
  });
});

describe("a 2xx labelled JSON that is not JSON", () => {
  it("is UPSTREAM_ERROR with the status, the content type, the body's start and a hint naming the base URL variable", async () => {
    const { a } = await adapter([{ name: "portal", path: "/portal" }]);
    await assert.rejects(a.call("portal", {}), (e: Failure) => {
      assert.equal(e.code, "UPSTREAM_ERROR");
      assert.match(e.message, /GET \/api\/portal answered HTTP 200 with Content-Type 'application\/json; charset=utf-8' but a body that is not JSON: <html>captive portal x+…$/);
      assert.ok(e.message.length < 400, "only the first characters are quoted");
      assert.match(e.hint ?? "", /something other than its API/);
      assert.match(e.hint ?? "", /TASKS_API_BASE/);
      assert.deepEqual(e.details, { status: 200, contentType: "application/json; charset=utf-8" });
      return true;
    });
  });

  it("a +json vendor type counts as JSON; text/plain stays a text result", async () => {
    const { a } = await adapter([
      { name: "vendor", path: "/vendor-json" },
      { name: "text", path: "/text" },
    ]);
    await assert.rejects(a.call("vendor", {}), (e: Failure) => e.code === "UPSTREAM_ERROR" && /application\/vnd\.github\+json' but a body that is not JSON: \{not json$/.test(e.message));
    assert.deepEqual(await a.call("text", {}), { status: 200, data: "plain words" });
  });

  it("a stream of JSON texts (json-seq, json-lines, ndjson) is a text result, not a body that is not JSON; text/json with parameters is JSON", async () => {
    const { a } = await adapter(["seq", "lines", "ndjson", "text-json"].map((name) => ({ name, path: `/${name}` })));
    assert.deepEqual(await a.call("seq", {}), { status: 200, data: '\x1e{"a":1}\n\x1e{"a":2}\n' });
    assert.deepEqual(await a.call("lines", {}), { status: 200, data: '{"a":1}\n{"a":2}\n' });
    assert.deepEqual(await a.call("ndjson", {}), { status: 200, data: '{"a":1}\n{"a":2}\n' });
    assert.deepEqual(await a.call("text-json", {}), { status: 200, data: { a: 1 } });
  });
});

describe("an error body that is not text", () => {
  it("is described by its size and content type, not quoted as escaped bytes; a text body is still quoted", async () => {
    const { a } = await adapter([
      { name: "gz", path: "/gzip-500" },
      { name: "bytes", path: "/bytes-502" },
      { name: "text", path: "/text-500" },
    ]);
    await assert.rejects(a.call("gz", {}), (e: Failure) => {
      assert.equal(e.code, "UPSTREAM_ERROR");
      assert.equal(e.message, "GET /api/gzip-500 answered HTTP 500: a binary body of 5000 bytes (content type application/json)");
      return true;
    });
    await assert.rejects(a.call("bytes", {}), (e: Failure) => {
      assert.equal(e.message, "GET /api/bytes-502 answered HTTP 502: a binary body of 700 bytes (no content type)");
      return true;
    });
    await assert.rejects(a.call("text", {}), (e: Failure) => e.message === "GET /api/text-500 answered HTTP 500: Tab here, an accent: é, and a line break");
  });
});

describe("awkward success bodies", () => {
  it("a binary body with no Content-Type is described, not dumped as mangled text", async () => {
    const { a } = await adapter([{ name: "bytes", path: "/bytes-200" }]);
    assert.deepEqual(await a.call("bytes", {}), { status: 200, data: { binary: true, contentType: null, bytes: 8 } });
  });

  it("a text body is decoded with the charset its Content-Type names", async () => {
    const { a } = await adapter([{ name: "latin1", path: "/latin1" }]);
    assert.deepEqual(await a.call("latin1", {}), { status: 200, data: "café" });
  });

  it("a JSON body is parsed; only a number whose value JSON.parse would change is kept, as a string of its text", async () => {
    const { a } = await adapter([
      { name: "bignum", path: "/bignum" },
      { name: "plain", path: "/plain-numbers" },
    ]);
    assert.deepEqual(await a.call("bignum", {}), { status: 200, data: { id: "12345678901234567890", price: 1.5, n: 3, note: "1.50 in a string" } });
    assert.deepEqual(await a.call("plain", {}), { status: 200, data: { id: 1234567890123456, price: 1.5, v: "v1.0", big: "12345678901234567890" } });
  });

  it("a JSON body nested 5,000 levels deep goes on as its text, masked, not a stack overflow", async () => {
    const { a } = await adapter([{ name: "deep", path: "/deep" }]);
    const result = (await a.call("deep", {})) as { status: number; data: string };
    assert.equal(result.status, 200);
    assert.equal(result.data, `${"[".repeat(5000)}"[redacted]"${"]".repeat(5000)}`);
  });

  it("a 304 says it had no body, not an empty quote", async () => {
    const { a } = await adapter([{ name: "nm", path: "/not-modified" }]);
    await assert.rejects(a.call("nm", {}), (e: Failure) => {
      assert.equal(e.message, "GET /api/not-modified answered HTTP 304 (Not Modified), with no body");
      return true;
    });
  });
});

describe("refused credentials", () => {
  it("a 401 names the variable the auth reads", async () => {
    const { a } = await adapter([{ name: "list", path: "/tasks" }], {}, { ...env, TASKS_API_KEY: "wrong_key_zzzzzz1" });
    await assert.rejects(a.call("list", {}), (e: Failure) => {
      assert.equal(e.code, "UPSTREAM_ERROR");
      assert.match(e.message, /HTTP 401/);
      assert.match(e.hint ?? "", /refused the credentials \(HTTP 401\): TASKS_API_KEY, which this plugin's auth reads/);
      assert.match(e.hint ?? "", /restart/);
      return true;
    });
  });

  it("a 403 that says the rate limit is used up keeps the generic hint", async () => {
    const { a } = await adapter([{ name: "limited", path: "/limited" }]);
    await assert.rejects(a.call("limited", {}), (e: Failure) => e.code === "UPSTREAM_ERROR" && !/TASKS_API_KEY/.test(e.hint ?? ""));
  });

  it("a plugin's own errors rule still wins", async () => {
    const errors = [{ status: 401, message: "custom {body.error}", hint: "the plugin's hint" }];
    const { a } = await adapter([{ name: "list", path: "/tasks" }], { errors }, { ...env, TASKS_API_KEY: "wrong_key_zzzzzz1" });
    await assert.rejects(a.call("list", {}), (e: Failure) => e.hint === "the plugin's hint");
  });

  it("a login refused with 400 names the login's variables", async () => {
    const auth = { type: "login", url: "/login", body: { identity: "${PB_EMAIL}", password: "${PB_PASS}" }, tokenPath: "token" };
    const { a } = await adapter([{ name: "list", path: "/tasks" }], { auth }, { ...env, PB_PASS: "WrongPassw0rd_zz" });
    await assert.rejects(a.call("list", {}), (e: Failure) => {
      assert.match(e.message, /login failed: POST \/api\/login answered HTTP 400/);
      assert.match(e.hint ?? "", /HTTP 400\): PB_EMAIL and PB_PASS, which this plugin's auth reads, are wrong/);
      return true;
    });
  });
});

describe("an echoed beginning of a credential", () => {
  it("is masked when a service quotes the first characters of the key", async () => {
    const { a } = await adapter([{ name: "echo", path: "/echo-prefix" }]);
    await assert.rejects(a.call("echo", {}), (e: Failure) => {
      assert.ok(!e.message.includes(KEY.slice(0, 12)), e.message);
      assert.match(e.message, /Bad credentials for \[redacted\]…/);
      return true;
    });
  });

  it("from 12 characters on, as far as the run matches; not a key's kind, a short password's word or a secret URL's start", () => {
    const redactor = createRedactor(["ghp_SECRETTOKEN1234567890abcdef", "password1234", "https://api.example.com/secret-base"]);
    assert.equal(redactor.redact("Bad credentials for ghp_SECRETTOK and ghp_SECRETTOKEN12x"), "Bad credentials for [redacted] and [redacted]x");
    assert.equal(redactor.redact("a ghp_SECRETT token"), "a ghp_SECRETT token", "11 characters: left alone");
    assert.equal(redactor.redact("tokens start with ghp_"), "tokens start with ghp_");
    assert.equal(redactor.redact("the password field"), "the password field");
    assert.equal(redactor.redact("see https://api.example.com/docs"), "see https://api.example.com/docs");
    assert.deepEqual(redactor.redactValue({ ghp_SECRETTOKEN1: 1 }), { "[redacted]": 1 }, "a key that begins a secret is masked too");
  });
});
