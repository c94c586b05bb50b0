import assert from "node:assert/strict";
import { request, type ClientRequest } from "node:http";
import { describe, it } from "node:test";
import { httpClient, httpForSuite, INITIALIZE, MCP_HEADERS, raw, rawInitialize, sessionHeaders, TOOLS_LIST } from "./http-helpers.js";

// The session table's policy: sessions that never did anything after initialize (nor opened their
// GET stream) are the first to lose their slot when a new client needs one, a full table gives a
// new client the slot of the least recently used idle session, and only a table whose every
// session has a request in flight answers 503.

const list = (url: string, id: string) => raw(url, { headers: sessionHeaders(id), body: TOOLS_LIST });
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A session's GET notification stream, open once the server has answered its headers (200); `destroy()` ends it. */
function openStream(url: string, session: string): Promise<ClientRequest> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: target.hostname, port: target.port, path: target.pathname, method: "GET", headers: { ...sessionHeaders(session), Accept: "text/event-stream" } });
    req.on("error", () => undefined);
    req.on("response", (res) => {
      res.resume();
      if (res.statusCode === 200) resolve(req);
      else reject(new Error(`GET stream answered ${res.statusCode}`));
    });
    req.end();
  });
}

describe("a full session table", () => {
  const http = httpForSuite({ AGENT_TOOLS_HTTP_MAX_SESSIONS: "2" });

  it("gives a new initialize the slot of an idle session, unused ones first; the evicted id answers 404 saying why", async () => {
    const worker = await rawInitialize(http.url);
    assert.equal((await list(http.url, worker)).status, 200, "the worker did something: it is a used session");
    const abandoned = await rawInitialize(http.url);
    const newcomer = await rawInitialize(http.url);
    const gone = await list(http.url, abandoned);
    assert.equal(gone.status, 404);
    assert.match(gone.body, /closed to make room for a new session/);
    assert.equal((await list(http.url, worker)).status, 200, "the used session was kept although it is older");
    assert.equal((await list(http.url, newcomer)).status, 200);
    // Both are used now: the least recently seen one (worker was listed before newcomer) goes next.
    await rawInitialize(http.url);
    assert.equal((await list(http.url, worker)).status, 404);
    assert.equal((await list(http.url, newcomer)).status, 200);
  });

  it("answers 503 with Retry-After only while every session has a request in flight", async () => {
    // Each client lists its tools before the next connects: a session that only initialized is the
    // first to give its slot away, which would be the other client's.
    const a = await httpClient(http.url);
    await a.client.listTools();
    const b = await httpClient(http.url);
    await b.client.listTools();
    // Both calls must have reached the server before the probe and still run when it comes: 2 s for
    // them to arrive (a loaded machine), 8 s more for the probe.
    const busy = [a, b].map(({ client }) => client.callTool({ name: "agent_tools_exec", arguments: { command: "sleep 10; echo done" } }));
    await sleep(2_000);
    const refused = await raw(http.url, { headers: MCP_HEADERS, body: INITIALIZE });
    assert.equal(refused.status, 503, refused.body);
    assert.equal(refused.headers["retry-after"], "5");
    assert.match(refused.body, /all 2 .* have a request in flight/);
    await Promise.all(busy);
    await rawInitialize(http.url);
    await Promise.all([a.client.close(), b.client.close()]);
  });
});

describe("sessions that never did anything after initialize", () => {
  // 2 s, not less: a request must reach a session before the short limit ends it on a loaded machine.
  const http = httpForSuite({ AGENT_TOOLS_HTTP_MAX_SESSIONS: "2", AGENT_TOOLS_HTTP_UNUSED_SESSION_IDLE_MS: "2000" });

  it("keep their slot while the table has room, however late the first call comes; a full table closes them first, saying why", async () => {
    const late = await rawInitialize(http.url);
    const idle = await rawInitialize(http.url);
    // ping does not count as use.
    await raw(http.url, { headers: sessionHeaders(idle), body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }) });
    await sleep(2_500);
    // Past the unused limit, but nobody needed the slot: the first call is served (it used to get 404).
    assert.equal((await list(http.url, late)).status, 200);
    // The table is full now: the session still unused past its limit gives its slot up.
    const newcomer = await rawInitialize(http.url);
    const gone = await list(http.url, idle);
    assert.equal(gone.status, 404);
    assert.match(gone.body, /closed to make room for a new session .*it had done nothing since initialize for more than 2000 ms \(http\.unusedSessionIdleMs\)/);
    assert.equal((await list(http.url, late)).status, 200);
    assert.equal((await list(http.url, newcomer)).status, 200);
  });

  it("serve an SDK client's first call made after the unused limit", async () => {
    const waiting = await httpClient(http.url);
    await sleep(2_500);
    assert.ok((await waiting.client.listTools()).tools.length > 0);
    await waiting.client.close();
  });
});

describe("a session whose client opened its GET notification stream", () => {
  const http = httpForSuite({ AGENT_TOOLS_HTTP_MAX_SESSIONS: "2" });

  it("counts as used: a full table takes the slot of a session that opened none, though the streaming one is older", async () => {
    const streaming = await rawInitialize(http.url);
    const stream = await openStream(http.url, streaming);
    try {
      const quiet = await rawInitialize(http.url);
      await rawInitialize(http.url);
      assert.equal((await list(http.url, quiet)).status, 404, "the session without a stream gave its slot up");
      assert.equal((await list(http.url, streaming)).status, 200, "the client waiting on its stream kept its session");
    } finally {
      stream.destroy();
    }
  });
});

describe("1,000 abandoned initializes", () => {
  const http = httpForSuite({}); // the defaults: 64 sessions, 30 min idle, 30 s for unused ones

  it("neither lock a new client out nor evict a client that is working", async () => {
    const working = await httpClient(http.url);
    await working.client.listTools();
    const statuses: Record<string, number> = {};
    let next = 0;
    const flood = async (): Promise<void> => {
      while (next < 1_000) {
        next += 1;
        const res = await raw(http.url, { headers: MCP_HEADERS, body: INITIALIZE });
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      }
    };
    await Promise.all(Array.from({ length: 25 }, flood));
    assert.deepEqual(statuses, { 200: 1_000 }, "every initialize was served: the flood only displaced itself");
    const started = Date.now();
    const newcomer = await httpClient(http.url);
    const tools = await newcomer.client.listTools();
    assert.ok(tools.tools.length > 0);
    // Served, and not after waiting out a flooded session's 30 s unused limit: seconds of bound for a loaded machine.
    assert.ok(Date.now() - started < 15_000, `the new client was served in ${Date.now() - started} ms`);
    assert.ok((await working.client.listTools()).tools.length > 0, "the working client kept its session");
    await Promise.all([working.client.close(), newcomer.client.close()]);
  });
});
