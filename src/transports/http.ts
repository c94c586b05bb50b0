import type { Gateway } from "../gateway/gateway.js";
import type { Runtime } from "../runtime/runtime.js";
import { HttpOptionsError, type HttpOptions } from "./http/options.js";
import { startHttpFacade, type HttpFacade } from "./http/server.js";
import { warmUp, warmUpImports } from "./http/warm-up.js";
import { exitGracefully, SHUTDOWN_GRACE_MS } from "./shutdown.js";
import { TIMER_MOST } from "../positive-int.js";
import { wholeMs } from "../setting-numbers.js";

/**
 * How long a draining instance waits for calls in flight (AGENT_TOOLS_DRAIN_MS): 30 s for a team
 * gateway behind a balancer; 2 s for a one-user server, where Ctrl-C should not hang on a stuck call.
 */
const DEFAULT_DRAIN_MS = { team: 30_000, single: 2000 } as const;

export function drainMs(env: NodeJS.ProcessEnv, team: boolean, log: { warn(message: string): void }): number {
  const raw = env.AGENT_TOOLS_DRAIN_MS?.trim();
  const fallback = team ? DEFAULT_DRAIN_MS.team : DEFAULT_DRAIN_MS.single;
  if (raw === undefined || raw === "") return fallback;
  const value = wholeMs(raw);
  if (value !== undefined) return value;
  // Said, as other settings are: a typo must not silently become the default.
  log.warn(`AGENT_TOOLS_DRAIN_MS must be a whole number of milliseconds, 0 or more and ${TIMER_MOST} (got '${raw}'); using ${fallback}`);
  return fallback;
}

/**
 * The facade over Streamable HTTP for the life of the process: listen, say where on stderr, and
 * on a signal drain — refuse new sessions with 503 (/readyz turns 503 so the balancer stops
 * sending), let the calls in flight finish (up to AGENT_TOOLS_DRAIN_MS) — then close every
 * session, every adapter (and its downstream processes), the shared state, and exit 0.
 */
export async function serveHttp(runtime: Runtime, options: HttpOptions, gateway?: Gateway): Promise<HttpFacade> {
  let facade: HttpFacade;
  const warmStarted = performance.now();
  await warmUpImports(runtime);
  try {
    facade = await startHttpFacade(runtime, options, runtime.log, gateway);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EADDRINUSE" && code !== "EACCES" && code !== "EADDRNOTAVAIL") throw error;
    await runtime.close();
    await gateway?.close();
    const why =
      code === "EADDRINUSE"
        ? `port ${options.port} on ${options.host} is already in use (another agent-tools-mcp-http?); stop what holds it, or pick another with --port PORT or AGENT_TOOLS_HTTP_PORT (0 picks a free one)`
        : code === "EACCES"
          ? `no permission to listen on port ${options.port} of ${options.host}; use a port above 1023 with --port`
          : `cannot listen on ${options.host}: it is not an address of this machine; use --host 127.0.0.1`;
    throw new HttpOptionsError(why);
  }
  const drain = gateway ? drainMs(process.env, gateway.team, runtime.log) : 0;
  exitGracefully(runtime.log, {
    close: async (why) => {
      if (gateway) {
        gateway.startDrain();
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
    graceMs: drain + SHUTDOWN_GRACE_MS,
  });
  const auth = options.token || gateway?.auth.required ? " (bearer token required)" : "";
  runtime.log.info(`serving ${runtime.plugins.length} plugin(s) over HTTP at ${facade.url}${auth}${gateway ? ` [instance ${gateway.state.instanceId}, state ${gateway.state.backend}${gateway.metricsUrl ? `, metrics ${gateway.metricsUrl}` : ""}]` : ""}`);
  // In the background: sessions are served meanwhile, and find the model and the shell loaded.
  void warmUp(runtime, process.env, warmStarted);
  return facade;
}
