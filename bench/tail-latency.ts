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
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const BIN = path.join(ROOT, "dist", "bin", "agent-tools-mcp-http.js");
const PLUGINS = path.join(ROOT, "test", "fixtures", "plugins");
const SESSIONS = Number(process.env.SESSIONS ?? 200);
const CALLS = Number(process.env.CALLS ?? 100);
const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };

const MIX: { kind: string; name: string; arguments: Record<string, unknown> }[] = [
  { kind: "search", name: "agent_tools_search", arguments: { query: "find notes by text" } },
  { kind: "discover", name: "agent_tools_notes_discover", arguments: { query: "read a note" } },
  { kind: "call", name: "agent_tools_notes_call", arguments: { toolName: "get_note", arguments: { id: "n1" } } },
  { kind: "exec", name: "agent_tools_exec", arguments: { command: "echo hi | wc -c" } },
];

async function post(url: string, body: unknown, session?: string): Promise<Response> {
  return fetch(url, { method: "POST", headers: { ...HEADERS, ...(session ? { "mcp-session-id": session } : {}) }, body: JSON.stringify(body) });
}

async function openSession(url: string): Promise<string> {
  const init = await post(url, { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "tail-latency", version: "0" } } });
  const id = init.headers.get("mcp-session-id");
  await init.text();
  if (!init.ok || !id) throw new Error(`initialize: HTTP ${init.status}`);
  await (await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, id)).text();
  return id;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

function summary(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `n=${sorted.length} p50=${Math.round(percentile(sorted, 50))} ms p99=${Math.round(percentile(sorted, 99))} ms max=${Math.round(sorted.at(-1) ?? NaN)} ms`;
}

async function main(): Promise<void> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_NO_BUNDLED_PLUGINS: "1", AGENT_TOOLS_HTTP_PORT: "0", AGENT_TOOLS_HTTP_MAX_SESSIONS: String(Math.max(64, SESSIONS)), AGENT_TOOLS_LOG: "info" };
  const server = await startHttpServer(BIN, env, ROOT);
  try {
    const sessions: string[] = [];
    for (let i = 0; i < SESSIONS; i++) sessions.push(await openSession(server.url));
    const byKind = new Map<string, number[]>(MIX.map((m) => [m.kind, []]));
    const all: number[] = [];
    let errors = 0;
    let id = 1;
    const started = performance.now();
    await Promise.all(
      sessions.map(async (session, s) => {
        for (let c = 0; c < CALLS; c++) {
          const call = MIX[(s + c) % MIX.length] as (typeof MIX)[number];
          const t0 = performance.now();
          try {
            const response = await post(server.url, { jsonrpc: "2.0", id: id++, method: "tools/call", params: { name: call.name, arguments: call.arguments } }, session);
            const body = (await response.json()) as { result?: { isError?: boolean }; error?: unknown };
            if (!response.ok || body.error || body.result?.isError) errors++;
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
    console.log(`tail latency: ${SESSIONS} sessions × ${CALLS} calls over HTTP, load generator on the same machine`);
    console.log(`  all       ${summary(all)}  errors=${errors}  ${Math.round(all.length / seconds)} calls/s`);
    for (const [kind, values] of byKind) console.log(`  ${kind.padEnd(9)} ${summary(values)}`);
  } finally {
    await server.stop();
  }
}

await main();
