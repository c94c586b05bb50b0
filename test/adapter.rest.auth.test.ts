import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { createRestAdapter } from "../src/adapters/rest/index.js";
import type { Adapter } from "../src/adapters/types.js";
import { sendJson, silent, startServer, type TestServer } from "./fixtures/rest/http-server.js";
import { pathToFileURL } from "node:url";
import { callJson, connect, ROOT, writePlugin } from "./helpers.js";

/** Each auth style against a real server, including login, token caching and re-login on 401. */

let server: TestServer;
let issued = 0;
let currentToken = "";
let loginDelayMs = 0;
let loginFails = false;
/** When set, the login answers JWT-shaped tokens with this `exp` (seconds since the epoch). */
let jwtExp: number | undefined;

function jwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "HS256", typ: "JWT" })}.${part(claims)}.c2lnbmF0dXJl`;
}
const env = { BASE: "", TOKEN: "bearer-secret-abc", KEY: "header-secret-def", QKEY: "query-secret-ghi", PB_USER: "ann@example.com", PB_PASS: "pass-word-jkl" };

before(async () => {
  server = await startServer(async (req, res) => {
    if (req.url === "/auth/login" && req.method === "POST") {
      if (loginDelayMs) await new Promise((resolve) => setTimeout(resolve, loginDelayMs));
      if (loginFails) return sendJson(res, 503, { message: "auth store unavailable" });
      const body = JSON.parse(req.body) as { identity?: string; password?: string };
      if (body.identity !== env.PB_USER || body.password !== env.PB_PASS) return sendJson(res, 400, { message: "bad credentials" });
      issued += 1;
      currentToken = jwtExp === undefined ? `session-token-${issued}` : jwt({ n: issued, exp: jwtExp });
      return sendJson(res, 200, { record: { id: "u1" }, token: currentToken });
    }
    if (req.url.startsWith("/login-protected")) {
      if (req.headers.authorization !== `Bearer ${currentToken}`) return sendJson(res, 401, { message: "token expired" });
      return sendJson(res, 200, { ok: true });
    }
    if (req.url.startsWith("/guest-403")) {
      // What PocketBase does with a token it no longer accepts: it answers as to a guest.
      if (req.headers.authorization !== `Bearer ${currentToken}`) return sendJson(res, 403, { status: 403, message: "Only superusers can perform this action.", data: {} });
      return sendJson(res, 200, { ok: true });
    }
    if (req.url.startsWith("/always-401")) return sendJson(res, 401, { message: "no", echo: req.headers.authorization });
    sendJson(res, 200, { url: req.url, authorization: req.headers.authorization ?? null, key: req.headers["x-api-key"] ?? null });
  });
  env.BASE = server.url;
});
after(() => server.close());

async function make(auth: unknown, tools: unknown[] = [{ name: "echo", path: "/echo" }]): Promise<Adapter> {
  return await (createRestAdapter({ kind: "rest", baseUrl: "${BASE}", auth, tools }, { pluginDir: "/tmp", manifest: {}, env, log: silent }));
}

describe("auth styles", () => {
  it("bearer: Authorization: Bearer <token>, and the token never reaches the result", async () => {
    const a = await make({ type: "bearer", token: "${TOKEN}" });
    const result = (await a.call("echo", {})) as { data: { authorization: string } };
    assert.equal(server.requests.at(-1)?.headers.authorization, "Bearer bearer-secret-abc");
    assert.equal(result.data.authorization, "Bearer [redacted]");
    assert.ok(!JSON.stringify(result).includes(env.TOKEN));
  });

  it("header: a named header carries the key", async () => {
    const a = await make({ type: "header", name: "X-Api-Key", value: "${KEY}" });
    const result = (await a.call("echo", {})) as { data: { key: string } };
    assert.equal(server.requests.at(-1)?.headers["x-api-key"], env.KEY);
    assert.equal(result.data.key, "[redacted]");
  });

  it("query: a query parameter carries the key, and it is redacted from the echoed URL", async () => {
    const a = await make({ type: "query", name: "api_key", value: "${QKEY}" }, [{ name: "echo", path: "/echo", query: ["q"] }]);
    const result = (await a.call("echo", { q: "x" })) as { data: { url: string } };
    assert.equal(server.requests.at(-1)?.url, `/echo?q=x&api_key=${env.QKEY}`);
    assert.equal(result.data.url, "/echo?q=x&api_key=[redacted]");
  });

  it("a missing ${VAR} is NOT_CONFIGURED-shaped (MissingVariableError naming it)", async () => {
    const a = await make({ type: "bearer", token: "${NOT_SET_ANYWHERE}" });
    await assert.rejects(a.call("echo", {}), (e: Error & { variables?: string[] }) => {
      assert.equal(e.name, "MissingVariableError");
      assert.deepEqual(e.variables, ["NOT_SET_ANYWHERE"]);
      return true;
    });
  });

  it("login: POSTs the credentials once, caches the token, logs in again once on a 401 and retries", async () => {
    issued = 0;
    currentToken = "";
    const a = await make(
      { type: "login", url: "/auth/login", body: { identity: "${PB_USER}", password: "${PB_PASS}" }, tokenPath: "token" },
      [{ name: "get", path: "/login-protected" }, { name: "bad", path: "/always-401" }],
    );
    const logins = () => server.requests.filter((r) => r.url === "/auth/login").length;
    const start = logins();
    assert.deepEqual(await a.call("get", {}), { status: 200, data: { ok: true } });
    assert.deepEqual(await a.call("get", {}), { status: 200, data: { ok: true } });
    assert.equal(logins() - start, 1, "the token is cached");
    const login = server.requests.find((r) => r.url === "/auth/login");
    assert.deepEqual(JSON.parse(login?.body ?? "{}"), { identity: env.PB_USER, password: env.PB_PASS });

    currentToken = "rotated-on-the-server"; // the cached token is now stale → 401 → re-login → retry
    assert.deepEqual(await a.call("get", {}), { status: 200, data: { ok: true } });
    assert.equal(logins() - start, 2);
    assert.equal(server.requests.at(-1)?.headers.authorization, "Bearer session-token-2");

    // A 401 that persists after the re-login is reported (once retried, not looped), redacted.
    const before = server.requests.length;
    await assert.rejects(a.call("bad", {}), (e: Error & { code?: string; status?: number }) => {
      assert.equal(e.code, "UPSTREAM_ERROR");
      assert.equal(e.status, 401);
      assert.ok(!e.message.includes("session-token"), e.message);
      return true;
    });
    assert.equal(server.requests.length - before, 3, "one request, one re-login, one retry");
  });

  it("login: header and scheme options; a failed login is an UPSTREAM_ERROR without the password", async () => {
    issued = 0;
    const a = await make({ type: "login", url: "/auth/login", body: { identity: "${PB_USER}", password: "${PB_PASS}" }, header: "X-Session", scheme: "" });
    await a.call("echo", {});
    assert.equal(server.requests.at(-1)?.headers["x-session"], "session-token-1");

    const wrong = await createRestAdapter(
      { kind: "rest", baseUrl: "${BASE}", auth: { type: "login", url: "/auth/login", body: { identity: "x", password: "${PB_PASS}x" } }, tools: [{ name: "echo", path: "/echo" }] },
      { pluginDir: "/tmp", manifest: {}, env, log: silent },
    );
    await assert.rejects(wrong.call("echo", {}), (e: Error & { code?: string }) => {
      assert.equal(e.code, "UPSTREAM_ERROR");
      assert.match(e.message, /login failed: POST \/auth\/login answered HTTP 400: .*bad credentials/);
      assert.ok(!e.message.includes(env.PB_PASS));
      return true;
    });

    // Credentials written in the manifest itself (no variable to name): the refused login's 400 is
    // still the credentials' fault, for the user, never "fix the argument" (a login takes none of the call's).
    const literal = await make({ type: "login", url: "/auth/login", body: { identity: "x", password: "y" } });
    await assert.rejects(literal.call("echo", {}), (e: Error & { code?: string; hint?: string }) => {
      assert.equal(e.code, "UPSTREAM_ERROR");
      assert.match(e.hint ?? "", /^The service refused the credentials or this account's permissions \(HTTP 400\); the arguments are not at fault\. Tell the user/);
      assert.doesNotMatch(e.hint ?? "", /Fix the argument/);
      return true;
    });
  });

  it("login is single-flight: N concurrent calls on a cold start or an expired token cause one login each", async () => {
    issued = 0;
    currentToken = "";
    loginDelayMs = 30; // keep the login in flight while the other calls arrive
    const a = await make(
      { type: "login", url: "/auth/login", body: { identity: "${PB_USER}", password: "${PB_PASS}" } },
      [{ name: "get", path: "/login-protected" }],
    );
    const logins = () => server.requests.filter((r) => r.url === "/auth/login").length;
    const start = logins();
    const cold = await Promise.all(Array.from({ length: 6 }, () => a.call("get", {})));
    assert.ok(cold.every((r) => (r as { status: number }).status === 200));
    assert.equal(logins() - start, 1, "one login shared by six concurrent calls");

    currentToken = "expired-on-the-server";
    const expired = await Promise.all(Array.from({ length: 6 }, () => a.call("get", {})));
    assert.ok(expired.every((r) => (r as { status: number }).status === 200));
    assert.equal(logins() - start, 2, "six 401s with the same stale token cause one re-login");
    loginDelayMs = 0;
  });

  it("login: a failed login is not cached; the next call logs in afresh", async () => {
    issued = 0;
    currentToken = "";
    loginFails = true;
    const a = await make(
      { type: "login", url: "/auth/login", body: { identity: "${PB_USER}", password: "${PB_PASS}" } },
      [{ name: "get", path: "/login-protected" }],
    );
    await assert.rejects(a.call("get", {}), /login failed: .*HTTP 503: .*auth store unavailable/);
    await assert.rejects(a.call("get", {}), /login failed/, "tried again, not a cached rejection");
    loginFails = false;
    assert.deepEqual(await a.call("get", {}), { status: 200, data: { ok: true } });
    assert.equal(server.requests.filter((r) => r.url === "/auth/login").length >= 3, true);
  });

  it("login: a caller that gives up does not fail the others sharing its login", async () => {
    issued = 0;
    currentToken = "";
    loginDelayMs = 80;
    const a = await make(
      { type: "login", url: "/auth/login", body: { identity: "${PB_USER}", password: "${PB_PASS}" } },
      [{ name: "get", path: "/login-protected" }],
    );
    const controller = new AbortController();
    const impatient = a.call("get", {}, { signal: controller.signal, sessionId: "s", log: silent });
    const patient = a.call("get", {});
    setTimeout(() => controller.abort(), 10);
    await assert.rejects(impatient, /cancelled/);
    assert.deepEqual(await patient, { status: 200, data: { ok: true } });
    assert.equal(issued, 1);
    loginDelayMs = 0;
  });

  it("login: a JWT whose exp has passed is renewed before it is sent, without waiting for a 401", async () => {
    issued = 0;
    currentToken = "";
    jwtExp = Math.floor(Date.now() / 1000) - 60; // every token the server issues has already lapsed
    const a = await make(
      { type: "login", url: "/auth/login", body: { identity: "${PB_USER}", password: "${PB_PASS}" } },
      [{ name: "get", path: "/login-protected" }],
    );
    const start = server.requests.length;
    await a.call("get", {});
    await a.call("get", {});
    const seen = server.requests.slice(start).map((r) => r.url);
    assert.deepEqual(seen, ["/auth/login", "/login-protected", "/auth/login", "/login-protected"], "a fresh token is used once, then renewed");
    jwtExp = Math.floor(Date.now() / 1000) + 3600;
    await a.call("get", {});
    await a.call("get", {});
    assert.equal(issued, 3, "a token valid for an hour is kept");
    jwtExp = undefined;
  });

  it("login: retryOn lists the statuses that mean a refused token (a guest-answering server's 403)", async () => {
    issued = 0;
    currentToken = "";
    const login = { type: "login", url: "/auth/login", body: { identity: "${PB_USER}", password: "${PB_PASS}" } };
    const a = await make({ ...login, retryOn: [401, 403] }, [{ name: "get", path: "/guest-403" }]);
    assert.deepEqual(await a.call("get", {}), { status: 200, data: { ok: true } });
    currentToken = "revoked";
    assert.deepEqual(await a.call("get", {}), { status: 200, data: { ok: true } });
    assert.equal(issued, 2, "the 403 caused one re-login");

    const plain = await make(login, [{ name: "get", path: "/guest-403" }]);
    await plain.call("get", {});
    currentToken = "revoked-again";
    await assert.rejects(plain.call("get", {}), /HTTP 403: .*Only superusers/, "by default only a 401 retries");
    await assert.rejects(make({ ...login, retryOn: [500] }), /auth\.retryOn\[0\] must be an HTTP 4xx status/);
  });

  it("refuses a login URL outside the base when the adapter is built, naming auth.url", async () => {
    await assert.rejects(async () => make({ type: "login", url: "https://evil.example/login", body: { p: "${PB_PASS}" } }), /auth\.url is refused: auth\.url "https:\/\/evil\.example\/login" is an absolute URL/);
  });

  it("names the field of a malformed auth block", async () => {
    await assert.rejects(make({ type: "oauth" }), /auth\.type must be one of bearer, header, query, login/);
    await assert.rejects(make({ type: "header", name: "X" }), /auth\.value is required; it must be a non-empty string/);
  });
});

describe("what only the configuration can fix, over stdio", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "rest-config-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("a login url that leaves the base URL is refused when the adapter is built: NOT_CONFIGURED naming adapter.auth.url, not the arguments", async () => {
    const before = server.requests.length;
    await assert.rejects(
      async () => createRestAdapter({ kind: "rest", baseUrl: server.url, auth: { type: "login", url: `${server.url}/auth/login`, body: {} }, tools: [{ name: "t", path: "/login-protected" }] }, { pluginDir: "/tmp", manifest: {}, env, log: silent }),
      /auth\.url is refused: auth\.url "http:\/\/127\.0\.0\.1:\d+\/auth\/login" is an absolute URL; only paths under the base URL are allowed; write the login's path under adapter\.baseUrl/,
    );
    const plugins = path.join(dir, "login");
    writePlugin(path.join(plugins, "agent-tools-plugin-lg"), {
      name: "lg",
      prefix: "lg",
      description: "a login url outside the base",
      adapter: { kind: "rest", baseUrl: server.url, auth: { type: "login", url: `${server.url}/auth/login`, body: {} }, tools: [{ name: "t", path: "/login-protected" }] },
    });
    // With a catalog cache the server builds the adapter at first use (as a user's server does), so the call meets the problem.
    const connected = await connect(plugins, { AGENT_TOOLS_CATALOG_CACHE: "on", AGENT_TOOLS_CACHE_DIR: path.join(dir, "cache") });
    try {
      const { payload } = await callJson(connected.client, "agent_tools_lg_call", { toolName: "t", arguments: {} });
      assert.equal(payload.error?.code, "NOT_CONFIGURED", JSON.stringify(payload));
      assert.match(payload.error?.message ?? "", /field 'adapter\.auth\.url' is refused/);
      assert.match(payload.error?.hint ?? "", /^Fix the plugin's manifest as `message` says .*Tool arguments cannot fix this\.$/);
    } finally {
      await connected.close();
    }
    assert.equal(server.requests.length, before, "nothing was sent");
  });

  it("an OpenAPI spec URL that cannot be read at first use is the service's failure, not the manifest's: UPSTREAM_ERROR to retry later, never LOOP_DETECTED, and a use after the service is back works", async () => {
    const closed = await startServer((_req, res) => sendJson(res, 200, {}));
    const closedUrl = closed.url;
    await closed.close();
    let specUp = false;
    const spec = await startServer((req, res) => {
      if (!specUp) return sendJson(res, 503, { message: "starting" });
      if (req.url === "/openapi.json") return sendJson(res, 200, { openapi: "3.0.3", info: { title: "pets", version: "1" }, servers: [{ url: spec.url }], paths: { "/ping": { get: { operationId: "ping", responses: {} } } } });
      return sendJson(res, 200, { pong: true });
    });
    const plugins = path.join(dir, "spec-down");
    writePlugin(path.join(plugins, "agent-tools-plugin-gone"), { name: "gone", prefix: "gone", description: "a spec on a closed port", adapter: { kind: "openapi", spec: `${closedUrl}/openapi.json` } });
    writePlugin(path.join(plugins, "agent-tools-plugin-late"), { name: "late", prefix: "late", description: "a spec whose service starts late", adapter: { kind: "openapi", spec: `${spec.url}/openapi.json` } });
    const connected = await connect(plugins, { AGENT_TOOLS_CATALOG_CACHE: "on", AGENT_TOOLS_CACHE_DIR: path.join(dir, "spec-cache") });
    try {
      for (let i = 0; i < 4; i++) {
        const { payload } = await callJson(connected.client, "agent_tools_gone_call", { toolName: "ping", arguments: {} });
        assert.equal(payload.error?.code, "UPSTREAM_ERROR", JSON.stringify(payload));
        assert.match(payload.error?.message ?? "", /spec 'http:\/\/127\.0\.0\.1:\d+\/openapi\.json' could not be read/);
        assert.match(payload.error?.hint ?? "", /could not be reached; the call's arguments are not at fault\. Retry later/);
      }
      for (let i = 0; i < 4; i++) {
        const { payload } = await callJson(connected.client, "agent_tools_late_call", { toolName: "ping", arguments: {} });
        assert.equal(payload.error?.code, "UPSTREAM_ERROR", JSON.stringify(payload));
        assert.match(payload.error?.message ?? "", /HTTP ERROR 503/);
      }
      specUp = true;
      const { payload, isError } = await callJson(connected.client, "agent_tools_late_call", { toolName: "ping", arguments: {} });
      assert.equal(isError, false, JSON.stringify(payload));
      assert.deepEqual((payload.result as { data: unknown }).data, { pong: true });
    } finally {
      await connected.close();
      await spec.close();
    }
  });

  it("a base URL nothing answers at: the host and the base URL's variable are named, with a hint to start the service", async () => {
    const closed = await startServer((_req, res) => sendJson(res, 200, {}));
    const { host } = new URL(closed.url);
    await closed.close();
    const plugins = path.join(dir, "down");
    writePlugin(path.join(plugins, "agent-tools-plugin-down"), {
      name: "down",
      prefix: "down",
      description: "a service that is not running",
      adapter: { kind: "rest", baseUrl: "${DOWN_BASE}/v1", tools: [{ name: "t", path: "/items" }] },
    });
    const connected = await connect(plugins, { DOWN_BASE: `http://${host}` });
    try {
      const { payload } = await callJson(connected.client, "agent_tools_down_call", { toolName: "t", arguments: {} });
      assert.equal(payload.error?.code, "UPSTREAM_ERROR", JSON.stringify(payload));
      assert.match(payload.error?.message ?? "", new RegExp(`GET /v1/items failed: could not reach ${host.replace(/\./g, "\\.")} \\(ECONNREFUSED: nothing answered there\\)`));
      assert.match(payload.error?.hint ?? "", /start the service, or check that DOWN_BASE \(the base URL's variable, in the agent-tools server's environment\) names the right host and port/);
      assert.deepEqual(payload.error?.details, { host, code: "ECONNREFUSED" });
    } finally {
      await connected.close();
    }
  });

  it("a base URL written out, or built by a module adapter: the hint names where it is set (plugin.json's field, or the variable the module names), and an openapi clause only for openapi", async () => {
    const closed = await startServer((_req, res) => sendJson(res, 200, {}));
    const base = closed.url;
    await closed.close();
    const plugins = path.join(dir, "written-out");
    writePlugin(path.join(plugins, "agent-tools-plugin-fixed"), {
      name: "fixed",
      prefix: "fixed",
      description: "a base URL written in plugin.json",
      adapter: { kind: "rest", baseUrl: base, tools: [{ name: "t", path: "/items" }] },
    });
    // As the bundled ollama plugin does: the block is built in code, its URL read from a variable (here unset, so a default).
    const kit = pathToFileURL(path.join(ROOT, "dist", "adapter-kit.js")).href;
    writePlugin(
      path.join(plugins, "agent-tools-plugin-coded"),
      { name: "coded", prefix: "coded", description: "a base URL a module adapter chose", adapter: "./adapter.mjs" },
      {
        "adapter.mjs": `import { createRestAdapter } from ${JSON.stringify(kit)};
export default (options) => createRestAdapter(
  { kind: "rest", baseUrl: options.env.CODED_URL || ${JSON.stringify(base)}, tools: [{ name: "t", path: "/items" }] },
  { ...options, settings: { ...options.settings, hostVariables: { baseUrl: "CODED_URL" } } },
);
`,
      },
    );
    const connected = await connect(plugins);
    try {
      const fixed = (await callJson(connected.client, "agent_tools_fixed_call", { toolName: "t", arguments: {} })).payload.error;
      assert.match(fixed?.hint ?? "", /start the service, or check that adapter\.baseUrl in the plugin's plugin\.json names the right host and port/);
      assert.doesNotMatch(fixed?.hint ?? "", /openapi/);
      const coded = (await callJson(connected.client, "agent_tools_coded_call", { toolName: "t", arguments: {} })).payload.error;
      assert.equal(coded?.code, "UPSTREAM_ERROR", JSON.stringify(coded));
      assert.match(coded?.hint ?? "", /start the service, or check that CODED_URL \(the base URL's variable, in the agent-tools server's environment\) names the right host and port/);
      assert.doesNotMatch(coded?.hint ?? "", /plugin\.json|openapi/);
    } finally {
      await connected.close();
    }
  });

  it("a base URL whose host name does not resolve: said so, with a hint to check the spelling or the network, not to start the service", async () => {
    const plugins = path.join(dir, "unresolved");
    writePlugin(path.join(plugins, "agent-tools-plugin-nodns"), {
      name: "nodns",
      prefix: "nodns",
      description: "a service whose host name is misspelt",
      adapter: { kind: "rest", baseUrl: "${NODNS_BASE}/v1", tools: [{ name: "t", path: "/items" }] },
    });
    // .invalid never resolves (RFC 2606): ENOTFOUND, or EAI_AGAIN on a host without DNS.
    const connected = await connect(plugins, { NODNS_BASE: "http://api.no-such-host.invalid" });
    try {
      const { payload } = await callJson(connected.client, "agent_tools_nodns_call", { toolName: "t", arguments: {} });
      assert.equal(payload.error?.code, "UPSTREAM_ERROR", JSON.stringify(payload));
      assert.match(payload.error?.message ?? "", /GET \/v1\/items failed: could not reach api\.no-such-host\.invalid \((ENOTFOUND|EAI_AGAIN): the host name does not resolve\)/);
      assert.match(payload.error?.hint ?? "", /^The host name in the base URL does not resolve \((ENOTFOUND|EAI_AGAIN)\): check that NODNS_BASE \(the base URL's variable, in the agent-tools server's environment\) spells the host right, or the network and its DNS/);
      assert.doesNotMatch(payload.error?.hint ?? "", /start the service|Nothing answered/);
    } finally {
      await connected.close();
    }
  });
});
