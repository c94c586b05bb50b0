import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startHttpServer } from "./perf-http.js";

/**
 * Tail latency of the HTTP server under many sessions (issue #15): SESSIONS concurrent sessions
 * each make CALLS calls, cycling through the mix agent_tools_search, a plugin's _discover, its
 * _call (a read-only tool) and agent_tools_exec "echo hi | wc -c". Prints p50/p99/max overall and
 * per kind, and errors. The load generator runs on the same machine as the server (as in the
 * issue), so the figures include its own CPU use.
 *
 *   npm run build && node --import tsx bench/tail-latency.ts            # 200 sessions × 100 calls
 *   SESSIONS=50 CALLS=20 node --import tsx bench/tail-latency.ts         # a quick run
 *   SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" ...           # profile the server under this load
 *   ROUNDS=3 ...                                                          # several rounds, each on a fresh server
 *
 * The client is node:http with a keep-alive agent (one socket per session in flight), not fetch:
 * under this load on 2 shared cores, undici's pool opened its sockets so slowly that the last
 * sessions' first requests reached the server up to 27 s after they were sent (the server's
 * accept times showed it), a queue in the load generator that was counted as server latency.
 * CLIENT=fetch measures with fetch anyway. Before the timed calls every session pings once, all at
 * once, so each has its socket open, as a real client holds its connection.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const BIN = path.join(ROOT, "dist", "bin", "agent-tools-mcp-http.js");
const PLUGINS = path.join(ROOT, "test", "fixtures", "plugins");
const SESSIONS = Number(process.env.SESSIONS ?? 200);
const CALLS = Number(process.env.CALLS ?? 100);
const ROUNDS = Number(process.env.ROUNDS ?? 1);
const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };

const MIX: { kind: string; name: string; arguments: Record<string, unknown> }[] = [
  { kind: "search", name: "agent_tools_search", arguments: { query: "find notes by text" } },
  { kind: "discover", name: "agent_tools_notes_discover", arguments: { query: "read a note" } },
  { kind: "call", name: "agent_tools_notes_call", arguments: { toolName: "get_note", arguments: { id: "n1" } } },
  { kind: "exec", name: "agent_tools_exec", arguments: { command: "echo hi | wc -c" } },
];

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
const useFetch = process.env.CLIENT === "fetch";

interface Answer {
  status: number;
  sessionId: string | undefined;
  text: string;
}

async function post(url: string, body: unknown, session?: string): Promise<Answer> {
  const headers = { ...HEADERS, ...(session ? { "mcp-session-id": session } : {}) };
  if (useFetch) {
    const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
    return { status: response.status, sessionId: response.headers.get("mcp-session-id") ?? undefined, text: await response.text() };
  }
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: "POST", headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", reject);
      response.on("end", () => {
        const id = response.headers["mcp-session-id"];
        resolve({ status: response.statusCode ?? 0, sessionId: typeof id === "string" ? id : undefined, text: Buffer.concat(chunks).toString("utf8") });
      });
    });
    request.on("error", reject);
    request.end(JSON.stringify(body));
  });
}

async function openSession(url: string): Promise<string> {
  const init = await post(url, { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "tail-latency", version: "0" } } });
  const id = init.sessionId;
  if (init.status !== 200 || !id) throw new Error(`initialize: HTTP ${init.status}`);
  await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, id);
  return id;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

interface Figures {
  p50: number;
  p99: number;
  max: number;
}

function figures(values: number[]): Figures {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? NaN };
}

function summary(values: number[]): string {
  const f = figures(values);
  return `n=${values.length} p50=${Math.round(f.p50)} ms p99=${Math.round(f.p99)} ms max=${Math.round(f.max)} ms`;
}

const load = () => os.loadavg().map((l) => l.toFixed(1)).join(" ");

/** One round on a fresh server (so each round includes the first-use work: model, sandboxes, imports). */
async function round(n: number): Promise<Figures> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_NO_BUNDLED_PLUGINS: "1", AGENT_TOOLS_HTTP_PORT: "0", AGENT_TOOLS_HTTP_MAX_SESSIONS: String(Math.max(64, SESSIONS)), AGENT_TOOLS_LOG: "info" };
  const nodeArgs = (process.env.SERVER_NODE_ARGS ?? "").split(/\s+/).filter(Boolean);
  const server = await startHttpServer(BIN, env, ROOT, nodeArgs);
  try {
    const sessions: string[] = [];
    for (let i = 0; i < SESSIONS; i++) sessions.push(await openSession(server.url));
    // One ping per session, all at once and untimed: each session then has its own open socket,
    // as a real client holds its connection, and the timed calls do not include 200 connects.
    await Promise.all(sessions.map((session) => post(server.url, { jsonrpc: "2.0", id: 0, method: "ping" }, session)));
    const byKind = new Map<string, number[]>(MIX.map((m) => [m.kind, []]));
    const all: number[] = [];
    let errors = 0;
    let id = 1;
    const loadBefore = load();
    const started = performance.now();
    await Promise.all(
      sessions.map(async (session, s) => {
        for (let c = 0; c < CALLS; c++) {
          const call = MIX[(s + c) % MIX.length] as (typeof MIX)[number];
          const t0 = performance.now();
          try {
            const answer = await post(server.url, { jsonrpc: "2.0", id: id++, method: "tools/call", params: { name: call.name, arguments: call.arguments } }, session);
            const body = JSON.parse(answer.text) as { result?: { isError?: boolean }; error?: unknown };
            if (answer.status !== 200 || body.error || body.result?.isError) errors++;
          } catch {
            errors++;
          }
          const ms = performance.now() - t0;
          all.push(ms);
          byKind.get(call.kind)?.push(ms);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(`round ${n}: ${SESSIONS} sessions × ${CALLS} calls over HTTP (${useFetch ? "fetch" : "node:http"} client on the same machine), ${seconds.toFixed(1)} s, load average ${loadBefore} -> ${load()}`);
    console.log(`  all       ${summary(all)}  errors=${errors}  ${Math.round(all.length / seconds)} calls/s`);
    for (const [kind, values] of byKind) console.log(`  ${kind.padEnd(9)} ${summary(values)}`);
    return figures(all);
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const rounds: Figures[] = [];
  for (let n = 1; n <= ROUNDS; n++) rounds.push(await round(n));
  if (rounds.length < 2) return;
  const of = (key: keyof Figures) => {
    const values = rounds.map((r) => r[key]).sort((a, b) => a - b);
    return `min ${Math.round(values[0]!)} ms, median ${Math.round(values[Math.floor((values.length - 1) / 2)]!)} ms`;
  };
  console.log(`over ${rounds.length} rounds: p50 ${of("p50")}; p99 ${of("p99")}; max ${of("max")}`);
}

await main();
