import v8 from "node:v8";
import { isOffValue } from "./env-switch.js";

/**
 * A stdio server's young generation kept at V8's first size (one 1 MiB semi-space pair) instead
 * of letting it grow to 8 MiB per semi-space.
 *
 * Why: V8 grows the young generation as soon as enough objects survive its scavenges, and a
 * start (config, plugins, catalogs restored or listed, the MCP client package on a cold cache)
 * is exactly that. Once grown, a semi-space stays committed: about 7.5 MiB of an idle server's
 * resident memory held by an empty nursery (heap spaces, bench/perf.ts --only rss), more than
 * the runtime's own live heap. Kept small, the process sits 4–6 MiB lower at idle; a call
 * allocates ~20 KB, so a 1 MiB nursery is scavenged every ~50 calls, each scavenge short (the
 * echo row, bench/perf.ts --only echo, measured no slower). Long-lived objects reach the old
 * generation sooner, which the old generation's own collector handles.
 *
 * How: `--max-semi-space-size` is read only when the heap is set up, so it cannot be changed from
 * inside; the growth factor is read every time V8 decides to grow, so setting it to 1 here, before
 * the runtime starts, stops the growth (Node documents `v8.setFlagsFromString` after start as
 * "may simply do nothing": test/lean-heap.test.ts checks on a running server that it applies).
 * V8 puts the factor back to 2 each time it sets up an isolate: given on node's command line it
 * has no effect, and a worker thread's start (the sentence model's, on the first search) lets the
 * young generation grow again; such a process holds the model's 100+ MiB by then.
 *
 * Not applied when the user chose the young generation's size themselves (`--max-semi-space-size`,
 * `--min-semi-space-size` or `--semi-space-growth-factor` in the node flags or NODE_OPTIONS), or
 * with AGENT_TOOLS_LEAN_HEAP=off. The HTTP server (many clients, throughput first) keeps V8's
 * defaults.
 */

const LEAN_HEAP_FLAG = "--semi-space-growth-factor=1";

const YOUNG_GENERATION_FLAG = /^--(max|min)[-_]semi[-_]space[-_]size\b|^--semi[-_]space[-_]growth[-_]factor\b/;

/** Whether the flags node was started with already size the young generation. */
export function youngGenerationChosen(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  return [...execArgv, ...(nodeOptions ?? "").split(/\s+/)].some((flag) => YOUNG_GENERATION_FLAG.test(flag));
}

/** Keep the young generation small for the rest of this process's life; says whether it did. */
export function keepYoungGenerationSmall(env: NodeJS.ProcessEnv = process.env, execArgv: readonly string[] = process.execArgv): boolean {
  if (isOffValue(env.AGENT_TOOLS_LEAN_HEAP) || youngGenerationChosen(execArgv, env.NODE_OPTIONS)) return false;
  v8.setFlagsFromString(LEAN_HEAP_FLAG);
  return true;
}
