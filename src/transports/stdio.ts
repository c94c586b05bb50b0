import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createFacadeServer } from "../facade/server.js";
import type { Runtime } from "../runtime/runtime.js";
import { closeSession } from "../runtime/session.js";
import { exitGracefully } from "./shutdown.js";

/**
 * The facade over stdio: one session for the life of the process. stdout carries only MCP
 * messages; logs go to stderr. The process ends when the client closes stdin or on a signal,
 * closing every adapter (and so every downstream process) first.
 */
export async function serveStdio(runtime: Runtime): Promise<void> {
  const session = runtime.createSession("stdio");
  const server = createFacadeServer({ runtime, session });
  const transport = new StdioServerTransport();
  const shutdown = exitGracefully(runtime.log, async () => {
    await server.close().catch(() => undefined);
    await closeSession(session);
    await runtime.close();
  });
  process.stdin.once("end", () => void shutdown("stdin closed"));
  process.stdin.once("close", () => void shutdown("stdin closed"));
  await server.connect(transport);
  runtime.log.info(`serving ${runtime.plugins.length} plugin(s) over stdio`);
}
