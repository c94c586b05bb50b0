import type { Logger } from "../adapters/types.js";

/**
 * One graceful exit for every transport: on SIGINT, SIGTERM (or whatever the transport adds),
 * run `close` once and exit 0. A stuck adapter must never keep the process alive, so the exit
 * is forced after SHUTDOWN_GRACE_MS whatever happens.
 */

export const SHUTDOWN_GRACE_MS = 5000;

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
  return shutdown;
}
