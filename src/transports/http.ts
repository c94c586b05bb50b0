import type { Runtime } from "../runtime/runtime.js";
import { HttpOptionsError, type HttpOptions } from "./http/options.js";
import { startHttpFacade, type HttpFacade } from "./http/server.js";
import { exitGracefully } from "./shutdown.js";

/**
 * The facade over Streamable HTTP for the life of the process: listen, say where on stderr, and
 * on a signal close every session, then every adapter (and its downstream processes), and exit 0.
 */
export async function serveHttp(runtime: Runtime, options: HttpOptions): Promise<HttpFacade> {
  let facade: HttpFacade;
  try {
    facade = await startHttpFacade(runtime, options, runtime.log);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EADDRINUSE" && code !== "EACCES" && code !== "EADDRNOTAVAIL") throw error;
    await runtime.close();
    const why =
      code === "EADDRINUSE"
        ? `port ${options.port} on ${options.host} is already in use (another agent-tools-mcp-http?); stop what holds it, or pick another with --port PORT or AGENT_TOOLS_HTTP_PORT (0 picks a free one)`
        : code === "EACCES"
          ? `no permission to listen on port ${options.port} of ${options.host}; use a port above 1023 with --port`
          : `cannot listen on ${options.host}: it is not an address of this machine; use --host 127.0.0.1`;
    throw new HttpOptionsError(why);
  }
  exitGracefully(runtime.log, async (why) => {
    await facade.close(why);
    await runtime.close();
  });
  runtime.log.info(`serving ${runtime.plugins.length} plugin(s) over HTTP at ${facade.url}${options.token ? " (bearer token required)" : ""}`);
  return facade;
}
