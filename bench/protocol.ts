import path from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createFacade } from "../src/facade/server.js";
import { silentLogger } from "../src/log.js";
import { createRuntime } from "../src/runtime/runtime.js";
import { resolveHttpOptions } from "../src/transports/http/options.js";
import { startHttpFacade } from "../src/transports/http/server.js";
import { createModernEntry } from "../src/transports/http/modern.js";

/**
 * Per-request cost of the two protocol eras on the HTTP facade, measured in one run side by side:
 *  - the factory: what the 2026-07-28 path pays per request to build its Server (createFacade is
 *    per process; facade.server(scope) per request);
 *  - a tools/call (agent_tools_notes_call get_note) and a tools/list over real loopback HTTP:
 *    a modern client (pinned 2026-07-28, no session, a fresh Server per request) against a
 *    legacy client (2025 initialize, one session, one Server for its life);
 *  - the same modern request in-process through createMcpHandler's fetch (no socket).
 * Each figure is per request: min and median of ROUNDS rounds of N requests.
 * Run: node --import tsx bench/protocol.ts [N] [ROUNDS]
 */

const N = Number(process.argv[2] ?? 200);
const ROUNDS = Number(process.argv[3] ?? 5);
const NOTES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "test", "fixtures", "plugins", "agent-tools-plugin-notes");

function stats(samples: number[]): { min: number; median: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { min: sorted[0] ?? NaN, median: sorted[Math.floor(sorted.length / 2)] ?? NaN };
}

async function perRequest(run: () => Promise<unknown>): Promise<{ min: number; median: number }> {
  for (let i = 0; i < Math.min(20, N); i++) await run(); // warm-up
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const started = performance.now();
    for (let i = 0; i < N; i++) await run();
    rounds.push((performance.now() - started) / N);
  }
  return stats(rounds);
}

const runtime = await createRuntime({ pluginDirs: [NOTES], log: silentLogger, env: {} });
const facade = createFacade(runtime);
const scope = { session: () => runtime.createSession("bench") };

// The factory, alone: µs per Server built and its two handlers registered.
const factoryRounds: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const count = 20_000;
  const started = performance.now();
  for (let i = 0; i < count; i++) facade.server(scope);
  factoryRounds.push(((performance.now() - started) / count) * 1000);
}
const factory = stats(factoryRounds);

const http = await startHttpFacade(runtime, { ...resolveHttpOptions({}), port: 0 }, silentLogger);
const callArgs = { name: "agent_tools_notes_call", arguments: { toolName: "get_note", arguments: { id: "n1" } } };

async function client(mode: "modern" | "legacy", fetchImpl?: (url: string | URL, init?: RequestInit) => Promise<Response>, url = http.url): Promise<Client> {
  const c = new Client({ name: `bench-${mode}`, version: "0" }, { versionNegotiation: mode === "modern" ? { mode: { pin: "2026-07-28" } } : { mode: "legacy" } });
  await c.connect(new StreamableHTTPClientTransport(new URL(url), fetchImpl ? { fetch: fetchImpl } : {}));
  return c;
}

const modern = await client("modern");
const legacy = await client("legacy");
const entry = createModernEntry(runtime);
const inProcess = await client("modern", (url, init) => entry.handler.fetch(new Request(url, init)), "http://in-process.bench/mcp");

// Interleaved per round so load on the machine falls on both alike.
const results: Record<string, { min: number; median: number }> = {};
results["tools/call modern (HTTP)"] = await perRequest(() => modern.callTool(callArgs));
results["tools/call legacy (HTTP)"] = await perRequest(() => legacy.callTool(callArgs));
results["tools/list modern (HTTP)"] = await perRequest(() => modern.listTools(undefined, { cacheMode: "bypass" }));
results["tools/list legacy (HTTP)"] = await perRequest(() => legacy.listTools());
results["tools/call modern (in-process fetch)"] = await perRequest(() => inProcess.callTool(callArgs));

const ms = (value: number): string => `${value.toFixed(3)} ms`;
console.log(`protocol eras, per request (min / median of ${ROUNDS} rounds × ${N})`);
console.log(`  factory (facade.server per request): ${factory.min.toFixed(1)} µs / ${factory.median.toFixed(1)} µs`);
for (const [label, value] of Object.entries(results)) console.log(`  ${label.padEnd(38)} ${ms(value.min)} / ${ms(value.median)}`);
const ratio = (a: string, b: string): string => `${((results[a]?.median ?? NaN) / (results[b]?.median ?? NaN)).toFixed(2)}×`;
console.log(`  modern/legacy tools/call (median): ${ratio("tools/call modern (HTTP)", "tools/call legacy (HTTP)")}; tools/list: ${ratio("tools/list modern (HTTP)", "tools/list legacy (HTTP)")} (goal: within 1.10×)`);

await Promise.allSettled([modern.close(), legacy.close(), inProcess.close()]);
await entry.close();
await http.close();
await runtime.close();
