import os from "node:os";
import { createBm25fIndex } from "../src/runtime/search/bm25f.js";
import { percentile } from "../src/runtime/search/evaluate.js";
import { createMiniSearchIndex } from "../src/runtime/search/minisearch-index.js";
import type { SearchDocument, ToolIndex } from "../src/runtime/search/types.js";
import { synthetic, syntheticQueries } from "./synthetic-catalog.js";

/**
 * Scale benchmark: synthetic catalogs of 1,000 / 10,000 / 100,000 tools, generated
 * deterministically by recombining the GitHub catalog's words (a seeded PRNG), 50 tools a plugin.
 * Prints index build time, memory held by the index (V8 heap plus typed-array buffers) and query
 * p50/p95 for each engine.
 * Run: node --expose-gc --import tsx bench/scale.ts
 */

function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

/** Memory in use after collecting garbage; the pause lets freed array buffers be released. */
async function heap(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  await new Promise((resolve) => setTimeout(resolve, 50));
  gc?.();
  // Typed arrays live outside the V8 heap (`external`), so both count.
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}

const engines: [string, () => ToolIndex][] = [
  ["bm25f", () => createBm25fIndex()],
  ["minisearch", () => createMiniSearchIndex()],
];
if (!(globalThis as { gc?: unknown }).gc) console.log("(run with node --expose-gc for exact heap figures)");
console.log(`load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs; CPU ms (user + system) is what the work cost, wall ms what it took`);
console.log("tools     engine       build wall ms  build CPU ms   mem MB    query p50 ms   p95 ms   query CPU p50 ms   p95 ms");
for (const size of [1_000, 10_000, 100_000]) {
  const groups = synthetic(size);
  const queries = syntheticQueries(300);
  for (const [label, make] of engines) {
    const r = await measure(make, groups, queries, size);
    console.log(
      `${String(size).padEnd(9)} ${label.padEnd(12)} ${r.buildMs.toFixed(0).padStart(13)}  ${r.buildCpuMs.toFixed(0).padStart(12)}   ${r.heapMb.toFixed(1).padStart(7)}   ${r.p50.toFixed(2).padStart(12)}   ${r.p95.toFixed(2).padStart(6)}   ${r.cpuP50.toFixed(2).padStart(16)}   ${r.cpuP95.toFixed(2).padStart(6)}`,
    );
  }
}

/** One engine at one size, in its own frame so the previous index is garbage before the next is measured. */
async function measure(make: () => ToolIndex, groups: Map<string, SearchDocument[]>, queries: string[], size: number) {
  const before = await heap();
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  const index = make();
  for (const [plugin, docs] of groups) index.setPluginDocuments(plugin, docs);
  const buildCpuMs = cpuMs(process.cpuUsage(cpuStart));
  const buildMs = performance.now() - started;
  const heapMb = ((await heap()) - before) / 1024 / 1024;
  for (const q of queries.slice(0, 20)) index.search(q, { limit: 10 }); // warm-up
  const cpuTimes: number[] = [];
  const times = queries.map((q) => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    index.search(q, { limit: 10 });
    const wall = performance.now() - t0;
    cpuTimes.push(cpuMs(process.cpuUsage(c0)));
    return wall;
  });
  if (index.size() !== size) throw new Error(`index holds ${index.size()} documents, expected ${size}`);
  return { buildMs, buildCpuMs, heapMb, p50: percentile(times, 50), p95: percentile(times, 95), cpuP50: percentile(cpuTimes, 50), cpuP95: percentile(cpuTimes, 95) };
}
