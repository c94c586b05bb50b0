import type { Logger } from "../adapters/types.js";

/**
 * One graceful exit for every transport: on SIGINT, SIGTERM, SIGHUP (or whatever the transport
 * adds), run `close` once and exit 0. SIGHUP is what a closing terminal sends its processes: left
 * to Node's default it ends the process without an 'exit' event, so the downstream process groups
 * (process-groups.ts) would be left running with parent pid 1. A stuck adapter must never keep the process alive, so the exit
 * is forced after SHUTDOWN_GRACE_MS whatever happens.
 */

export const SHUTDOWN_GRACE_MS = 5000;

/** JSON-RPC's server-error range: the code of a request answered as interrupted by a shutdown. */
export const INTERRUPTED_CODE = -32000;

/**
 * What a request still running at a shutdown is told: what happened, that its effect is unknown,
 * what to do. `who` is what shut down ("instance" behind a balancer, "server" over stdio) and
 * `readAgain` where a read may be sent again.
 */
export function interruptedMessage(why: string, who: string, readAgain: string): string {
  return (
    `this ${who} shut down (${why}) while the request was running: it was stopped before it answered, so whether it took effect is unknown. ` +
    `A read can be sent again ${readAgain}; for a call that changes data, first check whether it took effect (read what it would have changed), and send it again only if it did not`
  );
}

export function exitGracefully(log: Logger, close: (why: string) => Promise<void>, graceMs: number = SHUTDOWN_GRACE_MS): (why: string) => Promise<void> {
  let closing = false;
  const shutdown = async (why: string): Promise<void> => {
    if (closing) return;
    closing = true;
    log.debug(`shutting down (${why})`);
    const force = setTimeout(() => process.exit(0), graceMs);
    force.unref();
    await close(why).catch((error: unknown) => log.warn(`shutdown: ${error instanceof Error ? error.message : String(error)}`));
    process.exit(0);
  };
  process.once("SIGINT", () => void shutdown("SIGINT"));
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGHUP", () => void shutdown("SIGHUP"));
  return shutdown;
}
