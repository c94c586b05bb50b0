import path from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { fork, type ChildProcess } from "node:child_process";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createFacade } from "../src/facade/server.js";
import { silentLogger } from "../src/log.js";
import { createRuntime } from "../src/runtime/runtime.js";

/**
 * Per-request cost of the two protocol eras on the HTTP facade: a modern client (pinned
 * 2026-07-28: no session; a plain call or list is answered by the facade's fast lane,
 * src/transports/http/modern-lane.ts, from the client's second request on, unless
 * AGENT_TOOLS_FAST_LANE=off) against a legacy client (2025 initialize, one session, one Server for
 * its life), each doing a tools/call (agent_tools_notes_call get_note) and a tools/list over real
 * loopback HTTP.
 *
 * The facade runs in a process of its own from the build (bench/protocol-server.ts; the npm
 * script builds first), so each request is charged the server's own CPU time (user + system),
 * which other processes on a shared machine inflate far less than wall-clock time; wall-clock
 * time is printed too. Rounds alternate: in each round every (server, era) leg runs N requests,
 * the order of the legs flips from round to round, and each round gives its own modern/legacy
 * ratio (min and median over ROUNDS rounds; the median is the figure to read on a shared
 * machine); "total" is the ratio of the summed times, which one long stall in one leg can move.
 *
 * `--baseline DIR` also serves another checkout (for example `git worktree add /tmp/base main`,
 * node_modules linked, `npm run build` there) in a second process and measures it in the same
 * rounds, so a change's before and after stand side by side under the same load.
 *
 * Run: node --import tsx bench/protocol.ts [N] [ROUNDS] [--baseline DIR]
 */

const argv = process.argv.slice(2);
const baselineAt = argv.indexOf("--baseline");
const baselineRoot = baselineAt >= 0 ? argv[baselineAt + 1] : undefined;
if (baselineAt >= 0 && !baselineRoot) throw new Error("--baseline needs the root folder of another checkout");
const positional = argv.filter((_, i) => baselineAt < 0 || (i !== baselineAt && i !== baselineAt + 1));
const N = Number(positional[0] ?? 200);
const ROUNDS = Number(positional[1] ?? 8);
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "..");
const NOTES = path.join(ROOT, "test", "fixtures", "plugins", "agent-tools-plugin-notes");

// The 2025-era SDK client adds an abort listener per request to one long-lived signal (client
// side, not the facade's): say so once instead of a warning per request.
let warnedListeners = false;
process.removeAllListeners("warning");
process.on("warning", (warning) => {
  if (warning.name !== "MaxListenersExceededWarning") console.error(warning);
  else if (!warnedListeners) {
    warnedListeners = true;
    console.error("(note: the legacy SDK client exceeds its abort-listener limit in long runs; client side, not measured)");
  }
});

type Stats = { min: number; median: number };
function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  return { min: sorted[0] ?? NaN, median: sorted[Math.floor(sorted.length / 2)] ?? NaN };
}

// The factory alone: µs per Server built and its two handlers registered (in this process).
const runtime = await createRuntime({ pluginDirs: [NOTES], log: silentLogger, env: {} });
const facade = createFacade(runtime);
const scope = { session: () => runtime.createSession("bench") };
const factoryRounds: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const count = 20_000;
  const started = performance.now();
  for (let i = 0; i < count; i++) facade.server(scope);
  factoryRounds.push(((performance.now() - started) / count) * 1000);
}
const factory = stats(factoryRounds);
await runtime.close();

interface Served {
  label: string;
  child: ChildProcess;
  modern: Client;
  legacy: Client;
}

function ask<T>(child: ChildProcess, message: string, key: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null): void => reject(new Error(`the bench server exited (code ${code}) before answering '${key}'`));
    const onMessage = (reply: Record<string, unknown>): void => {
      if (key in reply) {
        child.off("message", onMessage);
        child.off("exit", onExit);
        resolve(reply[key] as T);
      }
    };
    child.on("message", onMessage);
    child.once("exit", onExit);
    if (message) child.send(message);
  });
}

async function client(mode: "modern" | "legacy", url: string): Promise<Client> {
  const c = new Client({ name: `bench-${mode}`, version: "0" }, { versionNegotiation: mode === "modern" ? { mode: { pin: "2026-07-28" } } : { mode: "legacy" } });
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  return c;
}

async function serve(label: string, root: string): Promise<Served> {
  const child = fork(path.join(HERE, "protocol-server.ts"), [root], { execArgv: ["--import", "tsx"], stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const url = await ask<string>(child, "", "url");
  return { label, child, modern: await client("modern", url), legacy: await client("legacy", url) };
}

const servers: Served[] = [await serve("this tree", ROOT)];
if (baselineRoot) servers.push(await serve(`baseline (${baselineRoot})`, path.resolve(baselineRoot)));

const callArgs = { name: "agent_tools_notes_call", arguments: { toolName: "get_note", arguments: { id: "n1" } } };
const operations = {
  "tools/call": { modern: (c: Client) => c.callTool(callArgs), legacy: (c: Client) => c.callTool(callArgs) },
  // The modern client would answer tools/list from its own cache (the facade's ttlMs): bypass it.
  "tools/list": { modern: (c: Client) => c.listTools(undefined, { cacheMode: "bypass" }), legacy: (c: Client) => c.listTools() },
} as const;
type Operation = keyof typeof operations;
type Era = "modern" | "legacy";

/** One leg: N requests of one era to one server; server CPU µs and wall ms per request. */
async function leg(server: Served, era: Era, operation: Operation): Promise<{ cpu: number; wall: number }> {
  const run = operations[operation][era];
  const c = server[era];
  const cpuBefore = await ask<number>(server.child, "cpu", "cpu");
  const started = performance.now();
  for (let i = 0; i < N; i++) await run(c);
  const wall = (performance.now() - started) / N;
  const cpuAfter = await ask<number>(server.child, "cpu", "cpu");
  return { cpu: (cpuAfter - cpuBefore) / N, wall };
}

type Samples = Record<string, { cpu: number[]; wall: number[] }>;
const samples: Samples = {};
const sample = (key: string): { cpu: number[]; wall: number[] } => (samples[key] ??= { cpu: [], wall: [] });

// Warm-up: every leg once, so JIT and caches are warm on both eras before anything counts.
for (const server of servers) {
  for (const operation of Object.keys(operations) as Operation[]) {
    for (let i = 0; i < Math.min(100, N); i++) {
      await operations[operation].modern(server.modern);
      await operations[operation].legacy(server.legacy);
    }
  }
}

for (let r = 0; r < ROUNDS; r++) {
  const legs: Array<[Served, Era, Operation]> = [];
  for (const operation of Object.keys(operations) as Operation[]) {
    for (const server of servers) for (const era of ["modern", "legacy"] as const) legs.push([server, era, operation]);
  }
  // Odd rounds run the legs in reverse order: neither era nor server always goes first.
  if (r % 2 === 1) legs.reverse();
  for (const [server, era, operation] of legs) {
    const { cpu, wall } = await leg(server, era, operation);
    sample(`${server.label}|${operation}|${era}`).cpu.push(cpu);
    sample(`${server.label}|${operation}|${era}`).wall.push(wall);
  }
}

await Promise.allSettled(servers.flatMap((s) => [s.modern.close(), s.legacy.close()]));
for (const server of servers) server.child.send("stop");

const ratios = (modern: number[], legacy: number[]): Stats => stats(modern.map((m, i) => m / (legacy[i] ?? NaN)));
const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);
const fmt = (value: Stats, digits: number, unit: string): string => `${value.min.toFixed(digits)}${unit} / ${value.median.toFixed(digits)}${unit}`;
console.log(`protocol eras, per request: min / median of ${ROUNDS} rounds × ${N} requests; legs alternate each round; the facade in its own process`);
console.log(`  factory (facade.server per request, in-process): ${fmt(factory, 1, " µs")}`);
for (const server of servers) {
  console.log(`  ${server.label}`);
  for (const operation of Object.keys(operations) as Operation[]) {
    const modern = sample(`${server.label}|${operation}|modern`);
    const legacy = sample(`${server.label}|${operation}|legacy`);
    console.log(`    ${operation}  server CPU  modern ${fmt(stats(modern.cpu), 0, " µs")}   legacy ${fmt(stats(legacy.cpu), 0, " µs")}   modern/legacy per round ${fmt(ratios(modern.cpu, legacy.cpu), 3, "×")}, total ${(sum(modern.cpu) / sum(legacy.cpu)).toFixed(3)}×`);
    console.log(`    ${operation}  wall        modern ${fmt(stats(modern.wall), 3, " ms")}  legacy ${fmt(stats(legacy.wall), 3, " ms")}  modern/legacy per round ${fmt(ratios(modern.wall, legacy.wall), 3, "×")}, total ${(sum(modern.wall) / sum(legacy.wall)).toFixed(3)}×`);
  }
}
console.log("  goal: modern/legacy within 1.10× for each request (server CPU, per-round median)");
