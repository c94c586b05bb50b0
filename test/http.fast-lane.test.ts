import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request, type OutgoingHttpHeaders } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { hashToken } from "../src/gateway/identities.js";
import { eventually, startHttp, type RunningHttp } from "./http-helpers.js";

/**
 * The HTTP facade's fast lane for 2026-07-28 requests (src/transports/http/modern-lane.ts) against
 * the SDK's `createMcpHandler` path, over real loopback HTTP: the same script of raw tools/call and
 * tools/list requests is sent to the built server twice, lane on and lane off
 * (AGENT_TOOLS_FAST_LANE=off), with and without a team identity and in compact mode, and every
 * answer must be the same — status, every header as sent (names, order, values; only Date and
 * the random instance id are left out) and the body byte for byte. The script covers what the
 * lane takes (successes, tool errors, validation errors with hints, unknown tools, writes and
 * their confirm step, help, search, discover, the shell with its workspace) and what it must leave
 * to the SDK (malformed calls, every standard-header disagreement, envelopes the SDK refuses or
 * that need its exchange: log levels, progress, a client that can be asked; a list with a cursor
 * or an Mcp-Name). A client that goes away mid-call gets nothing in either. The request log's
 * `lane` marks and the lane's own counts (logged at close) show it took what it should.
 */

const VERSION = "2026-07-28";
const TOKEN = "reader-token-0123456789abcdef";
const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-http-lane-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const config = path.join(dir, "agent-tools.json");
writeFileSync(config, JSON.stringify({ team: { identities: [{ name: "reader", tokenSha256: hashToken(TOKEN), plugins: ["notes"], write: false }] } }));

const envelope = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  "io.modelcontextprotocol/protocolVersion": VERSION,
  "io.modelcontextprotocol/clientInfo": { name: "lane-diff", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
  ...extra,
});

interface Step {
  what: string;
  headers?: OutgoingHttpHeaders;
  body: string;
  /** Abort the request after this many ms (the client goes away mid-call). */
  abortAfterMs?: number;
  /** Whether the lane takes it (else the SDK answers it). */
  lane: boolean;
}

/** A tools/call as a pinned SDK client sends it, with the given changes. */
function call(
  what: string,
  name: unknown,
  args: unknown,
  options: { id?: unknown; meta?: Record<string, unknown>; params?: Record<string, unknown>; headers?: OutgoingHttpHeaders; top?: Record<string, unknown>; abortAfterMs?: number } = {},
): Step {
  const params = { name, ...(args === undefined ? {} : { arguments: args }), _meta: options.meta ?? envelope(), ...options.params };
  return {
    what,
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": VERSION, "mcp-method": "tools/call", ...(typeof name === "string" ? { "mcp-name": name } : {}), ...options.headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: "id" in options ? options.id : 1, method: "tools/call", params, ...options.top }),
    ...(options.abortAfterMs ? { abortAfterMs: options.abortAfterMs } : {}),
    lane: true,
  };
}
/** A tools/list as a pinned SDK client sends it (bypassing its cache), with the given changes. */
function list(what: string, options: { meta?: Record<string, unknown>; params?: Record<string, unknown>; headers?: OutgoingHttpHeaders } = {}): Step {
  return {
    what,
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": VERSION, "mcp-method": "tools/list", ...options.headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: options.meta ?? envelope(), ...options.params } }),
    lane: true,
  };
}
/** A request the SDK answers (the lane leaves it, or it is the first with its envelope). */
const sdk = (step: Step): Step => ({ ...step, lane: false });

const NOTES_CALL = "agent_tools_notes_call";
const getNote = (id: string) => ({ toolName: "get_note", arguments: { id } });

/** The script: what the lane takes and what it must leave to the SDK, interleaved. */
const SCRIPT: Step[] = [
  sdk(call("first plain call (the SDK's; it teaches the envelope)", NOTES_CALL, getNote("n1"))),
  call("the same call again", NOTES_CALL, getNote("n1")),
  list("the tool list"),
  sdk(list("the tool list with a cursor", { params: { cursor: "c1" } })),
  sdk(list("the tool list with an Mcp-Name", { headers: { "mcp-name": "x" } })),
  sdk(list("the tool list with more _meta", { meta: envelope({ "example.com/trace": "t-2" }) })),
  sdk(list("the tool list of a new client (the SDK's first)", { meta: envelope({ "io.modelcontextprotocol/clientInfo": { name: "lister", version: "1" } }) })),
  list("the tool list of that client again", { meta: envelope({ "io.modelcontextprotocol/clientInfo": { name: "lister", version: "1" } }) }),
  call("a string id", NOTES_CALL, getNote("n2"), { id: "req-7" }),
  call("id 0", NOTES_CALL, getNote("n1"), { id: 0 }),
  call("a missing note", NOTES_CALL, getNote("n404")),
  call("arguments the downstream schema refuses (hints)", NOTES_CALL, { toolName: "get_note", arguments: { nope: 1 } }),
  call("an unknown downstream tool", NOTES_CALL, { toolName: "no_such_tool", arguments: {} }),
  call("a failing backend", NOTES_CALL, { toolName: "fail_always", arguments: {} }),
  call("an unknown facade tool", "agent_tools_nope", {}),
  call("no arguments at all", NOTES_CALL, undefined),
  call("a write without confirm (the confirm step)", NOTES_CALL, { toolName: "create_note", arguments: { title: "lane", body: "b" } }),
  call("the write confirmed", NOTES_CALL, { toolName: "create_note", arguments: { title: "lane", body: "b" }, confirm: true }),
  call("the list shows it", NOTES_CALL, { toolName: "list_notes", arguments: {} }),
  call("help", "agent_tools_help", {}),
  call("search", "agent_tools_search", { query: "read a note" }),
  call("discover", "agent_tools_notes_discover", { query: "note" }),
  call("the shell opens a workspace", "agent_tools_exec", { command: "echo lane-$((6*7))" }),
  call("rest of _meta passed through", NOTES_CALL, getNote("n1"), { meta: envelope({ "example.com/trace": "t-1" }) }),
  sdk(call("a new client's envelope (the SDK's first)", NOTES_CALL, getNote("n1"), { meta: envelope({ "io.modelcontextprotocol/clientInfo": { name: "other", version: "2" } }) })),
  call("a new client's envelope again", NOTES_CALL, getNote("n1"), { meta: envelope({ "io.modelcontextprotocol/clientInfo": { name: "other", version: "2" } }) }),
  // What the lane leaves to the SDK.
  sdk(call("arguments not an object", NOTES_CALL, ["x"])),
  sdk(call("a name that is not a string", 42, {})),
  sdk(call("an unknown params member", NOTES_CALL, getNote("n1"), { params: { task: { ttl: 5 } } })),
  sdk(call("an unknown top-level member", NOTES_CALL, getNote("n1"), { top: { extra: true } })),
  sdk(call("a null id", NOTES_CALL, getNote("n1"), { id: null })),
  sdk(call("no Mcp-Name", NOTES_CALL, getNote("n1"), { headers: { "mcp-name": undefined } })),
  sdk(call("another Mcp-Name", NOTES_CALL, getNote("n1"), { headers: { "mcp-name": "agent_tools_help" } })),
  sdk(call("Mcp-Name Base64-encoded", NOTES_CALL, getNote("n1"), { headers: { "mcp-name": `=?base64?${Buffer.from(NOTES_CALL).toString("base64")}?=` } })),
  sdk(call("no Mcp-Method", NOTES_CALL, getNote("n1"), { headers: { "mcp-method": undefined } })),
  sdk(call("Mcp-Method twice", NOTES_CALL, getNote("n1"), { headers: { "mcp-method": ["tools/call", "tools/call"] } })),
  sdk(call("another Mcp-Method", NOTES_CALL, getNote("n1"), { headers: { "mcp-method": "tools/list" } })),
  sdk(call("no MCP-Protocol-Version", NOTES_CALL, getNote("n1"), { headers: { "mcp-protocol-version": undefined } })),
  sdk(call("another MCP-Protocol-Version", NOTES_CALL, getNote("n1"), { headers: { "mcp-protocol-version": "2025-11-25" } })),
  sdk(call("a Content-Type with a charset", NOTES_CALL, getNote("n1"), { headers: { "content-type": "application/json; charset=utf-8" } })),
  sdk(call("a Content-Type that is not JSON", NOTES_CALL, getNote("n1"), { headers: { "content-type": "text/plain" } })),
  sdk(call("a log level (log messages ride the exchange)", NOTES_CALL, getNote("n1"), { meta: envelope({ "io.modelcontextprotocol/logLevel": "debug" }) })),
  sdk(call("a progress token", NOTES_CALL, getNote("n1"), { meta: envelope({ progressToken: "p-1" }) })),
  // Asked twice: the second time the SDK has seen the envelope, and the lane leaves it because the client can be asked.
  sdk(call("a client that can be asked", NOTES_CALL, { toolName: "create_note", arguments: { title: "asked" } }, { meta: envelope({ "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } } }) })),
  sdk(call("a client that can be asked, again", NOTES_CALL, getNote("n1"), { meta: envelope({ "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } } }) })),
  list("the tool list of a client that can be asked (worded for it)", { meta: envelope({ "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } } }) }),
  sdk(call("an envelope the SDK refuses", NOTES_CALL, getNote("n1"), { meta: envelope({ "io.modelcontextprotocol/clientInfo": 7 }) })),
  sdk(call("an envelope without capabilities", NOTES_CALL, getNote("n1"), { meta: { "io.modelcontextprotocol/protocolVersion": VERSION, "io.modelcontextprotocol/clientInfo": { name: "lane-diff", version: "0" } } })),
  sdk(call("another key of the protocol's namespace", NOTES_CALL, getNote("n1"), { meta: envelope({ "io.modelcontextprotocol/unknown": 1 }) })),
  sdk(call("a later revision", NOTES_CALL, getNote("n1"), { meta: envelope({ "io.modelcontextprotocol/protocolVersion": "2027-01-01" }), headers: { "mcp-protocol-version": "2027-01-01" } })),
  // A client that goes away mid-call: nothing is answered; the next call is served as usual.
  // 5 s, far past the abort at 150 ms, so a loaded machine cannot let the answer come first.
  call("a slow call abandoned", NOTES_CALL, { toolName: "slow_echo", arguments: { ms: 5000, text: "late" } }, { abortAfterMs: 150 }),
  call("after it", NOTES_CALL, getNote("n2")),
];

const isList = (step: Step): boolean => step.body.includes('"method":"tools/list"');
const LANE_CALLS = SCRIPT.filter((step) => step.lane && !isList(step)).length;
const LANE_LISTS = SCRIPT.filter((step) => step.lane && isList(step)).length;

interface Answer {
  status: number;
  headers: string[];
  body: string;
}

/** One raw request; every header as the server sent it, in order (Date and the random instance id left out). */
function send(url: string, step: Step, extraHeaders: OutgoingHttpHeaders): Promise<Answer | "aborted"> {
  const target = new URL(url);
  const headers: OutgoingHttpHeaders = { ...step.headers, ...extraHeaders };
  for (const key of Object.keys(headers)) if (headers[key] === undefined) delete headers[key];
  return new Promise((resolve, reject) => {
    const req = request({ host: target.hostname, port: target.port, path: target.pathname, method: "POST", headers }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => {
        const kept: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i]!;
          if (/^(date|agent-tools-instance)$/i.test(name)) continue;
          kept.push(`${name}: ${res.rawHeaders[i + 1]}`);
        }
        resolve({ status: res.statusCode ?? 0, headers: kept, body });
      });
    });
    req.on("error", (error) => (step.abortAfterMs ? resolve("aborted") : reject(error)));
    if (step.abortAfterMs) setTimeout(() => req.destroy(), step.abortAfterMs);
    req.end(step.body);
  });
}

/** A workspace handle is signed with the process's own random key: the same shape, not the same bytes. */
const normalize = (answer: Answer | "aborted"): Answer | "aborted" => (answer === "aborted" ? answer : { ...answer, body: answer.body.replace(/(\\"workspace\\":\\")[^\\"]+/g, "$1<handle>") });

async function play(server: RunningHttp, extraHeaders: OutgoingHttpHeaders = {}): Promise<Array<Answer | "aborted">> {
  const answers: Array<Answer | "aborted"> = [];
  for (const step of SCRIPT) {
    answers.push(normalize(await send(server.url, step, extraHeaders)));
    // The server logs the abandoned request when it sees the socket close: before the next one.
    if (step.abortAfterMs) await new Promise((resolve) => setTimeout(resolve, 300));
  }
  return answers;
}

function laneCounts(server: RunningHttp): { calls: number; handedOver: number; lists: number } | undefined {
  const match = /http fast lane: (\d+) tools\/call taken, (\d+) of them handed to the SDK; (\d+) tools\/list answered/.exec(server.stderr());
  return match ? { calls: Number(match[1]), handedOver: Number(match[2]), lists: Number(match[3]) } : undefined;
}

describe("HTTP fast lane: 2026-07-28 tools/call answered exactly as the SDK answers it", () => {
  const servers: Record<"lane" | "sdk" | "teamLane" | "teamSdk" | "compactLane" | "compactSdk", RunningHttp | undefined> = {
    lane: undefined,
    sdk: undefined,
    teamLane: undefined,
    teamSdk: undefined,
    compactLane: undefined,
    compactSdk: undefined,
  };
  before(async () => {
    // Semantic search off: its model loads at its own pace, and a search answer says how far it got.
    const env = { AGENT_TOOLS_LOG: "debug", AGENT_TOOLS_AUDIT: "off", AGENT_TOOLS_SEMANTIC: "off" };
    const off = { ...env, AGENT_TOOLS_FAST_LANE: "off" };
    const compact = { AGENT_TOOLS_FACADE: "compact" };
    [servers.lane, servers.sdk, servers.teamLane, servers.teamSdk, servers.compactLane, servers.compactSdk] = await Promise.all([
      startHttp(env),
      startHttp(off),
      startHttp(env, ["--config", config]),
      startHttp(off, ["--config", config]),
      startHttp({ ...env, ...compact }),
      startHttp({ ...off, ...compact }),
    ]);
  });
  after(async () => {
    await Promise.all(Object.values(servers).map((s) => s?.stop()));
  });

  for (const [label, lane, sdk, headers] of [
    ["without an identity", "lane", "sdk", {}],
    ["with a team identity (its own plugins, read-only)", "teamLane", "teamSdk", { authorization: `Bearer ${TOKEN}` }],
    // The compact facade names other tools (the script's become unknown-tool answers) and keeps its list.
    ["in compact facade mode", "compactLane", "compactSdk", {}],
  ] as const) {
    it(`the same script gets the same answers, lane on and off, ${label}`, async () => {
      const viaLane = await play(servers[lane]!, headers);
      const viaSdk = await play(servers[sdk]!, headers);
      for (let i = 0; i < SCRIPT.length; i++) assert.deepEqual(viaLane[i], viaSdk[i], `step ${i} "${SCRIPT[i]!.what}" differs`);
      // The script really exercised something: plain answers, tool errors and the SDK's own rejections.
      const statuses = viaSdk.map((a) => (a === "aborted" ? "aborted" : a.status));
      assert.ok(statuses.includes(200) && statuses.includes(400) && statuses.includes("aborted"), `statuses: ${statuses.join(",")}`);
      // Which requests the lane answered: the request log marks them, one line per request, in order.
      const marks = (server: RunningHttp): boolean[] =>
        server
          .stderr()
          .split("\n")
          .filter((line) => /http POST \/mcp tools\/(call|list) /.test(line))
          .map((line) => / lane$/.test(line));
      // A line is written when its response closes, a moment after the client has the answer: wait for all of them.
      await eventually(() => marks(servers[lane]!).length >= SCRIPT.length, "a request log line for every step");
      assert.deepEqual(marks(servers[lane]!), SCRIPT.map((step) => step.lane), servers[lane]!.stderr().slice(-3000));
      assert.ok(!marks(servers[sdk]!).includes(true));
      const first = viaSdk[0] as Answer;
      assert.match(first.body, label.startsWith("without") ? /Shopping/ : /"result"/);
      assert.match((viaSdk[2] as Answer).body, /"tools":\[.*"ttlMs":3600000,"cacheScope":"(public|private)"/);
      assert.match(first.headers.join("\n"), /^content-type: application\/json\ncontent-length: \d+/);
    });
  }

  it("the lane took the plain calls and lists (and handed none over), the SDK path none", async () => {
    await Promise.all(Object.values(servers).map((s) => s?.stop()));
    for (const name of ["lane", "teamLane", "compactLane"] as const) {
      await eventually(() => laneCounts(servers[name]!) !== undefined, `${name}'s lane counts`);
      assert.deepEqual(laneCounts(servers[name]!), { calls: LANE_CALLS, handedOver: 0, lists: LANE_LISTS }, servers[name]!.stderr().slice(-2000));
    }
    for (const name of ["sdk", "teamSdk", "compactSdk"] as const) assert.equal(laneCounts(servers[name]!), undefined);
  });
});
