import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { hashToken } from "../src/gateway/identities.js";
import { callJson, type Payload } from "./helpers.js";
import { connectHttpPreferringSse, eventually, httpClient, MCP_HEADERS, INITIALIZE, raw, rawInitialize, sessionHeaders, startHttp, type RunningHttp } from "./http-helpers.js";
import { callV2, connectHttpV2, v2Client } from "./v2-helpers.js";
import { until } from "./wait.js";

/**
 * One gateway instance (memory state) with three identities from the config, driven over real
 * HTTP by the SDK client: policy on every path, the audit file, /metrics parsed as Prometheus text,
 * rate limits, health, protected resource metadata, JWTs from a local JWKS, and draining.
 */

const TOKENS = { reader: "reader-token-0123456789abcdef", writer: "writer-token-0123456789abcdef", limited: "limited-token-0123456789abcdef" };
const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });
/** A fetch that sends the token on every request (the modern client's transport takes a fetch, not headers). */
const withBearer =
  (token: string) =>
  (url: string | URL, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers);
    headers.set("Authorization", `Bearer ${token}`);
    return fetch(url, { ...init, headers });
  };

interface Sample {
  name: string;
  type: string;
  metrics: Array<{ value?: string; labels?: Record<string, string>; buckets?: Record<string, string>; count?: string }>;
}

function metricValue(families: Sample[], name: string, labels: Record<string, string>): number {
  const family = families.find((f) => f.name === name);
  if (!family) return 0;
  const sample = family.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return Number(sample?.value ?? sample?.count ?? 0);
}

async function writeConfig(dir: string, extra: Record<string, unknown> = {}): Promise<string> {
  const file = path.join(dir, `agent-tools.${Math.random().toString(36).slice(2)}.json`);
  await writeFile(
    file,
    JSON.stringify({
      team: {
        identities: [
          { name: "reader", tokenSha256: hashToken(TOKENS.reader), plugins: ["notes"], write: false },
          { name: "writer", tokenSha256: hashToken(TOKENS.writer), plugins: ["*"], write: true },
          { name: "limited", tokenSha256: hashToken(TOKENS.limited), plugins: ["notes"], write: true, ratePerMinute: 5 },
        ],
        ...extra,
      },
    }),
  );
  return file;
}

describe("team gateway: identities and policy", () => {
  let dir: string;
  let server: RunningHttp;
  let compact: RunningHttp;
  let auditFile: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "agent-tools-team-"));
    auditFile = path.join(dir, "audit.jsonl");
    const config = await writeConfig(dir);
    [server, compact] = await Promise.all([
      startHttp({ AGENT_TOOLS_AUDIT: auditFile }, ["--config", config]),
      startHttp({ AGENT_TOOLS_AUDIT: "off", AGENT_TOOLS_FACADE: "compact" }, ["--config", config]),
    ]);
  });
  after(async () => {
    await Promise.all([server?.stop(), compact?.stop()]);
    await rm(dir, { recursive: true, force: true });
  });

  it("a request without a known token gets 401 with the protected resource metadata's challenge", async () => {
    const none = await raw(server.url, { headers: MCP_HEADERS, body: INITIALIZE });
    assert.equal(none.status, 401);
    // No team.resource in this config: the challenge names the metadata at the request's own Host, where it is served.
    const metadataUrl = server.url.replace(/\/mcp$/, "/.well-known/oauth-protected-resource");
    assert.equal(String(none.headers["www-authenticate"]), `Bearer realm="agent-tools-runtime", resource_metadata="${metadataUrl}"`);
    const wrong = await raw(server.url, { headers: { ...MCP_HEADERS, ...bearer("not-a-known-token-at-all") }, body: INITIALIZE });
    assert.equal(wrong.status, 401);
    assert.match(wrong.json().error?.message ?? "", /not one this gateway knows/);
    assert.match(String(wrong.headers["www-authenticate"]), new RegExp(`resource_metadata="${metadataUrl.replace(/[.[\]]/g, "\\$&")}", error="invalid_token"`));
    const metadata = await raw(metadataUrl, { method: "GET" });
    assert.equal(metadata.status, 200);
    assert.match(String((JSON.parse(metadata.body) as { resource: string }).resource), /\/mcp$/);
  });

  it("a read-only identity's write answers FORBIDDEN on the typed facade, and names what it may do", async () => {
    const { client } = await httpClient(server.url, bearer(TOKENS.reader));
    try {
      const read = await callJson(client, "agent_tools_notes_call", { toolName: "list_notes", arguments: {} });
      assert.equal(read.payload.ok, true);
      const write = await callJson(client, "agent_tools_notes_call", { toolName: "create_note", arguments: { title: "nope" }, confirm: true });
      assert.equal(write.isError, true);
      assert.equal(write.payload.error?.code, "FORBIDDEN");
      assert.match(write.payload.error?.message ?? "", /identity 'reader' may use the plugins 'notes', read-only/);
      assert.deepEqual(write.payload.error?.details?.allowed, { plugins: ["notes"], write: false });
    } finally {
      await client.close();
    }
  });

  it("an identity without plugin X does not see X in tools/list, help or search", async () => {
    const { client } = await httpClient(server.url, bearer(TOKENS.reader));
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(tools.includes("agent_tools_notes_call"));
      assert.ok(!tools.some((t) => t.includes("tracker")), `tracker hidden: ${tools.join(", ")}`);
      const unknown = await callJson(client, "agent_tools_tracker_call", { toolName: "assign-ticket", arguments: {} });
      assert.equal(unknown.payload.error?.code, "UNKNOWN_FACADE_TOOL");
      const suggested = unknown.payload.error?.details?.tools as string[];
      assert.ok(suggested.length > 0 && suggested.every((t) => tools.includes(t)), `only this identity's tools are suggested: ${suggested.join(", ")}`);
      const help = await callJson(client, "agent_tools_help", {});
      assert.deepEqual((help.payload.plugins as Array<{ prefix: string }>).map((p) => p.prefix), ["notes"]);
      const search = await callJson(client, "agent_tools_search", { query: "assign ticket to someone" });
      const text = JSON.stringify(search.payload);
      assert.ok(!text.includes("tracker"), `no tracker in ${text}`);
      // The instructions are this identity's too: notes only, not even vault's "not configured" line.
      const instructions = client.getInstructions() ?? "";
      assert.match(instructions, /^- notes: /m);
      assert.doesNotMatch(instructions, /tracker|vault|Not configured/);
      // The writer sees the tracker through the same search, and the instructions over HTTP as over stdio.
      const { client: writer } = await httpClient(server.url, bearer(TOKENS.writer));
      const seen = await callJson(writer, "agent_tools_search", { query: "assign ticket to someone" });
      assert.ok(JSON.stringify(seen.payload).includes("tracker"));
      const all = writer.getInstructions() ?? "";
      for (const prefix of ["notes", "tracker"]) assert.match(all, new RegExp(`^- ${prefix}: `, "m"));
      assert.match(all, /^Not configured \(agent_tools_help says what each needs\): vault\.$/m);
      await writer.close();
    } finally {
      await client.close();
    }
  });

  it("agent_tools_exec plugin commands hold the same policy", async () => {
    const { client } = await httpClient(server.url, bearer(TOKENS.reader));
    try {
      const write = await callJson(client, "agent_tools_exec", { command: `notes call create_note '{"title":"x"}' --confirm` });
      assert.match(JSON.stringify(write.payload), /FORBIDDEN/);
      const other = await callJson(client, "agent_tools_exec", { command: "tracker call listTickets" });
      assert.match(JSON.stringify(other.payload), /FORBIDDEN|not found|unknown/i);
      const list = await callJson(client, "agent_tools_exec", { command: "list" });
      assert.ok(!JSON.stringify(list.payload).includes('"plugin":"tracker"'));
    } finally {
      await client.close();
    }
  });

  it("agent_tools_exec's sandbox has commands only for the identity's plugins: another one's name is an unknown command, in a session and a workspace alike", async () => {
    const { client: legacy } = await httpClient(server.url, bearer(TOKENS.reader));
    const modern = await connectHttpV2(v2Client("pin"), server.url, withBearer(TOKENS.reader));
    const { client: writer } = await httpClient(server.url, bearer(TOKENS.writer));
    try {
      // A legacy session's shell, a new workspace and the same workspace again (its handle).
      let workspace: string | undefined;
      const shells: Array<[string, (command: string) => Promise<Payload>]> = [
        ["legacy session", async (command) => (await callJson(legacy, "agent_tools_exec", { command })).payload],
        ["new workspace", async (command) => ((await callV2(modern, "agent_tools_exec", { command })).payload)],
        [
          "workspace by its handle",
          async (command) => {
            workspace ??= String((await callV2(modern, "agent_tools_exec", { command: "true" })).payload.workspace);
            return (await callV2(modern, "agent_tools_exec", { command, workspace })).payload;
          },
        ],
      ];
      for (const [where, exec] of shells) {
        const bin = String((await exec("ls /usr/bin")).stdout).split("\n");
        assert.ok(bin.includes("notes"), `${where}: notes is a command`);
        for (const hidden of ["tracker", "vault"]) assert.ok(!bin.includes(hidden), `${where}: no ${hidden} in /usr/bin`);
        assert.doesNotMatch(String((await exec("help")).stdout), /tracker|vault/, `${where}: help`);
        // The hidden plugin's name answers word for word as a name that never was a plugin.
        const hidden = await exec("tracker discover tickets");
        const unknown = await exec("nosuchplugin discover tickets");
        assert.equal(hidden.exitCode, 127, `${where}: ${JSON.stringify(hidden)}`);
        assert.equal(String(hidden.stderr).replaceAll("tracker", "WORD"), String(unknown.stderr).replaceAll("nosuchplugin", "WORD"), where);
        assert.match(String(hidden.stderr), /the plugin commands are: notes \(/, where);
        // A command named as its plugin carries no separate `plugin` field.
        const list = (await exec("list")).result as { commands: Array<{ name: string; plugin?: string }> };
        assert.deepEqual(list.commands.map((c) => c.plugin ?? c.name), ["notes"], where);
        // status names neither the hidden plugin's command nor the unconfigured vault it may not use.
        assert.doesNotMatch(JSON.stringify((await exec("status")).result), /tracker|vault/, where);
      }
      // An identity with every plugin has every command.
      const all = String((await callJson(writer, "agent_tools_exec", { command: "ls /usr/bin" })).payload.stdout).split("\n");
      for (const prefix of ["notes", "tracker", "vault"]) assert.ok(all.includes(prefix), `writer: ${prefix}`);
    } finally {
      await Promise.all([legacy.close(), modern.close(), writer.close()]);
    }
  });

  it("compact mode: agent_tools_call holds the plugin and write policy", async () => {
    const { client } = await httpClient(compact.url, bearer(TOKENS.reader));
    try {
      const write = await callJson(client, "agent_tools_call", { plugin: "notes", toolName: "create_note", arguments: { title: "x" }, confirm: true });
      assert.equal(write.payload.error?.code, "FORBIDDEN");
      // A plugin the identity may not use answers word for word as a name that never was a plugin
      // (UNKNOWN_PLUGIN, listing only its own plugins): FORBIDDEN would confirm that 'tracker'
      // exists, which the typed facade and the text layer never do. The write above stays
      // FORBIDDEN: 'notes' is a plugin it may use, so that answer hides nothing.
      const hidden = await callJson(client, "agent_tools_call", { plugin: "tracker", toolName: "listTickets", arguments: {} });
      const unknown = await callJson(client, "agent_tools_call", { plugin: "nosuchplugin", toolName: "listTickets", arguments: {} });
      assert.equal(hidden.payload.error?.code, "UNKNOWN_PLUGIN", JSON.stringify(hidden.payload));
      assert.equal(JSON.stringify(hidden.payload).replaceAll("tracker", "WORD"), JSON.stringify(unknown.payload).replaceAll("nosuchplugin", "WORD"));
      assert.deepEqual(hidden.payload.error?.details, { plugins: ["notes"] });
      // A case difference is no way round it: 'Tracker' is not read as the hidden 'tracker'.
      const folded = await callJson(client, "agent_tools_call", { plugin: "Tracker", toolName: "listTickets", arguments: {} });
      assert.equal(folded.payload.error?.code, "UNKNOWN_PLUGIN");
      assert.doesNotMatch(JSON.stringify(folded.payload), /'tracker'/);
      // Nor is a tool name that says the hidden plugin (`plugin` left out): it is not read as
      // 'tracker' and not led there; the plugins named are its own.
      const fromName = await callJson(client, "agent_tools_call", { toolName: "tracker_listTickets", arguments: {} });
      assert.equal(fromName.payload.error?.code, "UNKNOWN_PLUGIN", JSON.stringify(fromName.payload));
      assert.deepEqual(fromName.payload.error?.details, { plugins: ["notes"] });
      const bare = await callJson(client, "agent_tools_call", { toolName: "listTickets", arguments: {} });
      assert.deepEqual(bare.payload.error?.details, { plugins: ["notes"] });
    } finally {
      await client.close();
    }
  });

  it("compact mode: invented plugin names cannot grow /metrics without end (16 kept as they are, the rest '(other)')", async () => {
    const { client } = await httpClient(compact.url, bearer(TOKENS.writer));
    try {
      for (let i = 0; i < 40; i++) {
        const answer = await callJson(client, "agent_tools_call", { plugin: `invented${i}`, toolName: "x", arguments: {} });
        assert.equal(answer.payload.error?.code, "UNKNOWN_PLUGIN");
      }
      await callJson(client, "agent_tools_call", { plugin: "notes", toolName: "list_notes", arguments: {} });
      const text = (await raw(compact.url.replace(/\/mcp$/, "/metrics"), { method: "GET", headers: bearer(TOKENS.writer) })).body;
      const families = parsePrometheusTextFormat(text) as Sample[];
      const labels = new Set(families.find((f) => f.name === "agent_tools_calls_total")!.metrics.map((m) => m.labels?.plugin));
      // Other tests of this server named unknown plugins too ('nosuchplugin', 'Tracker', and '' for
      // calls that left `plugin` out): 16 slots in all.
      const others = [...labels].filter((name): name is string => name !== undefined && !["notes", "tracker", "*", "(other)"].includes(name));
      assert.equal(others.length, 16, `names kept apart: ${others.join(", ")}`);
      const invented = others.filter((name) => name.startsWith("invented"));
      assert.ok(invented.length >= 13, `names kept apart: ${others.join(", ")}`);
      assert.equal(metricValue(families, "agent_tools_calls_total", { plugin: "(other)", kind: "call", outcome: "UNKNOWN_PLUGIN" }), 40 - invented.length);
      // The server's own plugins keep their label after the others are full.
      assert.equal(metricValue(families, "agent_tools_calls_total", { plugin: "notes", kind: "call", outcome: "ok" }), 1);
    } finally {
      await client.close();
    }
  });

  it("a session stays with its identity: another token on its id gets 403", async () => {
    const id = await rawInitialize(server.url, bearer(TOKENS.writer));
    const hijack = await raw(server.url, {
      headers: sessionHeaders(id, bearer(TOKENS.reader)),
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    assert.equal(hijack.status, 403);
    // The refusal answers the request it refuses: its id, so the client matches it to its call.
    assert.equal(hijack.json().id, 2);
    assert.match(hijack.json().error?.message ?? "", /opened by another identity/);
  });

  it("a write is in the audit file once, with identity, session, tool, outcome, duration and redacted arguments", async () => {
    const { client } = await httpClient(server.url, bearer(TOKENS.writer));
    try {
      const made = await callJson(client, "agent_tools_notes_call", { toolName: "create_note", arguments: { title: "secret plans", body: "do not leak" }, confirm: true });
      assert.equal(made.payload.ok, true);
      const lines = (await readFile(auditFile, "utf8")).trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
      const mine = lines.filter((l) => l.identity === "writer" && l.tool === "create_note" && l.outcome === "ok");
      assert.equal(mine.length, 1);
      const entry = mine[0]!;
      assert.equal(entry.plugin, "notes");
      assert.equal(typeof entry.session, "string");
      assert.equal(typeof entry.durationMs, "number");
      assert.deepEqual(entry.arguments, { title: "<string 12>", body: "<string 11>" });
      assert.ok(!JSON.stringify(lines).includes("secret plans"));
      // Reads are not audited; the refused write of the reader is (outcome FORBIDDEN).
      assert.ok(!lines.some((l) => l.tool === "list_notes"));
      assert.ok(lines.some((l) => l.identity === "reader" && l.outcome === "FORBIDDEN"));
      // A 2026-07-28 caller's session is named uniquely (not modern-0 on every instance and restart).
      const modern = await connectHttpV2(v2Client("pin"), server.url, withBearer(TOKENS.writer));
      const modernWrite = await callV2(modern, "agent_tools_notes_call", { toolName: "create_note", arguments: { title: "m", body: "b" }, confirm: true });
      assert.equal(modernWrite.payload.ok, true, JSON.stringify(modernWrite.payload));
      await modern.close();
      const all = (await readFile(auditFile, "utf8")).trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
      const modernEntry = all.find((l) => l.identity === "writer" && (l.arguments as { title?: string } | undefined)?.title === "<string 1>");
      assert.match(String(modernEntry?.session), /^modern-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, JSON.stringify(modernEntry));
    } finally {
      await client.close();
    }
  });

  it("per-identity rate limit: 429 with Retry-After past the budget", async () => {
    const statuses: number[] = [];
    const refusals: Array<{ id: unknown; message: string }> = [];
    let retryAfter: string | undefined;
    // The last one is a batch: no one request's id to answer with.
    const batch = JSON.stringify([JSON.parse(INITIALIZE)]);
    for (let i = 0; i < 7; i++) {
      const res = await raw(server.url, { headers: { ...MCP_HEADERS, ...bearer(TOKENS.limited) }, body: i === 6 ? batch : INITIALIZE });
      statuses.push(res.status);
      if (res.status === 429) {
        retryAfter = String(res.headers["retry-after"]);
        const answer = res.json();
        refusals.push({ id: answer.id, message: answer.error?.message ?? "" });
      }
    }
    assert.deepEqual(statuses.slice(0, 5), [200, 200, 200, 200, 200]);
    assert.equal(statuses[5], 429);
    const seconds = Number(retryAfter);
    assert.ok(seconds >= 1 && seconds <= 60, `Retry-After ${retryAfter}`);
    // The 429 answers the request's id (INITIALIZE's is 1), and says how to get past it.
    assert.equal(refusals[0]?.id, 1);
    assert.match(refusals[0]?.message ?? "", /identity 'limited' sent more than 5 requests this minute \(its ratePerMinute\); nothing was run\. Send it again after \d+ s \(Retry-After\), or ask the gateway's operator to raise this identity's ratePerMinute/);
    assert.equal(refusals[1]?.id, null);
  });
});

describe("team gateway: /metrics, health, JWT, drain", () => {
  let dir: string;
  let jwks: Server;
  let issuer: string;
  let sign: (claims: Record<string, unknown>) => Promise<string>;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "agent-tools-team-"));
    const { publicKey, privateKey } = await generateKeyPair("RS256");
    const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "RS256", use: "sig" };
    jwks = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
    issuer = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}`;
    sign = (claims) => new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: "k1" }).setIssuer(issuer).setAudience("agent-tools").setIssuedAt().setExpirationTime("5m").sign(privateKey);
  });
  after(async () => {
    await new Promise<void>((resolve) => jwks.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  it("/metrics parses as Prometheus text and its counters match the calls made", async () => {
    const config = await writeConfig(dir);
    const server = await startHttp({ AGENT_TOOLS_AUDIT: "off" }, ["--config", config]);
    try {
      const { client } = await httpClient(server.url, bearer(TOKENS.writer));
      for (let i = 0; i < 3; i++) await callJson(client, "agent_tools_notes_call", { toolName: "list_notes", arguments: {} });
      await callJson(client, "agent_tools_notes_call", { toolName: "create_note", arguments: { title: "m", body: "b" }, confirm: true });
      await callJson(client, "agent_tools_notes_call", { toolName: "create_note", arguments: { title: "m", body: "b" } }); // CONFIRM_REQUIRED
      await callJson(client, "agent_tools_notes_discover", { query: "note" });
      await callJson(client, "agent_tools_search", { query: "ticket" });
      // The figures name every plugin and identity: an identity restricted to some plugins may not read them.
      const restricted = await raw(server.url.replace(/\/mcp$/, "/metrics"), { method: "GET", headers: bearer(TOKENS.reader) });
      assert.equal(restricted.status, 403);
      assert.match(restricted.json().error?.message ?? "", /identity 'reader' may not read \/metrics/);
      assert.doesNotMatch(restricted.body, /agent_tools_calls_total/);
      assert.equal((await raw(server.url.replace(/\/mcp$/, "/metrics"), { method: "GET" })).status, 401);
      const text = (await raw(server.url.replace(/\/mcp$/, "/metrics"), { method: "GET", headers: bearer(TOKENS.writer) })).body;
      const families = parsePrometheusTextFormat(text) as Sample[];
      assert.equal(metricValue(families, "agent_tools_calls_total", { plugin: "notes", kind: "call", outcome: "ok" }), 4);
      assert.equal(metricValue(families, "agent_tools_calls_total", { plugin: "notes", kind: "call", outcome: "CONFIRM_REQUIRED" }), 1);
      assert.equal(metricValue(families, "agent_tools_calls_total", { plugin: "notes", kind: "discover", outcome: "ok" }), 1);
      assert.equal(metricValue(families, "agent_tools_calls_total", { plugin: "*", kind: "search", outcome: "ok" }), 1);
      assert.equal(metricValue(families, "agent_tools_mutating_calls_total", { plugin: "notes", outcome: "ok" }), 1);
      // parse-prometheus-text-format drops the labels of histogram samples, so the count line is read as text.
      const count = /^agent_tools_call_duration_seconds_count\{[^}]*plugin="notes",kind="call"[^}]*\} (\d+)$/m.exec(text);
      assert.equal(Number(count?.[1]), 5, "the latency histogram observed the 5 calls");
      assert.ok(families.some((f) => f.name === "agent_tools_call_duration_seconds" && f.type === "HISTOGRAM"));
      assert.equal(metricValue(families, "agent_tools_sessions_open", {}), 1);
      assert.ok(metricValue(families, "agent_tools_catalog_cache_hits", {}) >= 4, "listings after the first come from the cache");
      await client.close();
      const health = await raw(server.url.replace(/\/mcp$/, "/healthz"), { method: "GET" });
      const ready = await raw(server.url.replace(/\/mcp$/, "/readyz"), { method: "GET" });
      assert.deepEqual([health.status, ready.status], [200, 200]);
    } finally {
      await server.stop();
    }
  });

  it("team.metrics: false hides /metrics on the HTTP port; a port of its own serves it there only", async () => {
    const [off, ownPort] = await Promise.all([writeConfig(dir, { metrics: false }), writeConfig(dir, { metrics: { port: 0 } })]);
    const [hidden, apart] = await Promise.all([startHttp({ AGENT_TOOLS_AUDIT: "off" }, ["--config", off]), startHttp({ AGENT_TOOLS_AUDIT: "off" }, ["--config", ownPort])]);
    try {
      const metricsOf = (server: RunningHttp): Promise<Awaited<ReturnType<typeof raw>>> => raw(server.url.replace(/\/mcp$/, "/metrics"), { method: "GET", headers: bearer(TOKENS.writer) });
      const offAnswer = await metricsOf(hidden);
      assert.equal(offAnswer.status, 404);
      assert.match(offAnswer.body, /team\.metrics turns metrics off/);
      assert.doesNotMatch(offAnswer.body, /agent_tools_/, "no metric leaks into the refusal");
      const mainAnswer = await metricsOf(apart);
      assert.equal(mainAnswer.status, 404);
      assert.match(mainAnswer.body, /on a port of their own/);
      // The instance logs where its own metrics port listens.
      await eventually(() => /, metrics http:\/\/\S+\/metrics\]/.test(apart.stderr()), "the metrics port in the log");
      const url = /, metrics (http:\/\/\S+\/metrics)\]/.exec(apart.stderr())![1]!;
      // The own port asks the token too (any local process can reach it): none is 401, a writer's is read.
      assert.equal((await raw(url, { method: "GET" })).status, 401);
      const scraped = await raw(url, { method: "GET", headers: bearer(TOKENS.writer) });
      assert.equal(scraped.status, 200);
      assert.ok((parsePrometheusTextFormat(scraped.body) as Sample[]).some((f) => f.name === "agent_tools_calls_total"), "the own port serves the metrics");
      // Health stays on the HTTP port whatever team.metrics says: the balancer checks it there.
      assert.equal((await raw(hidden.url.replace(/\/mcp$/, "/readyz"), { method: "GET" })).status, 200);
    } finally {
      await Promise.all([hidden.stop(), apart.stop()]);
    }
  });

  it("an idle keep-alive connection outlives Node's 5 s default, so a balancer reusing it never races the instance closing it", async () => {
    const config = await writeConfig(dir);
    const server = await startHttp({ AGENT_TOOLS_AUDIT: "off" }, ["--config", config]);
    const socket = connect(Number(new URL(server.url).port), "127.0.0.1");
    try {
      let received = "";
      let closedAt = 0;
      socket.on("data", (chunk: Buffer) => (received += chunk.toString()));
      socket.on("end", () => (closedAt = Date.now()));
      await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
      const healthz = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
      socket.write(healthz);
      await eventually(() => received.includes("\r\n\r\n{"), "the first answer", 30_000);
      assert.match(received, /keep-alive: timeout=130/i, "the instance announces how long it keeps the connection");
      await new Promise((resolve) => setTimeout(resolve, 6500));
      assert.equal(closedAt, 0, "the instance kept the idle connection past 5 s");
      socket.write(healthz);
      await eventually(() => received.split("HTTP/1.1 200").length === 3, "the second answer on the same connection", 30_000);
    } finally {
      socket.destroy();
      await server.stop();
    }
  });

  it("a JWT from the configured issuer (JWKS) is an identity: its plugins claim and write scope hold", async () => {
    const config = await writeConfig(dir, { jwt: { issuer, audience: "agent-tools", jwksUrl: `${issuer}/jwks`, pluginsClaim: "plugins" } });
    const server = await startHttp({ AGENT_TOOLS_AUDIT: "off" }, ["--config", config]);
    try {
      const token = await sign({ sub: "carol", scope: "agent-tools:write", plugins: ["tracker"] });
      const { client } = await httpClient(server.url, bearer(token));
      const assigned = await callJson(client, "agent_tools_tracker_call", { toolName: "assign-ticket", arguments: { id: "T-1", assignee: "carol" }, confirm: true });
      assert.equal(assigned.payload.ok, true, JSON.stringify(assigned.payload));
      const notes = (await client.listTools()).tools.filter((t) => t.name.includes("notes"));
      assert.deepEqual(notes, []);
      await client.close();
      const readOnly = await sign({ sub: "dave", plugins: "tracker" });
      const { client: dave } = await httpClient(server.url, bearer(readOnly));
      const refused = await callJson(dave, "agent_tools_tracker_call", { toolName: "assign-ticket", arguments: { id: "T-1", assignee: "dave" }, confirm: true });
      assert.equal(refused.payload.error?.code, "FORBIDDEN");
      assert.match(refused.payload.error?.message ?? "", /identity 'jwt:dave'/);
      await dave.close();
      const forged = await raw(server.url, { headers: { ...MCP_HEADERS, ...bearer(`${token.slice(0, -4)}AAAA`) }, body: INITIALIZE });
      assert.equal(forged.status, 401);
    } finally {
      await server.stop();
    }
  });

  it("a narrower JWT of the same subject keeps its own rights on modern requests: no write, no wider plugin, not the wider token's workspace", async () => {
    const config = await writeConfig(dir, { jwt: { issuer, audience: "agent-tools", jwksUrl: `${issuer}/jwks`, pluginsClaim: "plugins" } });
    const server = await startHttp({ AGENT_TOOLS_AUDIT: "off" }, ["--config", config]);
    const strong = await connectHttpV2(v2Client("pin"), server.url, withBearer(await sign({ sub: "erin", scope: "agent-tools:write", plugins: ["*"] })));
    const weak = await connectHttpV2(v2Client("pin"), server.url, withBearer(await sign({ sub: "erin", plugins: ["notes"] })));
    try {
      // The wider token first: its session and workspace exist before the narrower one calls.
      const created = await callV2(strong, "agent_tools_notes_call", { toolName: "create_note", arguments: { title: "strong", body: "b" }, confirm: true });
      assert.equal(created.payload.ok, true, JSON.stringify(created.payload));
      const workspace = String((await callV2(strong, "agent_tools_exec", { command: "echo kept > f.txt" })).payload.workspace);
      const refused = await callV2(weak, "agent_tools_notes_call", { toolName: "create_note", arguments: { title: "weak", body: "b" }, confirm: true });
      assert.equal(refused.payload.error?.code, "FORBIDDEN", JSON.stringify(refused.payload));
      assert.match(refused.payload.error?.message ?? "", /identity 'jwt:erin' may use the plugins 'notes', read-only/);
      const tracker = await callV2(weak, "agent_tools_tracker_call", { toolName: "listTickets", arguments: {} });
      assert.equal(tracker.payload.error?.code, "UNKNOWN_FACADE_TOOL", JSON.stringify(tracker.payload));
      const borrowed = await callV2(weak, "agent_tools_exec", { command: "notes call create_note --title weak --body b --confirm; tracker call listTickets", workspace });
      assert.equal(borrowed.payload.error?.code, "WORKSPACE_INVALID", JSON.stringify(borrowed.payload));
      assert.match(borrowed.payload.error?.message ?? "", /opened with other rights than this request's.*read-only.*nothing was run/);
      // The narrower token's own workspace runs with its own rights; the wider one's is intact.
      const own = await callV2(weak, "agent_tools_exec", { command: "notes call create_note --title weak --body b --confirm" });
      assert.match(String(own.payload.stdout), /FORBIDDEN/);
      const kept = await callV2(strong, "agent_tools_exec", { command: "cat f.txt", workspace });
      assert.equal(String(kept.payload.stdout).trim(), "kept", JSON.stringify(kept.payload));
      const notes = await callV2(strong, "agent_tools_notes_call", { toolName: "list_notes", arguments: {} });
      assert.doesNotMatch(JSON.stringify(notes.payload), /"title":"weak"/, "no note of the narrower token was written");
    } finally {
      await Promise.all([strong.close(), weak.close()]);
      await server.stop();
    }
  });

  it("SIGTERM drains: /readyz answers 503 at once, new sessions are still taken for AGENT_TOOLS_DRAIN_DELAY_MS, then answer 503 with Retry-After: 1; the call in flight finishes, then the process exits 0", async () => {
    const config = await writeConfig(dir);
    const delayMs = 8000;
    const server = await startHttp({ AGENT_TOOLS_AUDIT: "off", AGENT_TOOLS_DRAIN_MS: "30000", AGENT_TOOLS_DRAIN_DELAY_MS: String(delayMs) }, ["--config", config]);
    const readyz = server.url.replace(/\/mcp$/, "/readyz");
    const { client } = await httpClient(server.url, bearer(TOKENS.writer));
    // A balancer checks readiness: the drain's delay is for it to notice.
    assert.equal((await raw(readyz, { method: "GET" })).status, 200);
    // The call must be in flight when the signal comes and still run past the delay: 2 s for it to
    // arrive on a loaded machine, the delay, and room for the probes.
    const slow = callJson(client, "agent_tools_notes_call", { toolName: "slow_echo", arguments: { ms: 16_000, text: "done" } });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    server.child.kill("SIGTERM");
    await until(async () => (await raw(readyz, { method: "GET" })).status === 503, "/readyz to answer 503 once the signal is handled");
    const unready = Date.now();
    const ready = await raw(readyz, { method: "GET" });
    assert.match(ready.body, /"status":"draining"/);
    assert.equal(ready.headers["retry-after"], "1", "/readyz tells the same wait as a refused session");
    // Within the delay: the balancer may still send a new client here, and it is served.
    const early = await raw(server.url, { headers: { ...MCP_HEADERS, ...bearer(TOKENS.writer) }, body: INITIALIZE });
    assert.equal(early.status, 200, early.body);
    let fresh: Awaited<ReturnType<typeof raw>> | undefined;
    await until(async () => (fresh = await raw(server.url, { headers: { ...MCP_HEADERS, ...bearer(TOKENS.writer) }, body: INITIALIZE })).status === 503, "new sessions to be refused after the delay", 60_000, 250);
    // The delay began when /readyz turned 503, before this test saw it: at most a request's time earlier.
    assert.ok(Date.now() - unready >= delayMs - 2000, `refused ${Date.now() - unready} ms after /readyz turned 503`);
    assert.equal(fresh?.headers["retry-after"], "1");
    assert.match(fresh?.json().error?.message ?? "", /this instance is shutting down and takes no new sessions; retry \(the load balancer sends you to another instance\)/);
    const answered = (await slow) as { payload: Payload };
    assert.equal(answered.payload.ok, true, "the call in flight finished");
    const exit = await server.exited;
    assert.equal(exit.code, 0);
    assert.match(server.stderr(), /info: draining \(SIGTERM\): \/readyz answers 503 from now; new sessions and workspaces are still taken for 8000 ms/);
    assert.match(server.stderr(), /info: exiting \(SIGTERM\) after a shutdown of \d+ ms/);
  });

  it("a drain that runs past AGENT_TOOLS_DRAIN_MS answers each call still running as interrupted, its effect unknown, and logs it so", async () => {
    const config = await writeConfig(dir);
    const server = await startHttp({ AGENT_TOOLS_AUDIT: "off", AGENT_TOOLS_DRAIN_MS: "1500" }, ["--config", config]);
    const { client: json } = await httpClient(server.url, bearer(TOKENS.writer));
    const sse = new Client({ name: "agent-tools-sse-test", version: "0.0.0" });
    await connectHttpPreferringSse(sse, server.url, bearer(TOKENS.writer));
    const modern = await connectHttpV2(v2Client("pin"), server.url, withBearer(TOKENS.writer));
    // Each outlives the drain by far: a 2025-era session answering JSON, one answering SSE, and a modern workspace.
    const failure = (call: Promise<unknown>): Promise<string> => call.then((answered) => `answered: ${JSON.stringify(answered)}`, (error: Error) => error.message);
    const running = [
      failure(callJson(json, "agent_tools_notes_call", { toolName: "slow_echo", arguments: { ms: 60_000, text: "json" } })),
      failure(callJson(sse, "agent_tools_notes_call", { toolName: "slow_echo", arguments: { ms: 60_000, text: "sse" } })),
      failure(callV2(modern, "agent_tools_exec", { command: "sleep 60; echo finished" })),
    ];
    // Generous: all three must have arrived on a loaded machine before the signal.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    server.child.kill("SIGTERM");
    const messages = await Promise.all(running);
    for (const message of messages) {
      assert.match(message, /this instance shut down \(SIGTERM\) while the request was running/, message);
      assert.match(message, /whether it took effect is unknown/, message);
      assert.match(message, /first check whether it took effect/, message);
    }
    assert.equal((await server.exited).code, 0);
    const lines = server.stderr().split("\n");
    const logged = lines.filter((l) => /tool=agent_tools_(notes_call|exec) /.test(l));
    assert.equal(logged.filter((l) => /status=503 interrupted/.test(l)).length, 2, `the JSON and modern calls:\n${logged.join("\n")}`);
    assert.equal(logged.filter((l) => /status=200 interrupted/.test(l)).length, 1, `the SSE call (its stream had begun):\n${logged.join("\n")}`);
    assert.ok(!logged.some((l) => / ok \d+ms/.test(l)), logged.join("\n"));
    assert.match(server.stderr(), /3 request\(s\) still running were answered as interrupted/);
    // Nothing checked /readyz (no balancer): the drain refused new sessions at once, without the delay.
    assert.match(server.stderr(), /new sessions and workspaces are refused \(no AGENT_TOOLS_DRAIN_DELAY_MS wait: nothing asked \/readyz in the last 60 s, so no balancer is there to notice\)/);
    await Promise.allSettled([json.close(), sse.close(), modern.close()]);
  });
});
