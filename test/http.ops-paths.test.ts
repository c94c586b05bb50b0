import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { eventually, httpForSuite, raw, startHttp, type RunningHttp } from "./http-helpers.js";
import { WAIT_MS } from "./wait.js";

/**
 * The operations paths (/metrics, /healthz, /readyz, the OAuth protected resource metadata) pass
 * the same Host and Origin checks as /mcp, so a DNS-rebinding page reads none of them; /metrics,
 * which names plugins and identities, needs the token; the probes stay token-free for balancers
 * and answer status only; the metadata never names a Host that was not checked.
 */

const TOKEN = "ops-token-0123456789abcdef";
const OPS = ["/metrics", "/healthz", "/readyz", "/.well-known/oauth-protected-resource"];

/** One HTTP/1.0 request without a Host header, as HAProxy's `option httpchk GET /readyz` sends it. */
function hostlessGet(url: string, path: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), "127.0.0.1");
    let received = "";
    const timer = setTimeout(() => socket.destroy(new Error(`no answer to GET ${path} in ${WAIT_MS} ms`)), WAIT_MS);
    socket.on("data", (chunk: Buffer) => (received += chunk.toString()));
    socket.once("error", (error) => (clearTimeout(timer), reject(error)));
    socket.once("close", () => (clearTimeout(timer), resolve(received)));
    socket.once("connect", () => socket.write(`GET ${path} HTTP/1.0\r\n\r\n`));
  });
}

describe("operations paths with AGENT_TOOLS_HTTP_TOKEN set", () => {
  const http = httpForSuite({ AGENT_TOOLS_HTTP_TOKEN: TOKEN });
  const at = (path: string): string => http.url.replace(/\/mcp$/, path);
  const auth = { Authorization: `Bearer ${TOKEN}` };

  it("a foreign Host answers 403 on every operations path, with or without the token, and discloses nothing", async () => {
    for (const path of OPS) {
      for (const headers of [{ Host: "evil.com" } as Record<string, string>, { Host: "evil.com", Origin: "http://evil.com" }, { Host: "evil.com", ...auth }]) {
        const res = await raw(at(path), { method: "GET", headers });
        assert.equal(res.status, 403, `${path} ${JSON.stringify(headers)}: ${res.body}`);
        assert.match(res.json().error?.message ?? "", /Host 'evil\.com' is not allowed/);
        assert.doesNotMatch(res.body, /agent_tools_|"resource"|"status"/, `${path} leaks nothing`);
      }
    }
  });

  it("a foreign Origin answers 403 on every operations path, even with a loopback Host and the token", async () => {
    for (const path of OPS) {
      const res = await raw(at(path), { method: "GET", headers: { Origin: "http://evil.com", ...auth } });
      assert.equal(res.status, 403, `${path}: ${res.body}`);
      assert.match(res.json().error?.message ?? "", /Origin 'http:\/\/evil\.com' is not allowed/);
    }
  });

  it("/metrics needs the token: 401 without it or with a wrong one, the Prometheus text with it", async () => {
    const missing = await raw(at("/metrics"), { method: "GET" });
    assert.equal(missing.status, 401);
    assert.match(String(missing.headers["www-authenticate"]), /^Bearer realm=/);
    assert.doesNotMatch(missing.body, /agent_tools_/);
    const wrong = await raw(at("/metrics"), { method: "GET", headers: { Authorization: "Bearer not-the-token-at-all" } });
    assert.equal(wrong.status, 401);
    assert.doesNotMatch(wrong.body, /agent_tools_/);
    const right = await raw(at("/metrics"), { method: "GET", headers: auth });
    assert.equal(right.status, 200);
    assert.match(right.body, /^# HELP agent_tools_/m);
  });

  it("/healthz and /readyz answer without the token, and say only their status and the instance", async () => {
    for (const path of ["/healthz", "/readyz"]) {
      const res = await raw(at(path), { method: "GET" });
      assert.equal(res.status, 200, res.body);
      assert.deepEqual(Object.keys(JSON.parse(res.body) as object).sort(), ["instance", "status"]);
    }
  });

  it("a balancer's HTTP/1.0 probe without Host is answered on /healthz and /readyz, refused (400) elsewhere", async () => {
    for (const path of ["/healthz", "/readyz"]) assert.match(await hostlessGet(http.url, path), /^HTTP\/1\.1 200 /, path);
    assert.match(await hostlessGet(http.url, "/.well-known/oauth-protected-resource"), /^HTTP\/1\.1 400 [\s\S]*no Host header/);
    assert.match(await hostlessGet(http.url, "/metrics"), /^HTTP\/1\.1 400 /);
  });

  it("the request log names each request's path; a balancer's probes are debug lines, not info", async () => {
    assert.equal((await raw(at("/metrics"), { method: "GET", headers: auth })).status, 200);
    for (const path of ["/healthz", "/readyz"]) assert.equal((await raw(at(path), { method: "GET" })).status, 200);
    await eventually(() => /info: http GET \/metrics - session=- status=200 ok \d+ms/.test(http.stderr()), "the /metrics request's line");
    assert.doesNotMatch(http.stderr(), /http GET \/(healthz|readyz)/, "no info line per probe");
    const debug = await startHttp({ AGENT_TOOLS_HTTP_TOKEN: TOKEN, AGENT_TOOLS_LOG: "debug" });
    try {
      assert.equal((await raw(debug.url.replace(/\/mcp$/, "/readyz"), { method: "GET" })).status, 200);
      await eventually(() => /debug: http GET \/readyz - session=- status=200 ok \d+ms/.test(debug.stderr()), "the probe's debug line");
    } finally {
      await debug.stop();
    }
  });

  it("the protected resource metadata names the checked Host's /mcp, token-free", async () => {
    const { port } = new URL(http.url);
    const res = await raw(at("/.well-known/oauth-protected-resource"), { method: "GET", headers: { Host: `localhost:${port}` } });
    assert.equal(res.status, 200);
    assert.equal((JSON.parse(res.body) as { resource: string }).resource, `http://localhost:${port}/mcp`);
  });
});

/**
 * `team.metrics: {port}` serves the operations paths on a port of its own, loopback by default:
 * the same Host and Origin checks as the HTTP port (a DNS-rebinding page must not read the figures
 * there either), its own bound name and the loopback names accepted, and the token on /metrics.
 */
describe("the metrics port of its own (team.metrics.port) with AGENT_TOOLS_HTTP_TOKEN set", () => {
  let dir: string;
  let server: RunningHttp;
  let metricsUrl: string;
  const auth = { Authorization: `Bearer ${TOKEN}` };
  const on = (pathname: string): string => metricsUrl.replace(/\/metrics$/, pathname);
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "agent-tools-metrics-port-"));
    const config = path.join(dir, "agent-tools.config.json");
    writeFileSync(config, JSON.stringify({ team: { metrics: { port: 0 } } }));
    server = await startHttp({ AGENT_TOOLS_HTTP_TOKEN: TOKEN }, ["--config", config]);
    await eventually(() => /, metrics http:\/\/\S+\/metrics\]/.test(server.stderr()), "the metrics port in the log");
    metricsUrl = /, metrics (http:\/\/\S+\/metrics)\]/.exec(server.stderr())![1]!;
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a foreign Host answers 403 on every path there, with or without the token, and discloses nothing", async () => {
    for (const pathname of OPS) {
      for (const headers of [{ Host: "evil.com" } as Record<string, string>, { Host: `evil.com:${new URL(metricsUrl).port}`, ...auth }]) {
        const res = await raw(on(pathname), { method: "GET", headers });
        assert.equal(res.status, 403, `${pathname} ${JSON.stringify(headers)}: ${res.body}`);
        assert.match(res.body, /Host 'evil\.com(:\d+)?' is not allowed/);
        assert.doesNotMatch(res.body, /agent_tools_|"resource"|"status"/, `${pathname} leaks nothing`);
      }
    }
  });

  it("a foreign Origin answers 403 there, even with a loopback Host and the token", async () => {
    for (const pathname of OPS) {
      const res = await raw(on(pathname), { method: "GET", headers: { Origin: "http://evil.com", ...auth } });
      assert.equal(res.status, 403, `${pathname}: ${res.body}`);
      assert.match(res.body, /Origin 'http:\/\/evil\.com' is not allowed/);
      assert.doesNotMatch(res.body, /agent_tools_/);
    }
  });

  it("/metrics there needs the token: 401 without it or with a wrong one, the figures with it under its own and the loopback names", async () => {
    const missing = await raw(metricsUrl, { method: "GET" });
    assert.equal(missing.status, 401);
    assert.match(String(missing.headers["www-authenticate"]), /^Bearer realm=/);
    assert.match(missing.body, /requires 'Authorization: Bearer <token>'/);
    assert.doesNotMatch(missing.body, /agent_tools_/);
    const wrong = await raw(metricsUrl, { method: "GET", headers: { Authorization: "Bearer not-the-token-at-all" } });
    assert.equal(wrong.status, 401);
    assert.doesNotMatch(wrong.body, /agent_tools_/);
    const { port } = new URL(metricsUrl);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const right = await raw(metricsUrl, { method: "GET", headers: { Host: host, Origin: `http://localhost:${port}`, ...auth } });
      assert.equal(right.status, 200, `${host}: ${right.body}`);
      assert.match(right.body, /^# HELP agent_tools_/m);
    }
  });

  it("the probes there stay token-free (a balancer's HTTP/1.0 probe without Host too); the HTTP port no longer shows the figures", async () => {
    assert.equal((await raw(on("/healthz"), { method: "GET" })).status, 200);
    assert.match(await hostlessGet(metricsUrl, "/readyz"), /^HTTP\/1\.1 200 /);
    assert.match(await hostlessGet(metricsUrl, "/metrics"), /^HTTP\/1\.1 400 [\s\S]*no Host header/);
    assert.equal((await raw(server.url.replace(/\/mcp$/, "/metrics"), { method: "GET", headers: auth })).status, 404);
  });
});
