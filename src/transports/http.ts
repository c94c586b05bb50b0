import type { Gateway } from "../gateway/gateway.js";
import type { Runtime } from "../runtime/runtime.js";
import type { HttpOptions } from "./http/options.js";
import { listenProblem } from "./http/listen-problem.js";
import { startHttpFacade, type HttpFacade } from "./http/server.js";
import { warmUp, warmUpImports } from "./http/warm-up.js";
import { exitGracefully, SHUTDOWN_GRACE_MS } from "./shutdown.js";
import { TIMER_MOST } from "../positive-int.js";
import { wholeMs } from "../setting-numbers.js";

/**
 * The drain's two waits, each a whole number of milliseconds, by whether the server is a team
 * gateway (behind a balancer) or a one-user server:
 * - AGENT_TOOLS_DRAIN_DELAY_MS: how long new sessions and workspaces are still taken after
 *   /readyz turned 503, while the balancer notices (the README's HAProxy config checks every 1 s
 *   and takes an instance out after 3 failed checks: at most about 3 s, plus a check's own time
 *   on a busy host). Refused at once, new clients fail until then: the balancer keeps sending
 *   them here. 0 for a one-user server: nobody else could take them. Waited only when a balancer
 *   asked /readyz within the last minute: nothing else would notice.
 * - AGENT_TOOLS_DRAIN_MS: how long the calls in flight then get to finish: 30 s for a team
 *   gateway; 2 s for a one-user server, where Ctrl-C should not hang on a stuck call.
 */
const DRAIN_DEFAULTS = {
  AGENT_TOOLS_DRAIN_DELAY_MS: { team: 5000, single: 0 },
  AGENT_TOOLS_DRAIN_MS: { team: 30_000, single: 2000 },
} as const;

function drainSetting(name: keyof typeof DRAIN_DEFAULTS, env: NodeJS.ProcessEnv, team: boolean, log: { warn(message: string): void }): number {
  const raw = env[name]?.trim();
  const fallback = DRAIN_DEFAULTS[name][team ? "team" : "single"];
  if (raw === undefined || raw === "") return fallback;
  const value = wholeMs(raw);
  if (value !== undefined) return value;
  // Said, as other settings are: a typo must not silently become the default.
  log.warn(`${name} must be a whole number of milliseconds, 0 or more and ${TIMER_MOST} (got '${raw}'); using ${fallback}`);
  return fallback;
}

/** A /readyz request this recent means a balancer checks it, and the drain's delay applies (longer than any usual check interval). */
const READINESS_PROBED_WITHIN_MS = 60_000;

export function drainMs(env: NodeJS.ProcessEnv, team: boolean, log: { warn(message: string): void }): number {
  return drainSetting("AGENT_TOOLS_DRAIN_MS", env, team, log);
}

export function drainDelayMs(env: NodeJS.ProcessEnv, team: boolean, log: { warn(message: string): void }): number {
  return drainSetting("AGENT_TOOLS_DRAIN_DELAY_MS", env, team, log);
}

/**
 * The facade over Streamable HTTP for the life of the process: listen, say where on stderr, and
 * on a signal drain — /readyz turns 503 so the balancer stops sending, new sessions are still
 * taken until it has noticed (AGENT_TOOLS_DRAIN_DELAY_MS), then refused with 503, and the calls
 * in flight get to finish (up to AGENT_TOOLS_DRAIN_MS) — then close every
 * session, every adapter (and its downstream processes), the shared state, and exit 0.
 */
export async function serveHttp(runtime: Runtime, options: HttpOptions, gateway?: Gateway): Promise<HttpFacade> {
  let facade: HttpFacade;
  const warmStarted = performance.now();
  await warmUpImports(runtime);
  try {
    facade = await startHttpFacade(runtime, options, runtime.log, gateway);
  } catch (error) {
    const problem = listenProblem(error, { port: options.port, host: options.host, portSetting: "--port PORT or AGENT_TOOLS_HTTP_PORT", hostSetting: "--host or AGENT_TOOLS_HTTP_HOST", usual: "another agent-tools-mcp-http" });
    if (!problem) throw error;
    await runtime.close();
    await gateway?.close();
    throw problem;
  }
  const drain = gateway ? drainMs(process.env, gateway.team, runtime.log) : 0;
  const delay = gateway ? drainDelayMs(process.env, gateway.team, runtime.log) : 0;
  exitGracefully(runtime.log, {
    close: async (why) => {
      if (gateway) {
        // The delay is for a balancer's readiness check to notice: none asked /readyz lately (one
        // instance, a test, a balancer that does not check it), none is waited for.
        const probedAt = gateway.readinessProbedAt;
        const probed = probedAt !== undefined && Date.now() - probedAt <= READINESS_PROBED_WITHIN_MS;
        const wait = probed ? delay : 0;
        // An operator reads this line, not a debug one: what the drain waits for, and how long at most.
        const taken =
          wait > 0
            ? `new sessions and workspaces are still taken for ${wait} ms (AGENT_TOOLS_DRAIN_DELAY_MS) while the balancer notices, then refused`
            : `new sessions and workspaces are refused${delay > 0 ? ` (no AGENT_TOOLS_DRAIN_DELAY_MS wait: nothing asked /readyz in the last ${READINESS_PROBED_WITHIN_MS / 1000} s, so no balancer is there to notice)` : ""}`;
        runtime.log.info(`draining (${why}): /readyz answers 503 from now; ${taken}; ${facade.inFlight()} request(s) in flight and ${facade.sessions.size} session(s) open; the calls then get up to ${drain} ms (AGENT_TOOLS_DRAIN_MS) to finish, so the exit comes within ${wait + drain} ms`);
        await gateway.startDrain(wait);
        if (wait > 0) runtime.log.info(`draining (${why}): new sessions and workspaces are refused from now; ${facade.inFlight()} request(s) in flight`);
        const until = Date.now() + drain;
        while (facade.inFlight() > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
        if (facade.inFlight() > 0) runtime.log.warn(`drain: ${facade.inFlight()} request(s) still running after ${drain} ms; closing anyway: each is answered as interrupted, its effect unknown`);
      }
      await facade.close(why);
      await runtime.close();
      await gateway?.close();
    },
    // A second signal cuts the drain short: what still runs is answered now, not dropped.
    interrupt: (why) => facade.interrupt(why),
    graceMs: delay + drain + SHUTDOWN_GRACE_MS,
  });
  const auth = options.token || gateway?.auth.required ? " (bearer token required)" : "";
  runtime.log.info(`serving ${runtime.plugins.length} plugin(s) over HTTP at ${facade.url}${auth}${gateway ? ` [instance ${gateway.state.instanceId}, state ${gateway.state.backend}${gateway.metricsUrl ? `, metrics ${gateway.metricsUrl}` : ""}]` : ""}`);
  // In the background: sessions are served meanwhile, and find the model and the shell loaded.
  void warmUp(runtime, process.env, warmStarted);
  return facade;
}
