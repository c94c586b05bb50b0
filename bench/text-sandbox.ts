/**
 * Text layer figures: the one-off cost of importing just-bash, the cost of a session's sandbox
 * (creation time and retained heap), and the latency of a few command lines.
 * Run: node --expose-gc --import tsx bench/text-sandbox.ts [sessions=50]
 * It prints figures; it asserts nothing.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { silentLogger } from "../src/log.js";
import { createRuntime } from "../src/runtime/runtime.js";
import { closeSession } from "../src/runtime/session.js";
import { loadJustBash } from "../src/text/sandbox.js";
import { createTextLayer } from "../src/text/text-layer.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SESSIONS = Number(process.argv[2] ?? 50);
const gc = (globalThis as { gc?: () => void }).gc;

function heapMb(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

const runtime = await createRuntime({ pluginDirs: [path.join(ROOT, "test/fixtures/plugins/agent-tools-plugin-notes")], env: {}, log: silentLogger });
const layer = createTextLayer(runtime, {});

let t = performance.now();
await loadJustBash();
const importMs = performance.now() - t;

const baseline = heapMb();
const sessions = [];
const firstCall: number[] = [];
for (let i = 0; i < SESSIONS; i++) {
  const session = runtime.createSession(`bench-${i}`);
  sessions.push(session);
  t = performance.now();
  await layer.exec(session, "echo hi > f.txt");
  firstCall.push(performance.now() - t);
}
const perSessionKb = ((heapMb() - baseline) * 1024) / SESSIONS;

const s = sessions[0]!;
const lines = {
  "echo hi": "echo hi",
  "cat a saved file": "cat f.txt",
  "notes call list_notes | jq": "notes call list_notes | jq -r '.result.notes[].title'",
  "seq 1 5000 | sort -rn | head -3": "seq 1 5000 | sort -rn | head -3",
};
const latency: Record<string, string> = {};
for (const [label, line] of Object.entries(lines)) {
  const times: number[] = [];
  for (let i = 0; i < 30; i++) {
    t = performance.now();
    await layer.exec(s, line);
    times.push(performance.now() - t);
  }
  latency[label] = `${median(times).toFixed(2)} ms`;
}

for (const session of sessions) await closeSession(session);
sessions.length = 0;
const afterClose = heapMb();
await runtime.close();

console.log(
  JSON.stringify(
    {
      node: process.version,
      justBashImportMs: Number(importMs.toFixed(1)),
      sessions: SESSIONS,
      firstCommandPerSessionMs: { median: Number(median(firstCall).toFixed(2)), max: Number(Math.max(...firstCall).toFixed(2)) },
      retainedHeapPerSessionKb: gc ? Number(perSessionKb.toFixed(1)) : "run with --expose-gc",
      heapAfterClosingAllMbOverBaseline: gc ? Number((afterClose - baseline).toFixed(2)) : undefined,
      medianLatency: latency,
    },
    null,
    2,
  ),
);
