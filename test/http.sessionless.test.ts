import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { textJson } from "./helpers.js";
import { eventually, httpForSuite, raw, rawInitialize, sessionHeaders, startHttp, TOOLS_LIST, type RawResponse, type RunningHttp } from "./http-helpers.js";
import { LEGACY_ASKER } from "./v2-helpers.js";

/**
 * A 2025-era client that initializes and then never sends Mcp-Session-Id (the original runtime's
 * Pi extension does so, with `Accept: application/json`) is served each request in a session of its
 * own, opened for that request and closed after its answer. A wrong session id is still an error.
 */

let http: RunningHttp;
before(async () => {
  http = await startHttp();
});
after(async () => {
  await http?.stop();
});

const JSON_ONLY = { "Content-Type": "application/json", Accept: "application/json" };
const post = (message: unknown, headers: Record<string, string> = JSON_ONLY): Promise<RawResponse> => raw(http.url, { headers, body: JSON.stringify(message) });
const exec = (id: number, command: string): Promise<RawResponse> => post({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "agent_tools_exec", arguments: { command } } });

describe("a 2025-era client that never repeats Mcp-Session-Id", () => {
  it("initializes, then lists and calls tools without the header and gets JSON answers", async () => {
    const init = await post({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "pi-agent-tools-runtime-extension", version: "0.1.0" } } });
    assert.equal(init.status, 200, init.body);
    assert.equal(init.json().result?.protocolVersion, "2025-03-26");

    const initialized = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
    assert.equal(initialized.status, 202, initialized.body);

    const list = await post({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    assert.equal(list.status, 200, list.body);
    assert.match(String(list.headers["content-type"]), /^application\/json/);
    assert.equal(list.headers["agent-tools-session"], "none");
    assert.equal(list.headers["mcp-session-id"], undefined, "no session id is issued for a one-request session");
    assert.equal(list.json().id, 2);
    assert.ok((list.json().result?.tools as { name: string }[]).some((t) => t.name === "agent_tools_help"));

    const help = await post({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "agent_tools_help", arguments: {} } });
    assert.equal(help.status, 200, help.body);
    assert.match(String(help.headers["content-type"]), /^application\/json/);
    assert.equal(textJson<{ ok: boolean }>(help.json().result).ok, true);

    await eventually(() => /http POST \/mcp tools\/list session=none status=200/.test(http.stderr()), "the request log names the sessionless request");
  });

  it("carries nothing from one request to the next: the text layer starts afresh each time", async () => {
    const wrote = await exec(4, "echo kept > note.txt && cat note.txt");
    assert.equal(wrote.status, 200, wrote.body);
    assert.match(wrote.body, /kept/);
    const read = await exec(5, "cat note.txt");
    assert.equal(read.status, 200, read.body);
    assert.doesNotMatch(read.body, /kept/, "the file written by the previous request is gone");
  });

  it("holds no session slot after its answer", async () => {
    const before = await raw(http.url.replace(/\/mcp$/, "/metrics"), { method: "GET" });
    const open = (text: string): number => Number(/^agent_tools_sessions_open\{[^}]*\} (\d+)/m.exec(text)?.[1] ?? Number.NaN);
    const count = open(before.body);
    assert.ok(Number.isFinite(count), before.body.slice(0, 400));
    await Promise.all([1, 2, 3, 4].map((n) => post({ jsonrpc: "2.0", id: 10 + n, method: "tools/list" })));
    const afterwards = await raw(http.url.replace(/\/mcp$/, "/metrics"), { method: "GET" });
    assert.equal(open(afterwards.body), count);
  });

  it("a wrong or closed session id is still refused (404), and a sessionful client keeps its session", async () => {
    const unknown = await raw(http.url, { headers: sessionHeaders("no-such-session"), body: TOOLS_LIST });
    assert.equal(unknown.status, 404, unknown.body);
    assert.match(unknown.json().error?.message ?? "", /Session not found/);

    const session = await rawInitialize(http.url);
    const wrote = await raw(http.url, { headers: sessionHeaders(session), body: JSON.stringify({ jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "agent_tools_exec", arguments: { command: "echo kept > note.txt" } } }) });
    assert.equal(wrote.status, 200, wrote.body);
    const read = await raw(http.url, { headers: sessionHeaders(session), body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "agent_tools_exec", arguments: { command: "cat note.txt" } } }) });
    assert.match(read.body, /kept/, "inside a session the text layer keeps its files");
    assert.equal(read.headers["agent-tools-session"], undefined);

    const closed = await raw(http.url, { method: "DELETE", headers: sessionHeaders(session) });
    assert.equal(closed.status, 200, closed.body);
    const gone = await raw(http.url, { headers: sessionHeaders(session), body: TOOLS_LIST });
    assert.equal(gone.status, 404, gone.body);
  });
});

describe("requests without Mcp-Session-Id beside a full session table (http.maxSessions 4)", () => {
  let full: RunningHttp;
  before(async () => {
    full = await startHttp({ AGENT_TOOLS_HTTP_MAX_SESSIONS: "4" });
  });
  after(async () => {
    await full?.stop();
  });
  const inSession = (session: string, id: number, command: string): Promise<RawResponse> =>
    raw(full.url, { headers: sessionHeaders(session), body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "agent_tools_exec", arguments: { command } } }) });
  const sessionless = (message: unknown): Promise<RawResponse> => raw(full.url, { headers: JSON_ONLY, body: JSON.stringify(message) });

  it("never evict a session: they run in an allowance of their own (4 here), past it 503 with Retry-After; every working session keeps its files", async () => {
    const sessions: string[] = [];
    for (let n = 0; n < 4; n++) {
      const session = await rawInitialize(full.url);
      const wrote = await inSession(session, 1, `echo kept-${n} > note.txt`);
      assert.equal(wrote.status, 200, wrote.body);
      sessions.push(session);
    }
    // Sequential ones, each arriving at a full table of idle sessions.
    for (let n = 0; n < 4; n++) {
      const ping = await sessionless({ jsonrpc: "2.0", id: 20 + n, method: "ping" });
      assert.equal(ping.status, 200, ping.body);
    }
    // Six at once, each running 3 s: four run together, the others are told to come back.
    const running = await Promise.all(Array.from({ length: 6 }, (_, n) => sessionless({ jsonrpc: "2.0", id: 30 + n, method: "tools/call", params: { name: "agent_tools_exec", arguments: { command: "sleep 3; echo done" } } })));
    const served = running.filter((r) => r.status === 200);
    const refused = running.filter((r) => r.status === 503);
    assert.equal(served.length + refused.length, 6, running.map((r) => `${r.status} ${r.body.slice(0, 200)}`).join("\n"));
    assert.ok(served.length >= 4 && refused.length >= 1, `four run together, the rest wait: ${running.map((r) => r.status).join(",")}`);
    for (const answer of served) assert.match(answer.body, /done/);
    for (const answer of refused) {
      assert.equal(answer.headers["retry-after"], "5");
      assert.match(answer.json().error?.message ?? "", /too many requests without Mcp-Session-Id at once: 4 may run together .*nothing was run\. Retry in a few seconds, or initialize/);
    }
    for (const [n, session] of sessions.entries()) {
      const read = await inSession(session, 2, "cat note.txt");
      assert.equal(read.status, 200, `session ${n} was closed: ${read.body}`);
      assert.match(read.body, new RegExp(`kept-${n}`), "the session's files are still there");
    }
  });
});

describe("a downstream question in a request without Mcp-Session-Id", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-sessionless-ask-"));
  const config = path.join(dir, "agent-tools.config.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { asker: { command: process.execPath, args: [LEGACY_ASKER] } } }));
  const asking = httpForSuite({ AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_PLUGINS_DIR: dir });

  it("is refused naming the missing session id and the fix, not as 'the client did not declare elicitation' (it did, at initialize)", async () => {
    const sse = { "Content-Type": "application/json", Accept: "text/event-stream, application/json" };
    const init = await raw(asking.url, { headers: sse, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: { elicitation: { form: {} } }, clientInfo: { name: "forgets-the-session-id", version: "0" } } }) });
    assert.equal(init.status, 200, init.body);
    const answer = await raw(asking.url, { headers: { ...sse, "Mcp-Protocol-Version": "2025-11-25" }, body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "agent_tools_asker_call", arguments: { toolName: "ask_user", arguments: { question: "Which colour?" } } } }) });
    assert.equal(answer.status, 200, answer.body);
    assert.equal(answer.headers["agent-tools-session"], "none");
    const data = answer.body.split("\n").find((line) => line.startsWith("data: {"))?.slice(6) ?? answer.body;
    const { error } = textJson<{ error: { message: string; hint: string } }>((JSON.parse(data) as { result: unknown }).result);
    assert.match(error.message, /cannot ask the agent's user: the request came without the Mcp-Session-Id header, so it was served in a one-request session that does not know what the client declared at initialize/);
    assert.doesNotMatch(error.message, /did not declare elicitation/);
    assert.match(error.hint, /Tell the user: the tool can ask when the client sends the Mcp-Session-Id its initialize answered on every request/);
  });
});
