import type { Runtime } from "../../runtime/runtime.js";
import { loadTokenCounter } from "../../runtime/search-answer.js";
import { loadJustBash } from "../../text/sandbox.js";

/**
 * What every process loads on first use, done once the HTTP server listens rather than inside the
 * first requests: the search model (in its own thread) and the catalog's embeddings, the shell
 * (just-bash), the o200k tokenizer. With many sessions arriving at once, the first searches
 * otherwise all waited for the model, and the first command lines for the shell's import, whose
 * many small steps each queued behind every other request (issue #15: 8-12 s for the first wave
 * under 200 sessions). One at a time, so the warm-up itself is no burst. AGENT_TOOLS_WARM_UP=off
 * skips it (a server that only relays calls, or tests that start many servers).
 */

export const WARM_UP_ENV = "AGENT_TOOLS_WARM_UP";

export function warmUpDisabled(env: NodeJS.ProcessEnv): boolean {
  const value = env[WARM_UP_ENV]?.trim().toLowerCase();
  return value === "off" || value === "0" || value === "false" || value === "no";
}

export async function warmUp(runtime: Runtime, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (warmUpDisabled(env)) return;
  const started = performance.now();
  // The model loads in its thread while this one imports the rest.
  const search = runtime.index.warm?.() ?? Promise.resolve();
  const steps: [string, () => Promise<unknown>][] = [
    ["shell", loadJustBash],
    ["tokenizer", loadTokenCounter],
  ];
  const failed: string[] = [];
  for (const [name, step] of steps) {
    try {
      await step();
    } catch (error) {
      // The request that needs it reports the problem with its own hint; here it is only noted.
      failed.push(`${name} (${(error as Error).message.split("\n")[0]})`);
    }
  }
  await search;
  const ms = Math.round(performance.now() - started);
  if (failed.length) runtime.log.warn(`warm-up: could not load ${failed.join(", ")}`);
  runtime.log.debug(`warm-up done in ${ms} ms`);
}
