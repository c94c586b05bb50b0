/**
 * What the Redis backend adds to a call that changes data, against the memory backend, measured in
 * one run: the same in-process runtime path (policy, validation, the notes fixture's create_note,
 * the audit observer, the identity's rate-limit counter) with the state in memory (audit to a JSONL
 * file) and in a real redis-server started on a free loopback port (audit to the stream).
 * Sequential calls (one agent) and 16 at once (a busy gateway; ioredis pipelines them).
 * Run: npm run bench:team-state [calls=2000] [rounds=5]. It prints figures; it asserts nothing.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { checkRate } from "../src/gateway/rate-limit.js";
import { silentLogger } from "../src/log.js";
import type { Identity } from "../src/runtime/access.js";
import { createRuntime, type Runtime } from "../src/runtime/runtime.js";
import { createAuditObserver } from "../src/runtime/audit.js";
import { createFileAuditLog } from "../src/state/audit-file.js";
import { createMemoryState } from "../src/state/memory.js";
import { createRedisState } from "../src/state/redis.js";
import type { SharedState } from "../src/state/types.js";
import { startRedis } from "../test/services-kit.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CALLS = Number(process.argv[2] ?? 2000);
const ROUNDS = Number(process.argv[3] ?? 5);
const CONCURRENCY = 16;
const identity: Identity = { name: "bench", plugins: "*", write: true, ratePerMinute: 1_000_000_000 };

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

async function runtimeOn(state: SharedState): Promise<Runtime> {
  return createRuntime({
    pluginDirs: [path.join(ROOT, "test/fixtures/plugins/agent-tools-plugin-notes")],
    env: {},
    log: silentLogger,
    state,
    observers: [createAuditObserver({ audit: state.audit!, instanceId: state.instanceId, log: silentLogger })],
  });
}

/** Milliseconds per call over `calls` create_note calls, `parallel` at a time, each admitted by the rate limiter first. */
async function perCall(runtime: Runtime, parallel: number, calls: number): Promise<number> {
  const session = runtime.createSession(undefined, identity);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < calls) {
      next += 1;
      const decision = await checkRate(runtime.state.counters, identity);
      if (!decision.ok) throw new Error("rate limited");
      const answer = await runtime.call(session, "notes", { toolName: "create_note", arguments: { title: "bench", body: "x" }, confirm: true });
      if (answer.isError) throw new Error(JSON.stringify(answer.payload));
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: parallel }, worker));
  return (performance.now() - started) / calls;
}

const redis = await startRedis();
const dir = await mkdtemp(path.join(os.tmpdir(), "agent-tools-bench-"));
const memoryState = createMemoryState({ audit: createFileAuditLog(path.join(dir, "audit.jsonl")) });
const redisState = await createRedisState({ url: redis.url, log: silentLogger });
const memory = await runtimeOn(memoryState);
const shared = await runtimeOn(redisState);
try {
  // Warm both paths (catalog listing, JIT) before measuring.
  await perCall(memory, 1, 200);
  await perCall(shared, 1, 200);
  const figures: Record<string, { memory: number[]; redis: number[] }> = { sequential: { memory: [], redis: [] }, [`${CONCURRENCY} at once`]: { memory: [], redis: [] } };
  for (let round = 0; round < ROUNDS; round++) {
    // Interleaved, so machine load falls on both backends alike.
    figures.sequential!.memory.push(await perCall(memory, 1, CALLS));
    figures.sequential!.redis.push(await perCall(shared, 1, CALLS));
    figures[`${CONCURRENCY} at once`]!.memory.push(await perCall(memory, CONCURRENCY, CALLS));
    figures[`${CONCURRENCY} at once`]!.redis.push(await perCall(shared, CONCURRENCY, CALLS));
  }
  process.stdout.write(`team state: a mutating call (create_note + audit + rate-limit counter), ${CALLS} calls × ${ROUNDS} rounds, ms per call\n`);
  // Two differences: of the medians (the usual figure) and of the minimums (the round least
  // disturbed by other work on a shared machine, where a median can swing either way).
  process.stdout.write(`${"".padEnd(14)}${"memory min".padStart(12)}${"median".padStart(9)}${"redis min".padStart(12)}${"median".padStart(9)}${"added (median)".padStart(16)}${"added (min)".padStart(13)}\n`);
  const signed = (value: number): string => `${value >= 0 ? "+" : ""}${value.toFixed(3)}`;
  for (const [mode, f] of Object.entries(figures)) {
    process.stdout.write(
      `${mode.padEnd(14)}${Math.min(...f.memory).toFixed(3).padStart(12)}${median(f.memory).toFixed(3).padStart(9)}${Math.min(...f.redis).toFixed(3).padStart(12)}${median(f.redis).toFixed(3).padStart(9)}${signed(median(f.redis) - median(f.memory)).padStart(16)}${signed(Math.min(...f.redis) - Math.min(...f.memory)).padStart(13)}\n`,
    );
  }
  process.stdout.write(`goal: at most +0.300 ms per mutating call (the machine is shared: figures are noisy)\n`);

  // The alternative to routing workspace requests to the instance holding the shell: keep the
  // workspace's files in Redis and move them on every exec call (read before, write after).
  process.stdout.write(`\nworkspace files kept in Redis instead of routed: GET + SET of the files per exec call, ms (median of 50)\n`);
  for (const bytes of [10_000, 1_000_000, 10_000_000]) {
    const files = JSON.stringify({ "/home/user/data.json": "x".repeat(bytes) });
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t0 = performance.now();
      await redisState.kv.set("bench:workspace", files);
      const back = await redisState.kv.get("bench:workspace");
      JSON.parse(back ?? "{}");
      times.push(performance.now() - t0);
    }
    process.stdout.write(`  ${String(bytes / 1000).padStart(6)} KB of files: ${median(times).toFixed(3)} ms per call (routing on the workspace header: 0 ms added)\n`);
  }
} finally {
  await memory.close();
  await shared.close();
  await memoryState.close();
  await redisState.close();
  await redis.stop();
  await rm(dir, { recursive: true, force: true });
}
