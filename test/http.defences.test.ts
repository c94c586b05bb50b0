import assert from "node:assert/strict";
import { request } from "node:http";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { baseEnv, runCli } from "./helpers.js";
import { eventually, HTTP_BIN, httpForSuite, INITIALIZE, MCP_HEADERS, raw, rawInitialize, type RunningHttp, sessionHeaders, startHttp, TOOLS_LIST } from "./http-helpers.js";

// Every defence of the HTTP facade answers its own status, and the very next valid request works.

const TOKEN = "test-token-0123456789abcdef";

async function listWorks(url: string, session: string, extra: Record<string, string> = {}): Promise<void> {
  const res = await raw(url, { headers: sessionHeaders(session, extra), body: TOOLS_LIST });
  assert.equal(res.status, 200, res.body);
  assert.ok(Array.isArray(res.json().result?.tools));
}

/** A POST whose status is known once its headers arrive; `body` resolves when the response ends. */
function openPost(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: Promise<string> }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: target.hostname, port: target.port, path: target.pathname, method: "POST", headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      resolve({ status: res.statusCode ?? 0, body: new Promise((done, failed) => (res.once("end", () => done(text)), res.once("error", failed))) });
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Sends `text` on a fresh socket (a request Node's client would not send) and resolves with all the server wrote back. */
async function rawExchange(port: number, text: string): Promise<string> {
  const socket = connect(port, "127.0.0.1");
  let received = "";
  socket.on("data", (chunk: Buffer) => (received += chunk.toString()));
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  socket.write(text);
  await new Promise<void>((resolve) => socket.once("close", () => resolve()));
  return received;
}

describe("HTTP defences without a token", () => {
  let http: RunningHttp;
  let session: string;
  before(async () => {
    http = await startHttp({ AGENT_TOOLS_HTTP_MAX_BODY_BYTES: "65536" });
    session = await rawInitialize(http.url);
  });
  after(async () => {
    await http.stop();
  });
  const headers = (): Record<string, string> => sessionHeaders(session);

  it("a foreign Host answers 403, a loopback one is served", async () => {
    const bad = await raw(http.url, { headers: { ...headers(), Host: "evil.example.com" }, body: TOOLS_LIST });
    assert.equal(bad.status, 403);
    assert.match(bad.json().error?.message ?? "", /Host 'evil\.example\.com' is not allowed/);
    for (const host of ["localhost", "127.0.0.1", "[::1]"]) {
      const port = new URL(http.url).port;
      await listWorks(http.url, session, { Host: `${host}:${port}` });
    }
  });

  it("a foreign Origin answers 403, a loopback Origin is served", async () => {
    const bad = await raw(http.url, { headers: { ...headers(), Origin: "https://evil.example.com" }, body: TOOLS_LIST });
    assert.equal(bad.status, 403);
    assert.match(bad.json().error?.message ?? "", /Origin/);
    await listWorks(http.url, session, { Origin: "http://localhost:3000" });
  });

  it("an oversized body answers 413 before it is parsed", async () => {
    const huge = JSON.stringify({ jsonrpc: "2.0", id: 8, method: "tools/list", params: { pad: "x".repeat(100_000) } });
    const res = await raw(http.url, { headers: headers(), body: huge });
    assert.equal(res.status, 413);
    assert.match(res.json().error?.message ?? "", /larger than 65536 bytes/);
    await listWorks(http.url, session);
  });

  it("an oversized body sent with fetch gets the 413, every time: the rest of the body is read and thrown away", async () => {
    // 4 MiB against a 64 KiB cap: more than the sockets buffer, so the client is still sending when the 413 is written.
    const huge = JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list", params: { pad: "x".repeat(4 * 1024 * 1024) } });
    for (let round = 0; round < 3; round++) {
      const res = await fetch(http.url, { method: "POST", headers: headers(), body: huge });
      assert.equal(res.status, 413, `round ${round}`);
      assert.match(((await res.json()) as { error: { message: string } }).error.message, /the request body is larger than 65536 bytes \(AGENT_TOOLS_HTTP_MAX_BODY_BYTES\)/);
    }
    const declared = await raw(http.url, { headers: { ...headers(), "Content-Length": String(Buffer.byteLength(huge)) }, body: huge });
    assert.equal(declared.status, 413);
    await listWorks(http.url, session);
  });

  it("an oversized body past what is thrown away (16 MiB here) has its connection cut, and the server keeps serving", async () => {
    const endless = Buffer.alloc(24 * 1024 * 1024, "x");
    const outcome = await fetch(http.url, { method: "POST", headers: headers(), body: endless }).then(
      (res) => res.status,
      (error: Error) => error.message,
    );
    // Either the 413 arrived before the cut, or the client saw the connection go: never a 200, never a hang.
    assert.ok(outcome === 413 || outcome === "fetch failed", String(outcome));
    await listWorks(http.url, session);
  });

  it("malformed JSON answers a JSON-RPC parse error (-32700) with 400", async () => {
    for (const body of ["{not json", "", "\u0000\u0001\u0002", "[1,2"]) {
      const res = await raw(http.url, { headers: headers(), body });
      assert.equal(res.status, 400, body);
      assert.equal(res.json().error?.code, -32700);
      assert.equal(res.json().jsonrpc, "2.0");
    }
    await listWorks(http.url, session);
  });

  it("a batch that repeats an id answers 400 naming it (-32600), and nothing in it runs", async () => {
    const batch = JSON.stringify([
      { jsonrpc: "2.0", id: 5, method: "ping" },
      { jsonrpc: "2.0", id: 5, method: "tools/list" },
    ]);
    const res = await raw(http.url, { headers: headers(), body: batch });
    assert.equal(res.status, 400, res.body);
    assert.equal(res.json().error?.code, -32600);
    assert.match(res.json().error?.message ?? "", /id 5 is already used .* an id of its own/);
    await listWorks(http.url, session);
  });

  it("a request reusing the id of one in flight answers 400 naming it; the first is still answered", async () => {
    // An SSE session: its POST's headers go out once the SDK took the request, so it is in flight from then.
    const sse = await rawInitialize(http.url, { Accept: "text/event-stream, application/json" });
    const sseHeaders = sessionHeaders(sse, { Accept: "text/event-stream, application/json" });
    const slow = JSON.stringify({ jsonrpc: "2.0", id: "twin", method: "tools/call", params: { name: "agent_tools_notes_call", arguments: { toolName: "slow_echo", arguments: { ms: 8000, text: "first" } } } });
    const first = await openPost(http.url, sseHeaders, slow);
    assert.equal(first.status, 200);
    const second = await raw(http.url, { headers: sseHeaders, body: JSON.stringify({ jsonrpc: "2.0", id: "twin", method: "ping" }) });
    assert.equal(second.status, 400, second.body);
    assert.match(second.json().error?.message ?? "", /id "twin" is already used by a request in flight/);
    // Before the fix the second request took over the first one's route and the first POST never ended.
    const body = await first.body;
    assert.match(body, /"id":"twin"/);
    assert.match(body, /first/);
    // Once answered, the id is free again.
    const again = await raw(http.url, { headers: sseHeaders, body: JSON.stringify({ jsonrpc: "2.0", id: "twin", method: "ping" }) });
    assert.equal(again.status, 200, again.body);
  });

  it("an unknown session answers 404; a request without one is served in a one-request session", async () => {
    const unknown = await raw(http.url, { headers: { ...MCP_HEADERS, "Mcp-Session-Id": "no-such-session" }, body: TOOLS_LIST });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json().error?.code, -32001);
    const none = await raw(http.url, { headers: MCP_HEADERS, body: TOOLS_LIST });
    assert.equal(none.status, 200, none.body);
    assert.equal(none.headers["agent-tools-session"], "none");
    await listWorks(http.url, session);
  });

  it("other paths answer 404 and other methods 405", async () => {
    assert.equal((await raw(http.url.replace(/\/mcp$/, "/other"), { headers: headers(), body: TOOLS_LIST })).status, 404);
    const put = await raw(http.url, { method: "PUT", headers: headers(), body: TOOLS_LIST });
    assert.equal(put.status, 405);
    assert.equal(put.headers.allow, "GET, POST, DELETE");
    await listWorks(http.url, session);
  });

  it("a newline in a JSON-RPC method, a tool name or a session id cannot forge a log line: one request, one line", async () => {
    const forged = "[agent-tools] error: INJECTED";
    const method = JSON.stringify({ jsonrpc: "2.0", id: 31, method: `x\n${forged} method`, params: {} });
    const tool = JSON.stringify({ jsonrpc: "2.0", id: 32, method: "tools/call", params: { name: `t\r\n${forged} tool\u001b[2K`, arguments: {} } });
    await raw(http.url, { headers: headers(), body: method });
    await raw(http.url, { headers: headers(), body: tool });
    await raw(http.url, { headers: { ...MCP_HEADERS, "Mcp-Session-Id": "a\tb" }, body: TOOLS_LIST });
    await eventually(() => http.stderr().includes("tool=t\\r\\n[agent-tools]"), "the tools/call's log line");
    await eventually(() => http.stderr().includes("session=a\\tb"), "the tab-carrying session id's log line");
    const lines = http.stderr().split("\n");
    assert.ok(!lines.some((line) => line.startsWith(forged)), "no line starts with the forged prefix");
    assert.ok(lines.some((line) => line.includes(`x\\n${forged} method`)), "the method is logged escaped on its request's line");
    assert.ok(lines.some((line) => line.includes("tool\\u001b[2K")), "an escape sequence is logged as text");
  });

  it("Host is parsed strictly: a malformed one or two of them answer 400, an absolute-form target's host is checked too", async () => {
    const { port } = new URL(http.url);
    const post = (target: string, hostLines: string): Promise<string> =>
      rawExchange(Number(port), `POST ${target} HTTP/1.1\r\n${hostLines}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: ${session}\r\nContent-Length: ${TOOLS_LIST.length}\r\nConnection: close\r\n\r\n${TOOLS_LIST}`);
    for (const host of ["[::1]evil.example", "localhost:abc", "127.0.0.1:99999", "127.0.0.1:0"]) {
      const received = await post("/mcp", `Host: ${host}\r\n`);
      assert.match(received, /^HTTP\/1\.1 400 /, `${host}: ${received.slice(0, 200)}`);
      assert.ok(received.includes(`"message":"Host '${host}' is not a valid host: send a name or [IPv6 address], optionally with ':' and a port from 1 to 65535"`), received);
    }
    const twice = await post("/mcp", `Host: 127.0.0.1:${port}\r\nHost: 127.0.0.1:${port}\r\n`);
    assert.match(twice, /^HTTP\/1\.1 400 /, twice.slice(0, 200));
    assert.match(twice, /the request has 2 Host headers; send exactly one/);
    const foreignTarget = await post("http://evil.example/mcp", `Host: 127.0.0.1:${port}\r\n`);
    assert.match(foreignTarget, /^HTTP\/1\.1 403 /, foreignTarget.slice(0, 200));
    assert.match(foreignTarget, /the request target names host 'evil\.example', which is not allowed/);
    // The valid forms still pass: an absolute-form target naming this server, and [::1] with a port.
    assert.match(await post(`http://127.0.0.1:${port}/mcp`, `Host: 127.0.0.1:${port}\r\n`), /^HTTP\/1\.1 200 /);
    assert.match(await post("/mcp", `Host: [::1]:${port}\r\n`), /^HTTP\/1\.1 200 /);
  });

  it("a batch of thousands of methods is logged as the first ten and how many more: the line stays short", async () => {
    const method = `notifications/${"m".repeat(66)}`;
    const batch = JSON.stringify(Array.from({ length: 400 }, () => ({ jsonrpc: "2.0", method })));
    const res = await raw(http.url, { headers: headers(), body: batch });
    // Refused (a batch holds at most 100 messages), and logged like every request.
    assert.equal(res.status, 400, res.body);
    await eventually(() => http.stderr().includes(" and 390 more "), "the batch's log line");
    const line = http.stderr().split("\n").find((l) => l.includes(" and 390 more "))!;
    assert.equal(line.split(method).length - 1, 10, "ten methods named");
    assert.ok(line.length < 1200, `one bounded line (${line.length} chars)`);
  });

  it("an unparsable request target answers 400 naming it, with no error logged", async () => {
    const { port } = new URL(http.url);
    const received = await rawExchange(Number(port), `POST http://[ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${TOOLS_LIST.length}\r\nConnection: close\r\n\r\n${TOOLS_LIST}`);
    assert.match(received, /^HTTP\/1\.1 400 /, received.slice(0, 200));
    assert.match(received, /the request target 'http:\/\/\[' is not a valid URL; send the path of the endpoint/);
    assert.doesNotMatch(http.stderr(), /error: http request failed/);
    await listWorks(http.url, session);
  });

  it("two Mcp-Session-Id headers (even the same id twice) answer 400 saying to send one, not a 404", async () => {
    const { port } = new URL(http.url);
    for (const second of [session, "another-id"]) {
      const received = await rawExchange(
        Number(port),
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
          `Mcp-Session-Id: ${session}\r\nMcp-Session-Id: ${second}\r\nContent-Length: ${TOOLS_LIST.length}\r\nConnection: close\r\n\r\n${TOOLS_LIST}`,
      );
      assert.match(received, /^HTTP\/1\.1 400 /, received.slice(0, 300));
      assert.match(received, /send one Mcp-Session-Id header, not several \(this request has 2\)/);
    }
    await listWorks(http.url, session);
  });

  it("an oversized body announced with Expect: 100-continue gets 413 without 100 Continue", async () => {
    const { port } = new URL(http.url);
    const socket = connect(Number(port), "127.0.0.1");
    let received = "";
    socket.on("data", (chunk: Buffer) => (received += chunk.toString()));
    await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: ${session}\r\nContent-Length: 100000\r\nExpect: 100-continue\r\n\r\n`);
    await new Promise<void>((resolve) => socket.once("close", () => resolve()));
    assert.match(received, /^HTTP\/1\.1 413 /, received.slice(0, 200));
    assert.doesNotMatch(received, /100 Continue/);
    await listWorks(http.url, session);
  });

  it("a path that starts with // is named as sent in the 404", async () => {
    const { port } = new URL(http.url);
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, path: "//mcp", method: "POST", headers: headers() }, (r) => {
        let body = "";
        r.on("data", (c: Buffer) => (body += c.toString()));
        r.on("end", () => resolve({ status: r.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      req.end(TOOLS_LIST);
    });
    assert.equal(res.status, 404);
    assert.match(res.body, /nothing at '\/\/mcp'; the MCP endpoint is \/mcp/);
  });

  it("a stateless (2026-07-28) request is told what applies to its era: a stale Mcp-Session-Id to drop, GET and DELETE 405", async () => {
    const envelope = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "era", version: "0" }, "io.modelcontextprotocol/clientCapabilities": {} };
    const stale = await raw(http.url, {
      headers: { ...MCP_HEADERS, "Mcp-Session-Id": "gone-session", "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list", params: { _meta: envelope } }),
    });
    assert.equal(stale.status, 400);
    assert.match(stale.json().error?.message ?? "", /2026-07-28 requests belong to no session: send it without the Mcp-Session-Id header/);
    assert.doesNotMatch(stale.json().error?.message ?? "", /initialize/);
    assert.equal(stale.json().id, 3, "the refusal answers the request's own id");
    // The same 405 with an open session's id, a closed one's or none: it tells no one which ids are open.
    for (const method of ["GET", "DELETE"]) {
      for (const id of [undefined, session, "gone-session"]) {
        const res = await raw(http.url, { method, headers: { Accept: "text/event-stream", "Mcp-Protocol-Version": "2026-07-28", ...(id ? { "Mcp-Session-Id": id } : {}) } });
        assert.equal(res.status, 405, `${method} with session id ${id}`);
        assert.equal(res.headers.allow, "POST");
        assert.match(res.json().error?.message ?? "", /send each request as a POST/);
      }
    }
    await listWorks(http.url, session);
    const legacyGet = await raw(http.url, { method: "GET", headers: { Accept: "text/event-stream" } });
    assert.equal(legacyGet.status, 400, "a 2025-era GET is still told it needs its session");
    assert.match(legacyGet.json().error?.message ?? "", /GET needs the Mcp-Session-Id header/);
    // A 2025-era request without a session is served in a session of its own (http.sessionless.test.ts).
    const sessionless = await raw(http.url, { headers: MCP_HEADERS, body: JSON.stringify({ jsonrpc: "2.0", id: "t-9", method: "tools/list" }) });
    assert.equal(sessionless.status, 200, sessionless.body);
    assert.equal(sessionless.headers["agent-tools-session"], "none");
    assert.equal(sessionless.json().id, "t-9");
  });

  it("never logs a credential sent in a header", async () => {
    await raw(http.url, { headers: { ...headers(), Authorization: "Bearer sk-should-not-appear-12345" }, body: TOOLS_LIST });
    assert.ok(!http.stderr().includes("sk-should-not-appear"));
  });
});

describe("HTTP with a bearer token", () => {
  const http = httpForSuite({ AGENT_TOOLS_HTTP_TOKEN: TOKEN });

  it("a missing token answers 401 with WWW-Authenticate; a wrong one too; the right one is served", async () => {
    const missing = await raw(http.url, { headers: MCP_HEADERS, body: INITIALIZE });
    assert.equal(missing.status, 401);
    // The metadata is served at the server's own address, and the challenge names it (RFC 9728).
    const metadataUrl = http.url.replace(/\/mcp$/, "/.well-known/oauth-protected-resource");
    assert.equal(String(missing.headers["www-authenticate"]), `Bearer realm="agent-tools-runtime", resource_metadata="${metadataUrl}"`);
    assert.equal((await raw(metadataUrl, { method: "GET" })).status, 200);
    const wrong = await raw(http.url, { headers: { ...MCP_HEADERS, Authorization: "Bearer not-the-token" }, body: INITIALIZE });
    assert.equal(wrong.status, 401);
    assert.match(String(wrong.headers["www-authenticate"]), /error="invalid_token"/);
    const session = await rawInitialize(http.url, { Authorization: `Bearer ${TOKEN}` });
    await listWorks(http.url, session, { Authorization: `Bearer ${TOKEN}` });
    const noTokenOnSession = await raw(http.url, { headers: { ...MCP_HEADERS, "Mcp-Session-Id": session }, body: TOOLS_LIST });
    assert.equal(noTokenOnSession.status, 401, "the session id is not a substitute for the token");
    assert.ok(!http.stderr().includes(TOKEN), "the token never reaches the log");
  });

  it("an absolute-form target's host, not Host, names the resource metadata in the 401 and in the metadata itself", async () => {
    const port = Number(new URL(http.url).port);
    const send = (method: string, target: string, body = ""): Promise<string> =>
      rawExchange(port, `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
    const challenge = await send("POST", `http://localhost:${port}/mcp`, INITIALIZE);
    assert.match(challenge, /^HTTP\/1\.1 401 /, challenge.slice(0, 200));
    assert.match(challenge, new RegExp(`resource_metadata="http://localhost:${port}/\\.well-known/oauth-protected-resource"`), challenge.slice(0, 400));
    const metadata = await send("GET", `http://localhost:${port}/.well-known/oauth-protected-resource`);
    assert.match(metadata, /^HTTP\/1\.1 200 /, metadata.slice(0, 200));
    assert.ok(metadata.includes(`"resource":"http://localhost:${port}/mcp"`), metadata);
    // The usual origin-form target: Host names it, as before.
    assert.match(await send("POST", "/mcp", INITIALIZE), new RegExp(`resource_metadata="http://127\\.0\\.0\\.1:${port}/`));
  });
});

describe("HTTP session idle expiry", () => {
  // 2 s, not less: the session must still be live for the list right after its initialize, and on a
  // loaded machine the gap between the two can pass a few hundred ms.
  const http = httpForSuite({ AGENT_TOOLS_HTTP_MAX_SESSIONS: "2", AGENT_TOOLS_HTTP_SESSION_IDLE_MS: "2000" });

  it("expires an idle session: its id answers 404, and expired sessions free their place under the cap", async () => {
    const id = await rawInitialize(http.url);
    await listWorks(http.url, id);
    await rawInitialize(http.url);
    // Past the idle limit for sure: expiry is judged by the clock when the next request comes.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const res = await raw(http.url, { headers: sessionHeaders(id), body: TOOLS_LIST });
    assert.equal(res.status, 404);
    assert.match(res.body, /expired or was closed/);
    await rawInitialize(http.url);
  });
});

describe("binding a non-loopback address", () => {
  it("refuses to start without AGENT_TOOLS_HTTP_TOKEN, naming the variable", async () => {
    const result = await runCli(["--host", "0.0.0.0", "--port", "0"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: "/nonexistent" }), HTTP_BIN);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /refusing to listen on '0\.0\.0\.0' without a token.*AGENT_TOOLS_HTTP_TOKEN/s);
    assert.equal(result.stdout, "");
  });

  it("starts with a token, and then every request needs it", async () => {
    const http = await startHttp({ AGENT_TOOLS_HTTP_TOKEN: TOKEN }, ["--host", "0.0.0.0"]);
    try {
      const port = new URL(http.url).port;
      const url = `http://127.0.0.1:${port}/mcp`;
      assert.equal((await raw(url, { headers: MCP_HEADERS, body: INITIALIZE })).status, 401);
      await rawInitialize(url, { Authorization: `Bearer ${TOKEN}` });
    } finally {
      await http.stop();
    }
  });

  it("rejects a short token and a bad port with a message", async () => {
    const short = await runCli(["--port", "0"], baseEnv({ AGENT_TOOLS_HTTP_TOKEN: "short" }), HTTP_BIN);
    assert.equal(short.code, 1);
    assert.match(short.stderr, /shorter than 16 characters/);
    const port = await runCli(["--port", "http"], baseEnv(), HTTP_BIN);
    assert.equal(port.code, 2, "a usage error");
    assert.match(port.stderr, /--port must be a whole number from 0 to 65535 \(got 'http'\)/);
    const fromEnv = await runCli([], baseEnv({ AGENT_TOOLS_HTTP_PORT: "http" }), HTTP_BIN);
    assert.equal(fromEnv.code, 1);
    assert.match(fromEnv.stderr, /AGENT_TOOLS_HTTP_PORT \(or http\.port\) must be a port number, a whole number from 0 to 65535 \(0 picks a free one\) \(got 'http'\)/, "a bad variable is named as the variable");
  });

  it("refuses an allowed origin that is no origin (it would never match a browser's), naming the setting, its password masked", async () => {
    for (const [value, shown] of [
      ["not a url", "'not a url'"],
      ["https://app.example.com/app", "'https://app.example.com/app'"],
      ["https://me:origin-pw-7731@app.example.com", "'https://***@app.example.com'"],
    ] as const) {
      const refused = await runCli(["--port", "0"], baseEnv({ AGENT_TOOLS_HTTP_ALLOWED_ORIGINS: `http://localhost:5173, ${value}` }), HTTP_BIN);
      assert.equal(refused.code, 1, value);
      assert.ok(refused.stderr.includes(`AGENT_TOOLS_HTTP_ALLOWED_ORIGINS (or http.allowedOrigins) holds ${shown}, which is not an origin: write each as a browser sends it`), refused.stderr);
      assert.doesNotMatch(refused.stderr, /origin-pw-7731/);
    }
  });
});

describe("HTTP session cap under concurrent initializes", () => {
  const http = httpForSuite({ AGENT_TOOLS_HTTP_MAX_SESSIONS: "2" });

  it("never holds more than the cap: of many initializes at once, at most the cap stay open", async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => raw(http.url, { headers: MCP_HEADERS, body: INITIALIZE })));
    for (const answer of answers) assert.ok(answer.status === 200 || answer.status === 503, `${answer.status} ${answer.body}`);
    const ids = answers.map((a) => a.headers["mcp-session-id"]).filter((id): id is string => typeof id === "string");
    assert.ok(ids.length >= 2);
    const alive = await Promise.all(ids.map((id) => raw(http.url, { headers: sessionHeaders(id), body: TOOLS_LIST })));
    assert.equal(alive.filter((a) => a.status === 200).length, 2, alive.map((a) => a.status).join(","));
  });
});

describe("CORS for the origins in http.allowedOrigins", () => {
  const http = httpForSuite({ AGENT_TOOLS_HTTP_ALLOWED_ORIGINS: "https://app.example" });
  const PING = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });

  it("answers a preflight from a listed origin with what a browser needs, and no other origin's", async () => {
    const preflight = await raw(http.url, {
      method: "OPTIONS",
      headers: { Origin: "https://app.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type,mcp-session-id,mcp-protocol-version,authorization" },
    });
    assert.equal(preflight.status, 204, preflight.body);
    assert.equal(preflight.headers["access-control-allow-origin"], "https://app.example");
    assert.equal(preflight.headers.vary, "Origin, Access-Control-Request-Headers");
    assert.equal(preflight.headers["access-control-allow-methods"], "GET, POST, DELETE");
    const allowed = String(preflight.headers["access-control-allow-headers"]).toLowerCase().split(/,\s*/);
    for (const name of ["content-type", "accept", "authorization", "mcp-session-id", "mcp-protocol-version", "last-event-id"]) assert.ok(allowed.includes(name), name);
    assert.equal(preflight.headers["access-control-expose-headers"], "Mcp-Session-Id, WWW-Authenticate");

    const foreign = await raw(http.url, { method: "OPTIONS", headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "POST" } });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.headers["access-control-allow-origin"], undefined);
  });

  it("marks the answers to a listed origin (initialize's Mcp-Session-Id readable), and only those", async () => {
    const init = await raw(http.url, { headers: { ...MCP_HEADERS, Origin: "https://app.example" }, body: INITIALIZE });
    assert.equal(init.status, 200, init.body);
    assert.equal(init.headers["access-control-allow-origin"], "https://app.example");
    assert.equal(init.headers.vary, "Origin");
    assert.match(String(init.headers["access-control-expose-headers"]), /Mcp-Session-Id/);
    assert.equal(typeof init.headers["mcp-session-id"], "string");
    const plain = await raw(http.url, { headers: MCP_HEADERS, body: PING });
    assert.equal(plain.status, 200, plain.body);
    assert.equal(plain.headers["access-control-allow-origin"], undefined, "no Origin, no CORS headers");
    const foreign = await raw(http.url, { headers: { ...MCP_HEADERS, Origin: "https://evil.example" }, body: PING });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.headers["access-control-allow-origin"], undefined);
  });

  it("allows the Mcp-Param-* headers a preflight asks for (exec's workspace), and echoes no other name", async () => {
    const preflightAsking = (requested: string) =>
      raw(http.url, { method: "OPTIONS", headers: { Origin: "https://app.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": requested } });
    // What a browser sends before the SDK client's agent_tools_exec call carrying a workspace.
    const exec = await preflightAsking("content-type,mcp-method,mcp-name,mcp-param-workspace,mcp-protocol-version");
    assert.equal(exec.status, 204, exec.body);
    const allowed = String(exec.headers["access-control-allow-headers"]).toLowerCase().split(/,\s*/);
    for (const name of ["content-type", "mcp-method", "mcp-name", "mcp-param-workspace", "mcp-protocol-version"]) assert.ok(allowed.includes(name), `${name} in ${allowed.join(",")}`);

    const withForeign = await preflightAsking("content-type,mcp-param-workspace,x-evil");
    assert.equal(withForeign.status, 204, withForeign.body);
    const offered = String(withForeign.headers["access-control-allow-headers"]).toLowerCase();
    assert.doesNotMatch(offered, /x-evil/);
    assert.doesNotMatch(offered, /mcp-param-workspace/, "nothing requested is echoed when one name is not allowed");

    const oddName = await preflightAsking("mcp-param-a\"b");
    assert.doesNotMatch(String(oddName.headers["access-control-allow-headers"]).toLowerCase(), /mcp-param-a/);
  });

  it("answers a listed origin sent in another case or with a trailing slash as the list has it (what a browser compares with)", async () => {
    const init = await raw(http.url, { headers: { ...MCP_HEADERS, Origin: "HTTPS://APP.EXAMPLE/" }, body: PING });
    assert.equal(init.status, 200, init.body);
    assert.equal(init.headers["access-control-allow-origin"], "https://app.example");
    const preflight = await raw(http.url, { method: "OPTIONS", headers: { Origin: "https://App.Example", "Access-Control-Request-Method": "POST" } });
    assert.equal(preflight.status, 204, preflight.body);
    assert.equal(preflight.headers["access-control-allow-origin"], "https://app.example");
  });
});
