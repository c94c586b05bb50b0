import type { Runtime } from "../runtime/runtime.js";
import type { HttpOptions } from "./http/options.js";
import { startHttpFacade, type HttpFacade } from "./http/server.js";
import { exitGracefully } from "./shutdown.js";

/**
 * The facade over Streamable HTTP for the life of the process: listen, say where on stderr, and
 * on a signal close every session, then every adapter (and its downstream processes), and exit 0.
 */
export async function serveHttp(runtime: Runtime, options: HttpOptions): Promise<HttpFacade> {
  const facade = await startHttpFacade(runtime, options, runtime.log);
  exitGracefully(runtime.log, async (why) => {
    await facade.close(why);
    await runtime.close();
  });
  runtime.log.info(`serving ${runtime.plugins.length} plugin(s) over HTTP at ${facade.url}${options.token ? " (bearer token required)" : ""}`);
  return facade;
}
