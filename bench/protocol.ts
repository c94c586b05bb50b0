import path from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { fork, type ChildProcess } from "node:child_process";
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
 * - the server's CPU time per tools/call of each era, with the facade in a process of its own
 *   (bench/protocol-server.ts): the figure a shared, loaded machine distorts least.
 * Each figure is per request: min and median of ROUNDS rounds of N requests; modern and legacy
 * rounds alternate (which goes first flips each round) and each pair gives a ratio.
 * Run: node --import tsx bench/protocol.ts [N] [ROUNDS]
 */

const N = Number(process.argv[2] ?? 200);
const ROUNDS = Number(process.argv[3] ?? 5);
const NOTES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "test", "fixtures", "plugins", "agent-tools-plugin-notes");

function stats(samples: number[]): { min: number; median: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { min: sorted[0] ?? NaN, median: sorted[Math.floor(sorted.length / 2)] ?? NaN };
}

async function timeRound(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < N; i++) await run();
  return (performance.now() - started) / N;
}

/**
 * Two paths measured round by round, alternating which goes first, so load on a shared machine
 * falls on both alike; each round also gives its own a/b ratio.
 */
async function sideBySide(a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<{ a: { min: number; median: number }; b: { min: number; median: number }; ratio: { min: number; median: number } }> {
  for (let i = 0; i < Math.min(50, N); i++) {
    await a();
    await b();
  }
  const ra: number[] = [];
  const rb: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    let ta: number;
    let tb: number;
    if (r % 2 === 0) {
      ta = await timeRound(a);
      tb = await timeRound(b);
    } else {
      tb = await timeRound(b);
      ta = await timeRound(a);
    }
    ra.push(ta);
    rb.push(tb);
    ratios.push(ta / tb);
  }
  return { a: stats(ra), b: stats(rb), ratio: stats(ratios) };
}

async function perRequest(run: () => Promise<unknown>): Promise<{ min: number; median: number }> {
  for (let i = 0; i < Math.min(20, N); i++) await run(); // warm-up
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) rounds.push(await timeRound(run));
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

const results: Record<string, { min: number; median: number }> = {};
const ratios: Record<string, { min: number; median: number }> = {};
const call = await sideBySide(() => modern.callTool(callArgs), () => legacy.callTool(callArgs));
results["tools/call modern (HTTP)"] = call.a;
results["tools/call legacy (HTTP)"] = call.b;
ratios["tools/call"] = call.ratio;
// The modern client would answer tools/list from its own cache (the facade's ttlMs): bypass it.
const list = await sideBySide(() => modern.listTools(undefined, { cacheMode: "bypass" }), () => legacy.listTools());
results["tools/list modern (HTTP)"] = list.a;
results["tools/list legacy (HTTP)"] = list.b;
ratios["tools/list"] = list.ratio;
results["tools/call modern (in-process fetch)"] = await perRequest(() => inProcess.callTool(callArgs));

// The server's own CPU time per request, with the facade in a process of its own: load from other
// processes on a shared machine stretches wall-clock time but not this.
const child: ChildProcess = fork(path.join(path.dirname(fileURLToPath(import.meta.url)), "protocol-server.ts"), [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "ignore", "inherit", "ipc"] });
const ask = <T>(message: string, key: string): Promise<T> =>
  new Promise((resolve) => {
    const onMessage = (reply: Record<string, unknown>): void => {
      if (key in reply) {
        child.off("message", onMessage);
        resolve(reply[key] as T);
      }
    };
    child.on("message", onMessage);
    if (message) child.send(message);
  });
const childUrl = await ask<string>("", "url");
const modernOut = await client("modern", undefined, childUrl);
const legacyOut = await client("legacy", undefined, childUrl);
async function cpuRound(run: () => Promise<unknown>): Promise<number> {
  const before = await ask<number>("cpu", "cpu");
  for (let i = 0; i < N; i++) await run();
  return ((await ask<number>("cpu", "cpu")) - before) / N;
}
for (let i = 0; i < Math.min(50, N); i++) {
  await modernOut.callTool(callArgs);
  await legacyOut.callTool(callArgs);
}
const cpuModern: number[] = [];
const cpuLegacy: number[] = [];
const cpuRatios: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const m = await cpuRound(() => modernOut.callTool(callArgs));
  const l = await cpuRound(() => legacyOut.callTool(callArgs));
  cpuModern.push(m);
  cpuLegacy.push(l);
  cpuRatios.push(m / l);
}
await Promise.allSettled([modernOut.close(), legacyOut.close()]);
child.send("stop");

const ms = (value: number): string => `${value.toFixed(3)} ms`;
const us = (value: { min: number; median: number }): string => `${value.min.toFixed(0)} µs / ${value.median.toFixed(0)} µs`;
console.log(`protocol eras, per request (min / median of ${ROUNDS} rounds × ${N}; modern and legacy rounds alternate)`);
console.log(`  factory (facade.server per request): ${factory.min.toFixed(1)} µs / ${factory.median.toFixed(1)} µs`);
console.log("  wall-clock, client and server in this process:");
for (const [label, value] of Object.entries(results)) console.log(`    ${label.padEnd(38)} ${ms(value.min)} / ${ms(value.median)}`);
for (const [label, value] of Object.entries(ratios)) console.log(`    modern/legacy ${label.padEnd(10)} per-round ratio min ${value.min.toFixed(3)}× / median ${value.median.toFixed(3)}×`);
const cpuRatio = stats(cpuRatios);
console.log("  server CPU time per tools/call, the facade in its own process:");
console.log(`    modern (HTTP)                          ${us(stats(cpuModern))}`);
console.log(`    legacy (HTTP)                          ${us(stats(cpuLegacy))}`);
console.log(`    modern/legacy per-round ratio min ${cpuRatio.min.toFixed(3)}× / median ${cpuRatio.median.toFixed(3)}× (goal: within 1.10×)`);

await Promise.allSettled([modern.close(), legacy.close(), inProcess.close()]);
await entry.close();
await http.close();
await runtime.close();
