import { serveStdio as serveStdioEntry } from "@modelcontextprotocol/server/stdio";
import type { Server } from "@modelcontextprotocol/server";
import { announceToolsChanged, createFacade } from "../facade/server.js";
import type { Runtime } from "../runtime/runtime.js";
import { closeSession } from "../runtime/session.js";
import { exitGracefully, interruptedMessage, shutdownWords, STDIO_SHUTDOWN_GRACE_MS } from "./shutdown.js";
import { BatchedStdioServerTransport } from "./stdio-wire.js";
import { createFastLane, fastLaneEnabled } from "../facade/fast-lane.js";
import { refuseModernRequests } from "./stdio-era.js";

const STDIN_CLOSED = "stdin closed";
/** The longest the opening exchange waits for the catalog cache to be read (a slow disk must not hold it). */
const RESTORE_WAIT_MS = 1000;

/**
 * The facade over stdio, both protocol eras: the SDK's serveStdio fixes the era at the first
 * request other than `server/discover` (a stateless probe either era may send first): `initialize`
 * or a request without the 2026-07-28 envelope makes the connection 2025-era, a request with it
 * 2026-07-28; one facade server is pinned to the connection. A request of the other era after that
 * is refused naming the mismatch (era-mismatch.ts; stdio-era.ts, stdio-wire.ts). One runtime session for the life of the process, whatever the era. stdout
 * carries only MCP messages; logs go to stderr. The process ends when the client closes stdin or
 * on a signal, closing every adapter (and so every downstream process) first; on a signal, the
 * requests still running are first answered as interrupted (stdio-wire.ts).
 */
export async function serveStdio(runtime: Runtime): Promise<void> {
  const session = runtime.createSession("stdio");
  const facade = createFacade(runtime);
  // The factory also runs for a discover probe that a falling-back client then abandons; tool
  // changes go to whichever instance is connected last (announce skips one without a transport).
  let current: Server | undefined;
  const unsubscribe = runtime.onToolsChanged((prefix) => {
    if (current) announceToolsChanged(current, prefix);
  });
  const wire = new BatchedStdioServerTransport();
  const onerror = (error: Error): void => runtime.log.debug(`stdio: ${error.message}`);
  if (fastLaneEnabled()) {
    // Plain facade tools/calls are answered without the SDK's per-request machinery (fast-lane.ts).
    wire.lane = createFastLane({ server: () => current, reply: (response) => wire.send(response), toSdk: (message) => wire.onmessage?.(message), onerror });
  }
  const handle = serveStdioEntry(
    async ({ era }) => {
      // The instructions answered now name each plugin with what it is about: an mcpServers entry
      // without a description has it from its cached catalog, read back in milliseconds at start.
      await runtime.catalogsRestored(RESTORE_WAIT_MS);
      current = facade.server({ session: () => session });
      // A legacy instance is made only when the SDK pinned the connection to the 2025 era.
      if (era === "legacy") refuseModernRequests(current);
      return current;
    },
    { transport: wire, onerror },
  );
  /** Why the shutdown began, once it has: after the client left (stdin closed) nobody reads an answer. */
  let leftFor: string | undefined;
  const words = shutdownWords(false);
  // A signal with calls running: each is answered, as over HTTP, before the adapters close under it.
  const answerRunning = async (why: string): Promise<void> => {
    if (leftFor === STDIN_CLOSED) return;
    const interrupted = await wire.interruptOpen(interruptedMessage(why, words));
    if (interrupted) runtime.log.warn(`shutting down (${why}): ${interrupted} request(s) still running were answered as interrupted; their effect is unknown`);
  };
  const shutdown = exitGracefully(runtime.log, {
    graceMs: STDIO_SHUTDOWN_GRACE_MS,
    interrupt: answerRunning,
    close: async (why) => {
      leftFor = why;
      unsubscribe();
      await answerRunning(why);
      if (wire.lane) runtime.log.debug(`fast lane: ${wire.lane.counts.taken} tools/call taken, ${wire.lane.counts.handedOver} of them handed to the SDK`);
      await handle.close().catch(() => undefined);
      await closeSession(session);
      await runtime.close();
    },
  });
  process.stdin.once("end", () => void shutdown(STDIN_CLOSED));
  process.stdin.once("close", () => void shutdown(STDIN_CLOSED));
  // A client that closed its end of stdout (but not of stdin) reads no answer any more: it left,
  // as if it had closed stdin; running its requests on would act for nobody.
  const stdoutGone = (detail: string): void => {
    if (leftFor !== undefined) return;
    runtime.log.warn(`stdout was closed by the client (${detail}); shutting down as the client left`);
    void shutdown(STDIN_CLOSED);
  };
  process.stdout.once("error", (error: NodeJS.ErrnoException) => stdoutGone(error.code ?? error.message));
  process.stdout.once("close", () => stdoutGone("closed"));
  runtime.log.info(`serving ${runtime.plugins.length} plugin(s) over stdio (MCP 2026-07-28 and 2025 eras)`);
}
