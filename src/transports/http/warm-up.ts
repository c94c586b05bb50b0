import type { Runtime } from "../../runtime/runtime.js";
import { loadTokenCounter } from "../../runtime/search-answer.js";
import { isOffValue } from "../../env-switch.js";
import { loadJustBash } from "../../text/sandbox.js";

/**
 * What every process loads on first use, done as the HTTP server starts rather than inside the
 * first requests: the search model (in its own thread) and the catalog's embeddings, the shell
 * (just-bash), the o200k tokenizer. With many sessions arriving at once, the first searches
 * otherwise all waited for the model, and the first command lines for the shell's import, whose
 * many small steps each queued behind every other request (issue #15: 8-12 s for the first wave
 * under 200 sessions). The shell and tokenizer are imported before listening (warmUpImports), the
 * model after, in its thread. One at a time, so the warm-up itself is no burst. AGENT_TOOLS_WARM_UP=off
 * skips it (a server that only relays calls, or tests that start many servers).
 */

const WARM_UP_ENV = "AGENT_TOOLS_WARM_UP";

function warmUpDisabled(env: NodeJS.ProcessEnv): boolean {
  return isOffValue(env[WARM_UP_ENV]);
}

/**
 * The shell and the tokenizer, imported before the server listens (a few hundred ms once): imported
 * after, their many small steps queue behind every request of a first wave, and every session's
 * first command line waited for them (issue #15, 200 sessions: exec p99 3 s instead of 1.5 s).
 * A failure is only noted: the request that needs the module reports it with its own hint.
 */
export async function warmUpImports(runtime: Runtime, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  if (warmUpDisabled(env)) return [];
  const steps: [string, () => Promise<unknown>][] = [
    ["shell", loadJustBash],
    ["tokenizer", loadTokenCounter],
  ];
  const failed: string[] = [];
  for (const [name, step] of steps) {
    try {
      await step();
    } catch (error) {
      failed.push(`${name} (${(error as Error).message.split("\n")[0]})`);
    }
  }
  if (failed.length) runtime.log.warn(`warm-up: could not load ${failed.join(", ")}`);
  return failed;
}

/** The search model (in its thread) and the catalog's embeddings, in the background once the server listens (after warmUpImports). */
export async function warmUp(runtime: Runtime, env: NodeJS.ProcessEnv = process.env, startedAt = performance.now()): Promise<void> {
  if (warmUpDisabled(env)) return;
  await (runtime.index.warm?.() ?? Promise.resolve());
  runtime.log.debug(`warm-up done in ${Math.round(performance.now() - startedAt)} ms`);
}
