import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { request, type ClientRequest } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { STDIO_FIXTURE } from "./fixtures/mcp/support.js";
import { httpClient, httpForSuite, MCP_HEADERS, raw, rawInitialize, sessionHeaders, type RawResponse } from "./http-helpers.js";
import { connectHttpV2, v2Client } from "./v2-helpers.js";
import { until } from "./wait.js";

// A 2025-era session's client that drops its POST mid-call (it gave up, its process died) abandons
// the call: the downstream request is cancelled as if the client had sent notifications/cancelled,
// the session does not stay "in flight" (so it can be evicted), and the call's id stays claimed
// until its handler has finished, so a new request reusing the id never gets the abandoned answer.

const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-client-left-"));
const callLog = path.join(dir, "calls.log");
writeFileSync(callLog, "");
const config = path.join(dir, "agent-tools.config.json");
writeFileSync(config, JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [STDIO_FIXTURE, "--call-log", callLog] } } }));

const logLines = (prefix: string): string[] =>
  readFileSync(callLog, "utf8")
    .split("\n")
    .filter((line) => line.startsWith(prefix));

const ACCEPT = { json: "application/json, text/event-stream", sse: "text/event-stream, application/json" } as const;

function callBody(id: number, toolName: string, args: Record<string, unknown> = {}): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "agent_tools_fx_call", arguments: { toolName, arguments: args, confirm: true } } });
}

/** A POST sent and left running: the test drops it with `destroy()`. */
function openPost(url: string, headers: Record<string, string>, body: string): ClientRequest {
  const target = new URL(url);
  const req = request({ host: target.hostname, port: target.port, path: target.pathname, method: "POST", headers });
  req.on("error", () => undefined);
  req.on("response", (res) => res.resume());
  req.end(body);
  return req;
}

describe("HTTP 2025-era session: a client that drops its POST", () => {
  const http = httpForSuite({ AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_PLUGINS_DIR: dir, AGENT_TOOLS_HTTP_MAX_SESSIONS: "2" });

  for (const mode of ["json", "sse"] as const) {
    it(`cancels the downstream request and frees the call's id (${mode} answers)`, async () => {
      const sid = await rawInitialize(http.url, { Accept: ACCEPT[mode] });
      const headers = { ...sessionHeaders(sid), Accept: ACCEPT[mode] };
      const [hangs, cancels] = [logLines("hang").length, logLines("cancelled").length];
      const dropped = openPost(http.url, headers, callBody(5, "hang"));
      await until(() => logLines("hang").length > hangs, "the downstream to start the hanging call");
      dropped.destroy();
      await until(() => logLines("cancelled").length > cancels, "the downstream to be told the call was cancelled");

      // The id is free again once the abandoned call has ended; the new call gets its own answer.
      let again: RawResponse | undefined;
      await until(async () => {
        again = await raw(http.url, { headers, body: callBody(5, "echo", { text: "second call" }) });
        return again.status !== 400;
      }, "id 5 to be free again");
      assert.equal(again?.status, 200, again?.body);
      assert.match(again?.body ?? "", /second call/);
    });
  }

  it("never hands an abandoned call's late answer to a new request reusing its id", async () => {
    const sid = await rawInitialize(http.url);
    const headers = sessionHeaders(sid);
    // A call the downstream answers after 1.5 s, dropped while it runs; then a slower one with the same id.
    const dropped = openPost(http.url, headers, callBody(9, "sleep", { ms: 1500, text: "first" }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    dropped.destroy();
    const answers: RawResponse[] = [];
    await until(async () => {
      const answer = await raw(http.url, { headers, body: callBody(9, "sleep", { ms: 2500, text: "second" }) });
      answers.push(answer);
      return answer.status !== 400;
    }, "id 9 to be free again");
    for (const answer of answers.slice(0, -1)) {
      // While the abandoned call winds down, its id is refused as documented, never answered from it.
      assert.match(answer.json().error?.message ?? "", /id 9 is already used by a request in flight/);
    }
    const last = answers.at(-1)!;
    assert.equal(last.status, 200, last.body);
    assert.match(last.body, /slept: second/);
    assert.doesNotMatch(last.body, /slept: first/);
  });

  it("does not keep sessions whose clients left a hanging call in flight: the session cap still takes a new one", async () => {
    // Both slots of the cap (2) hold a session whose only call was abandoned while it hung.
    for (let i = 0; i < 2; i++) {
      const sid = await rawInitialize(http.url);
      const cancels = logLines("cancelled").length;
      const hangs = logLines("hang").length;
      const dropped = openPost(http.url, sessionHeaders(sid), callBody(1, "hang"));
      await until(() => logLines("hang").length > hangs, "the downstream to start the hanging call");
      dropped.destroy();
      await until(() => logLines("cancelled").length > cancels, "the abandoned call to be cancelled");
    }
    // Without the cancellation both sessions would count a call in flight and initialize would answer 503.
    let opened: RawResponse | undefined;
    await until(async () => {
      opened = await raw(http.url, { headers: MCP_HEADERS, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } } }) });
      return opened.status !== 503;
    }, "initialize to find a session it may evict");
    assert.equal(opened?.status, 200, opened?.body);
  });

  for (const mode of ["json", "sse"] as const) {
    it(`answers and cancels a call still running when its session is deleted (${mode} answers)`, async () => {
      const sid = await rawInitialize(http.url, { Accept: ACCEPT[mode] });
      const headers = { ...sessionHeaders(sid), Accept: ACCEPT[mode] };
      const [hangs, cancels] = [logLines("hang").length, logLines("cancelled").length];
      const call = raw(http.url, { headers, body: callBody(4, "hang") });
      await until(() => logLines("hang").length > hangs, "the downstream to start the hanging call");
      const deleted = await raw(http.url, { method: "DELETE", headers: sessionHeaders(sid) });
      assert.equal(deleted.status, 200, deleted.body);
      // Without the fix the POST was never answered: the hanging call would hold it until the test's timeout.
      const answer = await call;
      assert.equal(answer.status, 200, answer.body);
      const data = mode === "sse" ? answer.body.split("\n").find((line) => line.startsWith("data: {"))?.slice(6) : answer.body;
      const message = JSON.parse(data ?? "{}") as { id?: unknown; error?: { code?: number; message?: string } };
      assert.equal(message.id, 4);
      assert.equal(message.error?.code, -32000);
      assert.match(message.error?.message ?? "", /session was deleted \(HTTP DELETE\) while this request was running: the call was cancelled.*whether it took effect is unknown/);
      await until(() => logLines("cancelled").length > cancels, "the downstream to be told the call was cancelled");
    });
  }
});

// A client that cancels a call with notifications/cancelled (what the SDK clients send on an
// AbortSignal, keeping their fetch open): no answer is sent for it, as the spec asks, but its POST
// ends once the cancelled handler has finished (202 with no body for a JSON answer, the stream
// ended for SSE), its id is free and the session has no request in flight.
describe("HTTP 2025-era session: a client that cancels a call with notifications/cancelled", () => {
  // One slot: a session whose cancelled call still counted in flight would turn the next initialize away with 503.
  const http = httpForSuite({ AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_PLUGINS_DIR: dir, AGENT_TOOLS_HTTP_MAX_SESSIONS: "1" });
  const cancelledLines = (): number => (http.stderr().match(/http POST \/mcp tools\/call tool=agent_tools_fx_call session=\S+ status=20[02] cancelled/g) ?? []).length;

  for (const mode of ["json", "sse"] as const) {
    it(`ends its POST without an answer, frees its id and leaves the session idle (${mode} answers)`, async () => {
      const sid = await rawInitialize(http.url, { Accept: ACCEPT[mode] });
      const headers = { ...sessionHeaders(sid), Accept: ACCEPT[mode] };
      const [hangs, cancels, logged] = [logLines("hang").length, logLines("cancelled").length, cancelledLines()];
      const call = raw(http.url, { headers, body: callBody(5, "hang") });
      await until(() => logLines("hang").length > hangs, "the downstream to start the hanging call");
      const cancel = await raw(http.url, { headers, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5, reason: "the user pressed Esc" } }) });
      assert.equal(cancel.status, 202, cancel.body);
      // Before, this POST stayed open until the client disconnected: the await ran into the test's timeout.
      const ended = await call;
      if (mode === "json") {
        assert.equal(ended.status, 202, ended.body);
        assert.equal(ended.body, "", "no answer for a cancelled request");
      } else {
        assert.equal(ended.status, 200);
        assert.match(String(ended.headers["content-type"]), /^text\/event-stream/);
        assert.doesNotMatch(ended.body, /data: /, "the stream ended without an event for the cancelled request");
      }
      await until(() => logLines("cancelled").length > cancels, "the downstream to be told the call was cancelled");
      // The id is free at once (it was refused -32600 as in flight) and answers its own call.
      const again = await raw(http.url, { headers, body: callBody(5, "echo", { text: "after the cancel" }) });
      assert.equal(again.status, 200, again.body);
      assert.match(again.body, /after the cancel/);
      // No request in flight: a new client takes the only slot (it was 503 'all 1 have a request in flight').
      const other = await raw(http.url, { headers: MCP_HEADERS, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } } }) });
      assert.equal(other.status, 200, other.body);
      await until(() => cancelledLines() > logged, "the request log to say the call was cancelled");
    });
  }

  const sdkClients = {
    v1: async (): Promise<{ call: (signal: AbortSignal, tool: string, args?: Record<string, unknown>) => Promise<unknown>; close: () => Promise<void> }> => {
      const { client } = await httpClient(http.url);
      return { call: (signal, tool, args = {}) => client.callTool({ name: "agent_tools_fx_call", arguments: { toolName: tool, arguments: args, confirm: true } }, undefined, { signal }), close: () => client.close() };
    },
    v2: async (): Promise<{ call: (signal: AbortSignal, tool: string, args?: Record<string, unknown>) => Promise<unknown>; close: () => Promise<void> }> => {
      const client = await connectHttpV2(v2Client("legacy"), http.url);
      return { call: (signal, tool, args = {}) => client.callTool({ name: "agent_tools_fx_call", arguments: { toolName: tool, arguments: args, confirm: true } }, { signal }), close: () => client.close() };
    },
  };
  for (const [which, connect] of Object.entries(sdkClients)) {
    it(`ends the POST the ${which} SDK client keeps open after cancelling on its AbortSignal; its next call is answered`, async () => {
      const client = await connect();
      try {
        const [hangs, logged] = [logLines("hang").length, cancelledLines()];
        const aborts = new AbortController();
        const call = client.call(aborts.signal, "hang");
        await until(() => logLines("hang").length > hangs, "the downstream to start the hanging call");
        aborts.abort();
        await assert.rejects(call, /abort/i);
        // The client is still connected: only the runtime can end that POST now.
        await until(() => cancelledLines() > logged, "the runtime to end the cancelled call's POST (its request log line)");
        const next = await client.call(new AbortController().signal, "echo", { text: "next call" });
        assert.match(JSON.stringify(next), /next call/);
      } finally {
        await client.close();
      }
    });
  }
});
