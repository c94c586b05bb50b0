import assert from "node:assert/strict";
import { lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, afterEach, describe, test } from "node:test";
import { silentLogger } from "../src/log.js";
import { createRedactor } from "../src/adapters/shared/redact.js";
import { McpSpecError, mcpClientFromEnv, parseMcpSpec, type McpAdapter } from "../src/adapters/mcp/index.js";
import { startHttpFixture, type HttpFixture } from "./fixtures/mcp/http-server.js";
import { MCP_FIXTURES, buildAdapter, rejectsWith, textOf } from "./fixtures/mcp/support.js";
import { until } from "./wait.js";
import { sendJson, startServer } from "./fixtures/rest/http-server.js";
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { createRequire } from "node:module";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
async function fixture(options: Parameters<typeof startHttpFixture>[0] = {}): Promise<HttpFixture> {
  const server = await startHttpFixture(options);
  cleanups.push(() => server.close());
  return server;
}
function adapterFor(spec: Record<string, unknown>, options: Parameters<typeof buildAdapter>[1] = {}): McpAdapter {
  const adapter = buildAdapter({ kind: "mcp", ...spec }, options);
  cleanups.push(() => adapter.close());
  return adapter;
}

const tmp = mkdtempSync(path.join(os.tmpdir(), "mcp-http-test-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

describe("Streamable HTTP", () => {
  test("connects on first use, lists tools with annotations, calls; ${VAR} headers resolved on the host", async () => {
    const server = await fixture();
    const adapter = adapterFor({ url: server.url, headers: { "X-Team": "${TEAM_NAME}", "X-Api-Key": "${TEAM_KEY}" } }, { env: { TEAM_NAME: "blue", TEAM_KEY: "key-0123456789" } });
    assert.equal(server.stats.initializes, 0, "nothing sent before first use");
    const { tools } = await adapter.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["echo", "hang", "headers"]);
    assert.equal(tools[0]?.annotations?.readOnlyHint, true);
    assert.equal(textOf(await adapter.call("echo", { text: "over http" })), "over http");
    assert.equal(server.stats.lastHeaders["x-team"], "blue");
    const seen = textOf(await adapter.call("headers", {}));
    assert.match(seen, /"x-team":"\[redacted\]"|"x-team":"blue"/);
    assert.ok(!seen.includes("key-0123456789"), "a header secret echoed back is redacted from the result");
    assert.ok(seen.includes("[redacted]"));
  });

  test("an expired session (404) re-initialises once and retries the request", async () => {
    const server = await fixture();
    const adapter = adapterFor({ url: server.url });
    assert.equal(textOf(await adapter.call("echo", { text: "one" })), "one");
    assert.equal(server.stats.initializes, 1);
    server.expireSessions();
    assert.equal(textOf(await adapter.call("echo", { text: "two" })), "two");
    assert.equal(server.stats.initializes, 2);
    assert.ok(server.stats.notFound >= 1);
    assert.equal(textOf(await adapter.call("echo", { text: "three" })), "three");
    assert.equal(server.stats.initializes, 2, "the new session is kept");
  });

  test("an idle connection is closed (session terminated) and re-initialised on next use", async () => {
    const server = await fixture();
    const adapter = adapterFor({ url: server.url, idleTimeoutMs: 150 });
    await adapter.call("echo", { text: "a" });
    assert.equal(adapter.connected, true);
    await until(() => !adapter.connected, "the idle connection to close");
    assert.equal(textOf(await adapter.call("echo", { text: "b" })), "b");
    assert.equal(server.stats.initializes, 2);
    assert.equal(server.stats.notFound, 0, "no request was sent on the terminated session");
  });

  test("a hanging HTTP call fails with UPSTREAM_TIMEOUT", async () => {
    const server = await fixture();
    // 1.5 s, not less: the echo after the timeout runs under the same deadline and must succeed on a loaded machine.
    const adapter = adapterFor({ url: server.url, timeoutMs: 1500 });
    const error = await rejectsWith(adapter.call("hang", {}));
    assert.equal(error.code, "UPSTREAM_TIMEOUT");
    assert.equal(textOf(await adapter.call("echo", { text: "ok" })), "ok");
  });

  test("a server answering 429 (or 5xx) gets a hint to retry the same call, not to change it; the status in details", async () => {
    const hints: Record<number, RegExp> = { 429: /rate limiting.*send the same call again/, 503: /temporarily unavailable \(HTTP 503\).*send the same call again/ };
    for (const [status, hint] of Object.entries(hints)) {
      const server = await startServer((_req, res) => sendJson(res, Number(status), { message: "slow down" }));
      cleanups.push(() => server.close());
      const error = await rejectsWith(adapterFor({ url: `${server.url}/mcp` }).call("echo", {}));
      assert.equal(error.code, "UPSTREAM_ERROR");
      assert.match(error.message, new RegExp(`answered .* with HTTP ${status}`));
      assert.deepEqual((error as Error & { details?: unknown }).details, { status: Number(status) });
      assert.match((error as Error & { hint?: string }).hint ?? "", hint);
    }
  });

  test("a 429 at the start keeps its status, hint and details while the start is not retried (the answer keeps its shape)", async () => {
    let requests = 0;
    const server = await startServer((_req, res) => {
      requests += 1;
      sendJson(res, 429, { message: "slow down" });
    });
    cleanups.push(() => server.close());
    const adapter = adapterFor({ url: `${server.url}/mcp` });
    const first = (await rejectsWith(adapter.call("echo", {}))) as Error & { code: string; details?: unknown; hint?: string; status?: number };
    const seen = requests;
    const again = (await rejectsWith(adapter.call("echo", {}))) as Error & { code: string; details?: unknown; hint?: string; status?: number };
    assert.equal(requests, seen, "the second call is answered from the backoff, not sent");
    assert.match(again.message, /not retried for \d+ s after 1 failed start/);
    assert.equal(again.code, "UPSTREAM_ERROR");
    assert.deepEqual(again.details, { status: 429 });
    assert.deepEqual(again.details, first.details);
    assert.equal(again.status, 429);
    assert.equal(again.hint, first.hint);
    assert.match(again.hint ?? "", /rate limiting/);
  });

  test("a start refused with Retry-After is not tried again before the wait, and the calls answered meanwhile carry the wait that is left", async () => {
    let requests = 0;
    const server = await startServer((_req, res) => {
      requests += 1;
      sendJson(res, 429, { message: "slow down" }, { "Retry-After": "7" });
    });
    cleanups.push(() => server.close());
    const adapter = adapterFor({ url: `${server.url}/mcp` });
    const first = (await rejectsWith(adapter.call("echo", {}))) as Error & { details?: { retryAfterSeconds?: number }; hint?: string };
    assert.equal(first.details?.retryAfterSeconds, 7);
    const seen = requests;
    // Past the backoff's first second, inside the server's 7 s.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const again = (await rejectsWith(adapter.call("echo", {}))) as Error & { code: string; details?: { status: number; retryAfterSeconds?: number }; hint?: string };
    assert.equal(requests, seen, "the start is not tried again before the server's Retry-After has passed");
    assert.match(again.message, /not retried for [1-5] s after 1 failed start/);
    assert.equal(again.details?.status, 429);
    const left = again.details?.retryAfterSeconds ?? -1;
    assert.ok(left >= 1 && left <= 5, `the wait left, not the first 7 s: ${left}`);
    assert.match(again.hint ?? "", new RegExp(`rate limiting .* Wait ${left} s \\(\`details\\.retryAfterSeconds\`\\)`));
  });

  test("a 429 or 503 with Retry-After at the start (the version probe, then initialize): the wait is in details.retryAfterSeconds and the hint", async () => {
    const hints: Record<number, RegExp> = { 429: /rate limiting .* Wait 7 s \(`details\.retryAfterSeconds`\) and send the same call again/, 503: /temporarily unavailable \(HTTP 503\).* Wait 7 s/ };
    for (const [status, hint] of Object.entries(hints)) {
      const server = await startServer((_req, res) => sendJson(res, Number(status), { message: "slow down" }, { "Retry-After": "7" }));
      cleanups.push(() => server.close());
      const error = (await rejectsWith(adapterFor({ url: `${server.url}/mcp` }).call("echo", {}))) as Error & { code?: string; details?: unknown; hint?: string };
      assert.equal(error.code, "UPSTREAM_ERROR");
      assert.match(error.message, new RegExp(`answered .* with HTTP ${status}: Error POSTing to endpoint: \\{"message":"slow down"\\}`));
      assert.deepEqual(error.details, { status: Number(status), retryAfterSeconds: 7 });
      assert.match(error.hint ?? "", hint);
    }
  });

  test("a 429 or 503 with Retry-After on a call of an open session keeps the wait; the session keeps working", async () => {
    const mcp = await fixture();
    // A real HTTP proxy in front of the fixture: tools/call 'echo' with text "busy" is refused with the status
    // and Retry-After it names; everything else is passed through. GET (the server's event stream) is
    // answered 405, which the SDK takes as "no stream", so no request is held open.
    const proxy = await startServer(async (req, res) => {
      if (req.method === "GET") return void res.writeHead(405).end();
      const refusal = /"text":"busy (\d+) ([^"]+)"/.exec(req.body);
      if (refusal) return void sendJson(res, Number(refusal[1]), { message: "busy" }, { "Retry-After": refusal[2] as string });
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !["host", "content-length", "connection"].includes(name))) as Record<string, string>;
      const answer = await fetch(mcp.url, { method: req.method, headers, ...(req.body ? { body: req.body } : {}) });
      const body = await answer.text();
      res.writeHead(answer.status, Object.fromEntries([...answer.headers].filter(([name]) => !["content-length", "transfer-encoding", "content-encoding", "connection"].includes(name))));
      res.end(body);
    });
    cleanups.push(() => proxy.close());
    const adapter = adapterFor({ url: `${proxy.url}/mcp` });
    assert.equal(textOf(await adapter.call("echo", { text: "before" })), "before");
    const later = new Date(Date.now() + 120_000).toUTCString();
    const cases = [
      { text: "busy 429 3", details: { status: 429, retryAfterSeconds: 3 }, hint: /rate limiting .* Wait 3 s/ },
      { text: "busy 503 30", details: { status: 503, retryAfterSeconds: 30 }, hint: /temporarily unavailable \(HTTP 503\).* Wait 30 s/ },
      // An HTTP date two minutes ahead (read on arrival: 119 or 120 s): past a minute, the user is told first.
      { text: `busy 429 ${later}`, details: undefined, hint: /The service asks for 1[12]\d s \(`details\.retryAfterSeconds`\) before the next call: tell the user/ },
    ];
    for (const { text, details, hint } of cases) {
      const error = (await rejectsWith(adapter.call("echo", { text }))) as Error & { code?: string; details?: { status: number; retryAfterSeconds?: number }; hint?: string };
      assert.equal(error.code, "UPSTREAM_ERROR", error.message);
      if (details) assert.deepEqual(error.details, details);
      else assert.ok(error.details?.status === 429 && [119, 120].includes(error.details.retryAfterSeconds ?? 0), JSON.stringify(error.details));
      assert.match(error.hint ?? "", hint);
    }
    assert.equal(textOf(await adapter.call("echo", { text: "after" })), "after", "the same session serves the next call");
    assert.equal(mcp.stats.initializes, 1);
  });

  test("an answer past the response cap fails RESULT_TOO_LARGE with a hint; the connection keeps working", async () => {
    const server = await fixture();
    const adapter = adapterFor({ url: server.url }, { env: { AGENT_TOOLS_MAX_RESPONSE_BYTES: "65536" } });
    const error = await rejectsWith(adapter.call("echo", { text: "x".repeat(200_000) }));
    assert.equal(error.code, "RESULT_TOO_LARGE", error.message);
    assert.match(error.message, /MCP server 'fixture': the answer is .* over the 65536 bytes the runtime reads/);
    assert.match((error as Error & { hint?: string }).hint ?? "", /Ask for less/);
    assert.equal(textOf(await adapter.call("echo", { text: "small" })), "small");
  });

  test("a tool list past the response cap fails RESULT_TOO_LARGE with a listing's hint: nothing changed, the cap's variable, no 'ask for less'", async () => {
    const server = await startServer((req, res) => {
      if (req.method !== "POST") return void res.writeHead(405).end();
      const message = JSON.parse(req.body) as { id?: number; method: string };
      if (message.id === undefined) return void res.writeHead(202).end();
      if (message.method === "initialize") {
        return sendJson(res, 200, { jsonrpc: "2.0", id: message.id, result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "huge-list", version: "1" } } }, { "mcp-session-id": "S1" });
      }
      if (message.method === "tools/list") {
        return sendJson(res, 200, { jsonrpc: "2.0", id: message.id, result: { tools: [{ name: "echo", description: "x".repeat(200_000), inputSchema: { type: "object" } }] } });
      }
      sendJson(res, 200, { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: `no method ${message.method}` } });
    });
    cleanups.push(() => server.close());
    const adapter = adapterFor({ url: `${server.url}/mcp` }, { env: { AGENT_TOOLS_MAX_RESPONSE_BYTES: "65536" } });
    const error = (await rejectsWith(adapter.listTools())) as Error & { code?: string; hint?: string };
    assert.equal(error.code, "RESULT_TOO_LARGE", error.message);
    assert.match(error.message, /over the 65536 bytes the runtime reads .*\(tools\/list\)$/);
    assert.match(error.hint ?? "", /^The server's tool list is larger than the runtime reads of one answer .* A listing changes nothing, so nothing was changed on the server\. Tell the user: raising AGENT_TOOLS_MAX_RESPONSE_BYTES/);
    assert.doesNotMatch(error.hint ?? "", /ask for less/i);
  });

  test("an SSE answer whose one event is past the response cap (9 MiB, the cap at its 8 MiB default) fails RESULT_TOO_LARGE naming the cap and the call, not 'connection lost'", async () => {
    const server = await startServer((req, res) => {
      if (req.method !== "POST") return void res.writeHead(405).end();
      const message = JSON.parse(req.body) as { id?: number; method: string; params?: { name?: string } };
      if (message.id === undefined) return void res.writeHead(202).end();
      if (message.method === "initialize") {
        return sendJson(res, 200, { jsonrpc: "2.0", id: message.id, result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "huge-event", version: "1" } } }, { "mcp-session-id": "S1" });
      }
      const text = message.params?.name === "huge" ? "x".repeat(9 * 1024 * 1024) : "small";
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text }] } })}\n\n`);
    });
    cleanups.push(() => server.close());
    const adapter = adapterFor({ url: `${server.url}/mcp` });
    const error = await rejectsWith(adapter.call("huge", {}));
    assert.equal(error.code, "RESULT_TOO_LARGE", error.message);
    assert.match(error.message, /MCP server 'fixture': the answer is larger than 8 MiB, over the 8 MiB the runtime reads \(maxResponseBytes, AGENT_TOOLS_MAX_RESPONSE_BYTES\) \(tools\/call 'huge'\)/);
    assert.doesNotMatch(error.message, /connection .* lost/);
    assert.match((error as Error & { hint?: string }).hint ?? "", /Ask for less/);
    assert.equal(textOf(await adapter.call("small", {})), "small", "the session serves the next call");
  });

  test("credentials in the URL (user:password@) are sent as HTTP Basic auth, not refused; the password never shows", async () => {
    const server = await fixture();
    const url = new URL(server.url);
    url.username = "alice";
    url.password = "${MCP_PASSWORD}";
    const adapter = adapterFor({ url: url.href.replace("%7B", "{").replace("%7D", "}").replace("%24", "$") }, { env: { MCP_PASSWORD: "pw-4d9c1e77" } });
    assert.equal(textOf(await adapter.call("echo", { text: "with basic auth" })), "with basic auth");
    assert.equal(server.stats.lastHeaders.authorization, `Basic ${Buffer.from("alice:pw-4d9c1e77").toString("base64")}`);
    const seen = textOf(await adapter.call("headers", {}));
    assert.ok(!seen.includes(Buffer.from("alice:pw-4d9c1e77").toString("base64")) && !seen.includes("pw-4d9c1e77"), seen);
  });

  test("an unreachable server is UPSTREAM_ERROR", async () => {
    const server = await startHttpFixture();
    const url = server.url;
    await server.close();
    const adapter = adapterFor({ url, timeoutMs: 2000 });
    const error = await rejectsWith(adapter.listTools());
    assert.equal(error.code, "UPSTREAM_ERROR");
  });
});

/** A free port on 127.0.0.1: listened on, then let go. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const EVERYTHING = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js");

/**
 * server-everything in its streamableHttp mode, a real process: it answers calls over SSE and,
 * like the SDK's example servers, a session it does not hold with 400 "No valid session ID provided".
 */
async function startEverything(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [EVERYTHING, "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
    }
  });
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      seen += String(chunk);
      if (seen.includes("listening")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`server-everything exited (${code}): ${seen}`)));
  });
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  child.kill("SIGKILL");
  await new Promise((resolve) => child.once("exit", resolve));
}

describe("a downstream HTTP server that stops and restarts (server-everything, real processes)", () => {
  test("calls in flight when it is killed fail at once (connection lost, effect unknown), not at their deadline; after its restart the next call reconnects", async () => {
    const port = await freePort();
    let server = await startEverything(port);
    const adapter = adapterFor({ url: `http://127.0.0.1:${port}/mcp`, timeoutMs: 60_000 });
    assert.match(textOf(await adapter.call("echo", { message: "before" })), /before/);
    const inFlight = Array.from({ length: 5 }, () => rejectsWith(adapter.call("trigger-long-running-operation", { duration: 30, steps: 3 })));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const killedAt = Date.now();
    await kill(server);
    const errors = await Promise.all(inFlight);
    // The SDK tries to resume a stream with event ids twice (about 2.5 s); far below the 60 s deadline.
    assert.ok(Date.now() - killedAt < 20_000, `answered after ${Date.now() - killedAt} ms`);
    for (const error of errors) {
      assert.equal(error.code, "UPSTREAM_ERROR", error.message);
      // Lost on its event stream, or (under load, its answer's headers not yet read) broken on the socket: both say the effect is unknown.
      assert.match(error.message, /connection to MCP server '.*' (was lost|broke) during tools\/call 'trigger-long-running-operation', (after the request was sent and )?before its answer arrived.*unknown/);
      assert.match((error as Error & { hint?: string }).hint ?? "", /check whether the change was made/);
    }
    server = await startEverything(port);
    // The old session is gone with the old process (it answers 400 "No valid session ID provided"), or the call meets a refused connection: either way it starts a new session.
    assert.match(textOf(await adapter.call("echo", { message: "after" })), /after/);
  });

  test("a restart between calls: the next call's 400 'No valid session ID' starts a new session and the call succeeds", async () => {
    const port = await freePort();
    let server = await startEverything(port);
    const adapter = adapterFor({ url: `http://127.0.0.1:${port}/mcp`, timeoutMs: 20_000 });
    assert.match(textOf(await adapter.call("echo", { message: "one" })), /one/);
    await kill(server);
    server = await startEverything(port);
    assert.match(textOf(await adapter.call("echo", { message: "two" })), /two/);
    assert.match(textOf(await adapter.call("echo", { message: "three" })), /three/);
  });

  test("a refused connection while a session is open drops the session: the call is sent once more, and the next call after the restart succeeds", async () => {
    const port = await freePort();
    const server = await startEverything(port);
    const adapter = adapterFor({ url: `http://127.0.0.1:${port}/mcp`, timeoutMs: 20_000 });
    assert.match(textOf(await adapter.call("echo", { message: "one" })), /one/);
    await kill(server);
    const down = await rejectsWith(adapter.call("echo", { message: "down" }));
    assert.equal(down.code, "UPSTREAM_ERROR");
    assert.match(down.message, /ECONNREFUSED/);
    assert.equal(adapter.connected, false, "the session on the dead server was dropped");
    await startEverything(port);
    // The failed start is not tried again for a second (the start backoff).
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    assert.match(textOf(await adapter.call("echo", { message: "up" })), /up/);
  });
});

const JSON_ANSWER_SERVER = path.join(MCP_FIXTURES, "json-answer-server.mjs");

/** json-answer-server.mjs, a real process answering in JSON bodies; resolves with it and its port once it listens, and `wrote` once its `write` ran. */
async function startJsonAnswerServer(writeLog: string): Promise<{ child: ChildProcess; port: number; wrote: Promise<void> }> {
  const child = spawn(process.execPath, [JSON_ANSWER_SERVER], { env: { ...process.env, PORT: "0", WRITE_LOG: writeLog }, stdio: ["ignore", "ignore", "pipe"] });
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) await kill(child);
  });
  let seen = "";
  const said = (text: RegExp): Promise<RegExpMatchArray> =>
    new Promise((resolve, reject) => {
      const look = (): void => {
        const match = text.exec(seen);
        if (match) resolve(match);
      };
      child.stderr?.on("data", (chunk: Buffer) => {
        seen += String(chunk);
        look();
      });
      child.once("exit", (code) => reject(new Error(`json-answer-server exited (${code}): ${seen}`)));
      look();
    });
  const port = Number((await said(/listening on (\d+)/))[1]);
  return { child, port, wrote: said(/wrote/).then(() => undefined) };
}

describe("a downstream HTTP server answering in JSON bodies that is killed mid-call (a real process)", () => {
  test("a call whose request was sent fails at once as 'connection broke, effect unknown', with the hint to check before repeating a change; it is not sent again", async () => {
    const writeLog = path.join(tmp, "json-answer-writes.log");
    const server = await startJsonAnswerServer(writeLog);
    const adapter = adapterFor({ url: `http://127.0.0.1:${server.port}/mcp`, timeoutMs: 60_000 });
    assert.equal(textOf(await adapter.call("echo", { text: "before" })), "before");
    const call = rejectsWith(adapter.call("write", { line: "row 1" }));
    await server.wrote;
    const killedAt = Date.now();
    await kill(server.child);
    const error = (await call) as Error & { code?: string; hint?: string };
    assert.ok(Date.now() - killedAt < 20_000, `answered after ${Date.now() - killedAt} ms, not at once`);
    assert.equal(error.code, "UPSTREAM_ERROR", error.message);
    assert.match(error.message, /The connection to MCP server 'fixture' broke during tools\/call 'write', after the request was sent and before its answer arrived \((UND_ERR_SOCKET|ECONNRESET)[^)]*\); whether tools\/call 'write' took effect is unknown/);
    assert.match(error.hint ?? "", /check whether the change was made/);
    assert.doesNotMatch(error.hint ?? "", /fix the arguments/);
    assert.equal(readFileSync(writeLog, "utf8"), "row 1\n", "the write ran once and was not sent again");
    // Nothing listens now: a refused connection carried nothing, so it is not "effect unknown".
    const down = await rejectsWith(adapter.call("write", { line: "row 2" }));
    assert.match(down.message, /ECONNREFUSED/);
    assert.doesNotMatch(down.message, /took effect is unknown/);
  });
});

/**
 * A hand-written MCP server over Streamable HTTP (a real server on 127.0.0.1) whose `write` tool
 * answers HTTP 400 as its `mode` argument says, and whose `slow` tool answers over SSE after
 * 1.5 s: what a server that refuses one call says, with another call in flight on the session.
 * `lose` answers what the SDK's servers answer for a session they no longer hold (once; the
 * session is forgotten), and the write succeeds on the session that follows.
 */
async function refusingServer(): Promise<{ url: string; stats: () => { initializes: number; deletes: number; writes: number; slows: number } }> {
  const sessions = new Set<string>();
  let opened = 0;
  let lost = false;
  const server = await startServer((req, res) => {
    const sid = req.headers["mcp-session-id"] as string | undefined;
    if (req.method === "DELETE") {
      if (sid) sessions.delete(sid);
      return void res.writeHead(200).end();
    }
    if (req.method !== "POST") return void res.writeHead(405).end();
    const message = JSON.parse(req.body) as { id?: number; method: string; params?: { name?: string; arguments?: { mode?: string } } };
    const answer = (result: unknown, headers: Record<string, string> = {}): void => sendJson(res, 200, { jsonrpc: "2.0", id: message.id, result }, headers);
    if (message.method === "initialize") {
      const id = `S${++opened}`;
      sessions.add(id);
      return answer({ protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "refusing", version: "1" } }, { "mcp-session-id": id });
    }
    if (!sid || !sessions.has(sid)) return void sendJson(res, 404, { jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } });
    if (message.id === undefined) return void res.writeHead(202).end();
    if (message.method === "tools/list") {
      return answer({ tools: [{ name: "write", inputSchema: { type: "object" } }, { name: "slow", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }] });
    }
    const mode = message.params?.arguments?.mode;
    if (message.params?.name === "write") {
      if (mode === "bad-params") return void sendJson(res, 400, { jsonrpc: "2.0", id: message.id, error: { code: -32602, message: "Invalid params: the 'session' argument is missing" } });
      if (mode === "plain") return void res.writeHead(400, { "content-type": "text/plain" }).end("Bad Request: invalid value for session_ttl");
      if (mode === "lose" && !lost) {
        lost = true;
        sessions.delete(sid);
        return void sendJson(res, 400, { jsonrpc: "2.0", id: null, error: { code: -32000, message: "Bad Request: No valid session ID provided" } });
      }
      return answer({ content: [{ type: "text", text: "wrote" }] });
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(": working\n\n");
    setTimeout(() => res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text: "slow done" }] } })}\n\n`), 1_500);
  });
  cleanups.push(() => server.close());
  const calls = (name: string): number => server.requests.filter((r) => r.method === "POST" && r.body.includes('"method":"tools/call"') && r.body.includes(`"name":"${name}"`)).length;
  return {
    url: `${server.url}/mcp`,
    stats: () => ({
      initializes: server.requests.filter((r) => r.method === "POST" && r.body.includes('"method":"initialize"')).length,
      deletes: server.requests.filter((r) => r.method === "DELETE").length,
      writes: calls("write"),
      slows: calls("slow"),
    }),
  };
}

describe("a downstream HTTP server that answers a call with 400", () => {
  test("a 400 about the arguments (JSON-RPC -32602, or plain text naming a 'session_ttl' value) is that call's error: the session and the call in flight beside it go on, nothing is sent twice", async () => {
    const server = await refusingServer();
    const adapter = adapterFor({ url: server.url, timeoutMs: 20_000 });
    assert.equal(textOf(await adapter.call("slow", {})), "slow done");
    const cases = [
      { mode: "bad-params", message: /answered tools\/call 'write' with HTTP 400: Invalid params: the 'session' argument is missing \(JSON-RPC -32602\)/, hint: /refused the call's arguments \(JSON-RPC -32602, invalid params\): fix the argument/ },
      { mode: "plain", message: /answered tools\/call 'write' with HTTP 400: .*Bad Request: invalid value for session_ttl/, hint: /^The service is working and refused the call's arguments \(HTTP 400\)\. Fix the argument `message` names/ },
    ];
    for (const { mode, message, hint } of cases) {
      const before = server.stats();
      const slow = adapter.call("slow", {});
      await new Promise((resolve) => setTimeout(resolve, 300));
      const error = (await rejectsWith(adapter.call("write", { mode }))) as Error & { code: string; hint?: string; details?: unknown };
      assert.equal(error.code, "UPSTREAM_ERROR");
      assert.match(error.message, message);
      assert.doesNotMatch(error.message, /lost the session/);
      assert.match(error.hint ?? "", hint);
      assert.deepEqual(error.details, { status: 400 });
      assert.equal(textOf(await slow), "slow done", "the call in flight on the same session is answered");
      const after = server.stats();
      assert.equal(after.writes - before.writes, 1, "the refused write was sent once");
      assert.equal(after.initializes, 1, "no new session");
      assert.equal(after.deletes, 0, "the session was not dropped");
    }
  });

  test("a 400 that refuses the session id ('No valid session ID provided') starts a new session and sends the call once more; a call in flight on the old session is told the connection closed and its effect is unknown", async () => {
    const server = await refusingServer();
    const adapter = adapterFor({ url: server.url, timeoutMs: 20_000 });
    assert.equal(textOf(await adapter.call("slow", {})), "slow done");
    const slow = rejectsWith(adapter.call("slow", {}));
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(textOf(await adapter.call("write", { mode: "lose" })), "wrote");
    const stats = server.stats();
    assert.equal(stats.initializes, 2, "a new session");
    assert.equal(stats.writes, 2, "refused unrun on the old session, sent once more on the new one");
    const cut = await slow;
    assert.equal(cut.code, "UPSTREAM_ERROR");
    assert.match(cut.message, /The connection to MCP server 'fixture' was closed during tools\/call 'slow', before its answer arrived; whether tools\/call 'slow' took effect is unknown/);
    assert.doesNotMatch(cut.message, /stderr/);
    assert.match((cut as Error & { hint?: string }).hint ?? "", /check whether the change was made/);
  });
});

describe("SSE", () => {
  test("falls back to SSE when the server only speaks the old transport", async () => {
    const server = await fixture({ mode: "sse-only" });
    const adapter = adapterFor({ url: server.url });
    const { tools } = await adapter.listTools();
    assert.ok(tools.some((t) => t.name === "echo"));
    assert.equal(textOf(await adapter.call("echo", { text: "via sse" })), "via sse");
    assert.equal(server.stats.sseStreams, 1);
    assert.ok(server.stats.ssePosts >= 2);
  });

  test("the bearer token reaches the SSE stream and its message posts", async () => {
    const server = await fixture({ mode: "sse-only", bearer: true });
    server.validAccess.add("sse-token-abcdef");
    const adapter = adapterFor({ url: server.url, auth: { tokenEnv: "SSE_TOKEN" } }, { env: { SSE_TOKEN: "sse-token-abcdef" } });
    assert.equal(textOf(await adapter.call("echo", { text: "sse + auth" })), "sse + auth");
    assert.equal(server.stats.unauthorized, 0);
    const bad = adapterFor({ url: server.url, auth: { tokenEnv: "SSE_TOKEN" } }, { env: { SSE_TOKEN: "nope-nope-nope" } });
    const error = await rejectsWith(bad.listTools());
    assert.equal(error.code, "NOT_CONFIGURED");
  });

  test('type: "sse" goes straight to SSE', async () => {
    const server = await fixture({ mode: "sse-only" });
    const adapter = adapterFor({ url: server.url, type: "sse" });
    assert.equal(textOf(await adapter.call("echo", { text: "sse only" })), "sse only");
    assert.equal(server.stats.streamablePosts, 0);
  });
});

describe("bearer token", () => {
  test("auth.tokenEnv: the host variable is sent; a refused token is NOT_CONFIGURED and never shown", async () => {
    const server = await fixture({ bearer: true });
    server.validAccess.add("good-token-123456");
    const ok = adapterFor({ url: server.url, auth: { tokenEnv: "N8N_MCP_TOKEN" } }, { env: { N8N_MCP_TOKEN: "good-token-123456" } });
    assert.equal(textOf(await ok.call("echo", { text: "authorised" })), "authorised");
    const bad = adapterFor({ url: server.url, auth: { tokenEnv: "N8N_MCP_TOKEN" } }, { env: { N8N_MCP_TOKEN: "wrong-token-987654" } });
    const error = await rejectsWith(bad.listTools());
    assert.equal(error.code, "NOT_CONFIGURED");
    assert.match(error.message, /401/);
    assert.ok(!error.message.includes("wrong-token-987654"));
    // The answer names the variable the refused token came from, and the hint says to replace it there.
    assert.match(error.message, /refused the credentials \(HTTP 401\).*check \$N8N_MCP_TOKEN/);
    assert.match((error as Error & { hint?: string }).hint ?? "", /^Tell the user: Set N8N_MCP_TOKEN in the environment of the agent-tools server to a valid access token/);
  });

  test("a 403 insufficient_scope is NOT_CONFIGURED naming the credential source and the scope required", async () => {
    const server = await startServer((_req, res) =>
      sendJson(res, 403, { error: "insufficient_scope" }, { "www-authenticate": 'Bearer error="insufficient_scope", scope="files:write", error_description="Insufficient scope"' }),
    );
    cleanups.push(() => server.close());
    const adapter = adapterFor({ url: `${server.url}/mcp`, auth: { tokenEnv: "B_TOKEN" } }, { env: { B_TOKEN: "b-token-0123456789" } });
    const error = await rejectsWith(adapter.listTools());
    assert.equal(error.code, "NOT_CONFIGURED");
    assert.match(error.message, /refused the credentials \(HTTP 403 insufficient_scope\) for .*: it requires the scope files:write; check \$B_TOKEN$/);
    assert.match((error as Error & { hint?: string }).hint ?? "", /^Tell the user: Issue a token with the scope files:write .*Set B_TOKEN in the environment of the agent-tools server.*Tool arguments cannot fix this\.$/);
    assert.ok(!error.message.includes("b-token-0123456789"));
  });

  test("no token and no store: NOT_CONFIGURED naming the variable", async () => {
    const server = await fixture({ bearer: true });
    const adapter = adapterFor({ url: server.url, auth: { tokenEnv: "N8N_MCP_TOKEN" } }, { env: {} });
    const error = await rejectsWith(adapter.listTools());
    assert.equal(error.code, "NOT_CONFIGURED");
    assert.match(error.message, /N8N_MCP_TOKEN/);
    assert.equal(server.stats.initializes, 0);
  });

  test("mcpClientFromEnv: AGENT_MCP_URL + AGENT_MCP_TOKEN", async () => {
    const server = await fixture({ bearer: true });
    server.validAccess.add("env-token-abcdef");
    const adapter = mcpClientFromEnv({ AGENT_MCP_URL: server.url, AGENT_MCP_TOKEN: "env-token-abcdef" }, { log: silentLogger });
    cleanups.push(() => adapter.close());
    assert.equal(textOf(await adapter.call("echo", { text: "from env" })), "from env");
    assert.throws(() => mcpClientFromEnv({}), /AGENT_MCP_URL/);
  });
});

describe("OAuth token store", () => {
  function writeStore(name: string, tokens: Record<string, unknown>): string {
    const dir = mkdtempSync(path.join(tmp, `${name}-`));
    const file = path.join(dir, "tokens.json");
    writeFileSync(file, JSON.stringify(tokens), { mode: 0o644 });
    return file;
  }

  test("an expired access token is refreshed (refresh_token grant) and the store rewritten atomically with mode 0600", async () => {
    const server = await fixture({ bearer: true });
    server.validRefresh.add("refresh-original-1");
    const expiredSeconds = Math.floor(Date.now() / 1000) - 60;
    const file = writeStore("expired", {
      access_token: "access-expired-0",
      refresh_token: "refresh-original-1",
      expires_at: expiredSeconds,
      token_endpoint: server.tokenEndpoint,
      client_id: "agent-tools",
      client_secret: "client-secret-xyz",
      extra_field: "kept",
    });
    const adapter = adapterFor({ url: server.url, auth: { tokenEnv: "N8N_MCP_TOKEN", tokenStore: file } }, { env: {} });
    assert.equal(textOf(await adapter.call("echo", { text: "refreshed" })), "refreshed");
    assert.equal(server.stats.tokenRequests.length, 1);
    const request = server.stats.tokenRequests[0];
    assert.equal(request?.contentType, "application/x-www-form-urlencoded");
    // RFC 8707 resource: the MCP server's canonical URL, as the MCP authorization spec requires.
    assert.deepEqual(request?.form, { grant_type: "refresh_token", refresh_token: "refresh-original-1", client_id: "agent-tools", client_secret: "client-secret-xyz", resource: server.url });
    const stored = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    assert.ok(server.validAccess.has(stored.access_token as string), "the new access token is stored");
    assert.match(stored.refresh_token as string, /^refresh-1-/, "the rotated refresh token is stored");
    assert.equal(stored.extra_field, "kept");
    assert.equal(stored.client_id, "agent-tools");
    assert.ok((stored.expires_at as number) < 1e11, "expires_at keeps the file's unit (seconds)");
    assert.ok((stored.expires_at as number) > Date.now() / 1000 + 3000);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(path.dirname(file)), ["tokens.json"], "no temp file left");
    // A second call uses the stored token without another refresh.
    await adapter.call("echo", { text: "again" });
    assert.equal(server.stats.tokenRequests.length, 1);
  });

  test("a 401 on a token that looked valid refreshes once and retries", async () => {
    const server = await fixture({ bearer: true });
    server.validRefresh.add("refresh-r2");
    const file = writeStore("revoked", {
      access_token: "access-revoked",
      refresh_token: "refresh-r2",
      expires_at: Date.now() + 3_600_000,
      token_endpoint: server.tokenEndpoint,
      client_id: "agent-tools",
    });
    const adapter = adapterFor({ url: server.url, auth: { tokenStore: file } }, { env: {} });
    const { tools } = await adapter.listTools();
    assert.ok(tools.length > 0);
    assert.equal(server.stats.unauthorized, 1);
    assert.equal(server.stats.tokenRequests.length, 1);
    const stored = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    assert.ok((stored.expires_at as number) > 1e11, "expires_at keeps the file's unit (ms)");
    assert.equal(statSync(file).mode & 0o777, 0o600);
  });

  test("a refused refresh is NOT_CONFIGURED and secrets stay out of the message", async () => {
    const server = await fixture({ bearer: true });
    const file = writeStore("refused", {
      access_token: "access-stale-000",
      refresh_token: "refresh-revoked-000",
      expires_at: 1000,
      token_endpoint: server.tokenEndpoint,
      client_id: "agent-tools",
    });
    const redactor = createRedactor();
    const adapter = adapterFor({ url: server.url, auth: { tokenStore: file } }, { env: {}, redactor });
    const error = await rejectsWith(adapter.listTools());
    assert.equal(error.code, "NOT_CONFIGURED");
    assert.match(error.message, /invalid_grant/);
    assert.ok(!error.message.includes("refresh-revoked-000"));
    // The fix is a new token set in the store (read again on the next call), not a variable and a restart.
    assert.match(error.message, new RegExp(`write a new token set into ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`));
    assert.match((error as Error & { hint?: string }).hint ?? "", /^Tell the user: Create or rewrite .*tokens\.json with a token set of this MCP server \(JSON \{"access_token".*it is read again on the next call\)\. Tool arguments/);
    assert.equal(redactor.redact("x refresh-revoked-000 access-stale-000"), "x [redacted] [redacted]");
    assert.equal(JSON.parse(readFileSync(file, "utf8")).access_token, "access-stale-000", "the store is unchanged");
  });

  test("a missing store file is NOT_CONFIGURED; a non-https remote token endpoint is refused", async () => {
    const server = await fixture({ bearer: true });
    const missing = adapterFor({ url: server.url, auth: { tokenStore: path.join(tmp, "nope", "tokens.json") } }, { env: {} });
    const error = await rejectsWith(missing.listTools());
    assert.equal(error.code, "NOT_CONFIGURED");
    assert.match(error.message, /does not exist/);
    // With a token variable in the spec, the message names it as the other way to sign in.
    const nowhere = path.join(tmp, "nope", "tokens.json");
    const either = adapterFor({ url: server.url, auth: { tokenEnv: "N8N_MCP_TOKEN", tokenStore: nowhere } }, { env: {} });
    const named = await rejectsWith(either.listTools());
    assert.equal(named.code, "NOT_CONFIGURED");
    assert.equal(named.message, `the OAuth token store ${nowhere} does not exist (or set N8N_MCP_TOKEN to an access token of the MCP server instead)`);
    const hint = (named as Error & { hint?: string }).hint ?? "";
    assert.ok(hint.startsWith(`Tell the user: Create or rewrite ${nowhere} with a token set of this MCP server (JSON {"access_token"`), hint);
    assert.match(hint, /or set N8N_MCP_TOKEN in the environment of the agent-tools server to an access token and restart it/);
    const file = writeStore("plain-http", { access_token: "a-000", refresh_token: "r-000", expires_at: 1000, token_endpoint: "http://auth.example.com/token" });
    const insecure = adapterFor({ url: server.url, auth: { tokenStore: file } }, { env: {} });
    const refused = await rejectsWith(insecure.listTools());
    assert.equal(refused.code, "NOT_CONFIGURED");
    assert.match(refused.message, /https/);
  });

  test("a token endpoint answering 200 without a token set (a login page) says so, quoting its first bytes masked", async () => {
    const server = await fixture({ bearer: true });
    const endpoint = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html><body>Sign in to continue refresh-login-page-0001</body></html>");
    });
    cleanups.push(() => endpoint.close());
    const file = writeStore("html-endpoint", { access_token: "access-old-0001", refresh_token: "refresh-login-page-0001", expires_at: 1000, token_endpoint: `${endpoint.url}/oauth/token` });
    const error = await rejectsWith(adapterFor({ url: server.url, auth: { tokenStore: file } }, { env: {} }).listTools());
    assert.equal(error.code, "NOT_CONFIGURED");
    assert.match(error.message, /the token endpoint http:\/\/127\.0\.0\.1:\d+\/oauth\/token answered HTTP 200 without an access_token: not JSON \("<html><body>Sign in to continue \[redacted\]<\/body><\/html>"\); write a new token set into /);
    assert.doesNotMatch(error.message, /refused/);
    assert.ok(!error.message.includes("refresh-login-page-0001"));
  });

  test("a store rewritten while the runtime runs is read again: before the next request, and after a 401 (a token without refresh_token)", async () => {
    const server = await fixture({ bearer: true });
    server.validAccess.add("access-first-aaaaaaaaaaaaaaaa");
    const file = writeStore("rewritten", { access_token: "access-first-aaaaaaaaaaaaaaaa" });
    const adapter = adapterFor({ url: server.url, auth: { tokenStore: file } }, { env: {} });
    assert.equal(textOf(await adapter.call("echo", { text: "one" })), "one");
    // The server revokes the token: NOT_CONFIGURED, saying the store is read again on the next call.
    server.validAccess.clear();
    const refused = await rejectsWith(adapter.call("echo", { text: "two" }));
    assert.equal(refused.code, "NOT_CONFIGURED");
    assert.match((refused as Error & { hint?: string }).hint ?? "", /it is read again on the next call/);
    const refusals = server.stats.unauthorized;
    // The user rewrites the store (same size, so only its times tell): the next request sends the new token, no 401 first.
    server.validAccess.add("access-second-bbbbbbbbbbbbbbb");
    writeFileSync(file, JSON.stringify({ access_token: "access-second-bbbbbbbbbbbbbbb" }));
    assert.equal(textOf(await adapter.call("echo", { text: "three" })), "three");
    assert.equal(textOf(await adapter.call("echo", { text: "four" })), "four");
    assert.equal(server.stats.unauthorized, refusals, "the rewritten store was read before sending");
    assert.equal(server.stats.lastHeaders.authorization, "Bearer access-second-bbbbbbbbbbbbbbb");
    assert.equal(server.stats.tokenRequests.length, 0);
  });

  test("after a 401 the store is read again even when its size and times look unchanged, and the call is retried once with its token", async () => {
    const server = await fixture({ bearer: true });
    server.validAccess.add("access-old-cccccccccccccccccc");
    const file = writeStore("reread-401", { access_token: "access-old-cccccccccccccccccc" });
    const adapter = adapterFor({ url: server.url, auth: { tokenStore: file } }, { env: {} });
    assert.equal(textOf(await adapter.call("echo", { text: "one" })), "one");
    const before = statSync(file);
    writeFileSync(file, JSON.stringify({ access_token: "access-new-dddddddddddddddddd" }));
    // Put the times back, as a copy that keeps them (cp -p, a restore) would: only the 401 tells.
    utimesSync(file, before.atime, before.mtime);
    server.validAccess.clear();
    server.validAccess.add("access-new-dddddddddddddddddd");
    const refusals = server.stats.unauthorized;
    assert.equal(textOf(await adapter.call("echo", { text: "two" })), "two");
    assert.ok(server.stats.unauthorized - refusals <= 1, "at most the one 401 before the re-read");
    assert.equal(server.stats.lastHeaders.authorization, "Bearer access-new-dddddddddddddddddd");
  });

  test("the store's resource field overrides the refresh request's resource, and false leaves it out", async () => {
    const server = await fixture({ bearer: true });
    server.validRefresh.add("refresh-res-1");
    server.validRefresh.add("refresh-res-2");
    const base = { expires_at: 1000, token_endpoint: server.tokenEndpoint };
    const chosen = writeStore("resource-set", { ...base, access_token: "access-res-1", refresh_token: "refresh-res-1", resource: "https://mcp.example.com" });
    await adapterFor({ url: server.url, auth: { tokenStore: chosen } }, { env: {} }).listTools();
    assert.equal(server.stats.tokenRequests[0]?.form.resource, "https://mcp.example.com");
    const none = writeStore("resource-none", { ...base, access_token: "access-res-2", refresh_token: "refresh-res-2", resource: false });
    await adapterFor({ url: server.url, auth: { tokenStore: none } }, { env: {} }).listTools();
    assert.equal(server.stats.tokenRequests.length, 2);
    assert.ok(!("resource" in (server.stats.tokenRequests[1]?.form ?? {})), "no resource parameter");
  });

  test("a token that lives 30 s or less is not refreshed on every request (skew at most half its lifetime); a server refusing every token costs one grant, not one per request", async () => {
    const server = await fixture({ bearer: true, accessTtlSeconds: 5 });
    server.validRefresh.add("refresh-short-1");
    const file = writeStore("short-lived", { access_token: "access-short-0", refresh_token: "refresh-short-1", expires_at: 1000, token_endpoint: server.tokenEndpoint });
    const adapter = adapterFor({ url: server.url, auth: { tokenStore: file } }, { env: {} });
    for (const text of ["a", "b", "c"]) assert.equal(textOf(await adapter.call("echo", { text })), text);
    assert.equal(server.stats.tokenRequests.length, 1, "the token issued for 5 s is used, not refreshed per request");
    assert.equal(JSON.parse(readFileSync(file, "utf8")).expires_in, 5);

    // An MCP endpoint that refuses every token: one refresh and one retry, then NOT_CONFIGURED; the next call spends no grant.
    const refusing = await startServer((_req, res) => sendJson(res, 401, { error: "invalid_token" }, { "www-authenticate": 'Bearer error="invalid_token"' }));
    cleanups.push(() => refusing.close());
    server.validRefresh.add("refresh-refused-1");
    const refusedFile = writeStore("always-401", { access_token: "access-refused-0", refresh_token: "refresh-refused-1", expires_at: Date.now() + 3_600_000, token_endpoint: server.tokenEndpoint });
    const refused = adapterFor({ url: `${refusing.url}/mcp`, auth: { tokenStore: refusedFile } }, { env: {} });
    assert.equal((await rejectsWith(refused.call("echo", { text: "x" }))).code, "NOT_CONFIGURED");
    assert.equal((await rejectsWith(refused.call("echo", { text: "y" }))).code, "NOT_CONFIGURED");
    assert.equal(server.stats.tokenRequests.length, 2, "one grant for the refusing server in two calls");
  });

  test("a token endpoint that redirects or fails points at the store's token_endpoint, not at the arguments; nothing is sent to the redirect target", async () => {
    const server = await fixture({ bearer: true });
    let redirected = 0;
    const endpoint = await startServer((req, res) => {
      if (req.url === "/moved") redirected++;
      if (req.url === "/token") res.writeHead(307, { location: "/moved" }).end();
      else sendJson(res, 500, { error: "server_error" });
    });
    cleanups.push(() => endpoint.close());
    const moved = writeStore("redirect", { access_token: "access-moved-0", refresh_token: "refresh-moved-0", expires_at: 1000, token_endpoint: `${endpoint.url}/token` });
    const redirect = await rejectsWith(adapterFor({ url: server.url, auth: { tokenStore: moved } }, { env: {} }).listTools());
    assert.equal(redirect.code, "NOT_CONFIGURED");
    assert.match(redirect.message, /answered HTTP 307 redirecting to http:\/\/127\.0\.0\.1:\d+\/moved, which is not followed/);
    assert.ok(redirect.message.includes(`set token_endpoint in ${moved} to the token URL itself`), redirect.message);
    assert.equal(redirected, 0, "the refresh token is not sent to the redirect target");
    const failing = writeStore("server-error", { access_token: "access-500-0", refresh_token: "refresh-500-0", expires_at: 1000, token_endpoint: `${endpoint.url}/broken` });
    const failed = await rejectsWith(adapterFor({ url: server.url, auth: { tokenStore: failing } }, { env: {} }).listTools());
    assert.equal(failed.code, "UPSTREAM_ERROR");
    const hint = (failed as Error & { hint?: string }).hint ?? "";
    assert.ok(hint.startsWith(`The authorization server at the token_endpoint of ${failing} (${endpoint.url}/broken) failed: call again later`), hint);
    assert.match(hint, /Tool arguments cannot fix this\.$/);
    assert.doesNotMatch(hint, /fix the arguments/);
  });

  test("an access_token with a line break is refused when read (naming the store and the field) or when the token endpoint answers one; it is never quoted", async () => {
    const server = await fixture({ bearer: true });
    const file = writeStore("crlf", { access_token: "access-crlf-0\r\nX-Injected: yes" });
    const error = await rejectsWith(adapterFor({ url: server.url, auth: { tokenStore: file } }, { env: {} }).listTools());
    assert.equal(error.code, "NOT_CONFIGURED");
    assert.equal(error.message, `the OAuth token store ${file} has an access_token containing a character other than visible ASCII (a space, a line break, a control or non-ASCII character such as a typographic quote), which no HTTP header can carry; write the token into it exactly as it was issued`);
    assert.equal(server.stats.lastHeaders["x-injected"], undefined);
    const endpoint = await startServer((_req, res) => sendJson(res, 200, { access_token: "access-issued\r\nX-Injected: yes", expires_in: 3600 }));
    cleanups.push(() => endpoint.close());
    const issued = writeStore("crlf-issued", { access_token: "access-crlf-1", refresh_token: "refresh-crlf-1", expires_at: 1000, token_endpoint: `${endpoint.url}/token` });
    const bad = await rejectsWith(adapterFor({ url: server.url, auth: { tokenStore: issued } }, { env: {} }).listTools());
    assert.equal(bad.code, "UPSTREAM_ERROR");
    assert.match(bad.message, /answered an access_token containing a character other than visible ASCII \(a space, a line break/);
    assert.ok(!bad.message.includes("X-Injected") && !bad.message.includes("access-issued"));
    assert.equal(JSON.parse(readFileSync(issued, "utf8")).access_token, "access-crlf-1", "the store is unchanged");
  });

  test("a symlinked store stays a link: the refresh rewrites its target, and the lock is the target's", async () => {
    const server = await fixture({ bearer: true });
    server.validRefresh.add("refresh-link-1");
    const file = writeStore("link-target", { access_token: "access-link-0", refresh_token: "refresh-link-1", expires_at: 1000, token_endpoint: server.tokenEndpoint });
    const linkDir = mkdtempSync(path.join(tmp, "link-"));
    const link = path.join(linkDir, "tokens.json");
    symlinkSync(file, link);
    assert.equal(textOf(await adapterFor({ url: server.url, auth: { tokenStore: link } }, { env: {} }).call("echo", { text: "linked" })), "linked");
    assert.ok(lstatSync(link).isSymbolicLink(), "the link is kept");
    assert.match(JSON.parse(readFileSync(file, "utf8")).refresh_token as string, /^refresh-1-/, "the target holds the rotated refresh token");
    assert.deepEqual(readdirSync(linkDir), ["tokens.json"], "no lock or temporary beside the link");
    assert.deepEqual(readdirSync(path.dirname(file)), ["tokens.json"]);
  });

  test("~ in tokenStore resolves against HOME", async () => {
    const server = await fixture({ bearer: true });
    server.validAccess.add("home-token-1234");
    const home = mkdtempSync(path.join(tmp, "home-"));
    writeFileSync(path.join(home, "tokens.json"), JSON.stringify({ access_token: "home-token-1234" }));
    const adapter = adapterFor({ url: server.url, auth: { tokenStore: "~/tokens.json" } }, { env: { HOME: home } });
    assert.equal(textOf(await adapter.call("echo", { text: "home" })), "home");
  });
});

describe("spec", () => {
  test("errors name the field", () => {
    assert.throws(() => parseMcpSpec({ kind: "mcp" }), (e: unknown) => e instanceof McpSpecError && /command.*url/.test(e.message));
    assert.throws(() => parseMcpSpec({ kind: "mcp", command: "x", url: "http://a" }), /both/);
    assert.throws(() => parseMcpSpec({ kind: "mcp", url: "ftp://a" }), /adapter\.url/);
    assert.throws(() => parseMcpSpec({ kind: "mcp", url: "http://a", type: "ws" }), /adapter\.type/);
    assert.throws(() => parseMcpSpec({ kind: "mcp", command: "x", timeoutMs: -1 }), /adapter\.timeoutMs/);
    assert.throws(() => parseMcpSpec({ kind: "mcp", command: "x", args: [{}] }), /adapter\.args\[0\]/);
    assert.throws(() => parseMcpSpec({ kind: "mcp", url: "http://a", auth: {} }), /adapter\.auth/);
    const spec = parseMcpSpec({ kind: "mcp", command: "node", args: ["a", 1], env: { N: 2 } });
    assert.deepEqual(spec, { transport: "stdio", command: "node", args: ["a", "1"], env: { N: "2" }, timeoutMs: 60_000, idleTimeoutMs: 600_000 });
  });
});
