import type { Logger } from "../adapters/types.js";
import { beginExit, killAllGroups } from "../adapters/shared/process-groups.js";

/**
 * One graceful exit for every transport: on SIGINT, SIGTERM, SIGHUP (or whatever the transport
 * adds), run `close` once and exit 0. SIGHUP is what a closing terminal sends its processes: left
 * to Node's default it ends the process without an 'exit' event, so the downstream process groups
 * (process-groups.ts) would be left running with parent pid 1. A stuck adapter must never keep the
 * process alive, so the exit is forced after `graceMs` whatever happens (the 'exit' handler then
 * SIGKILLs every group still tracked).
 *
 * The handlers stay for the life of the process: a signal while the shutdown runs (Ctrl-C pressed
 * twice, a supervisor or the SDK's StdioClientTransport sending SIGTERM after closing stdin) must
 * not meet Node's default, which ends the process at once without an 'exit' event, so calls in
 * flight got no answer and every downstream group was left running. It cuts the shutdown short
 * instead (`hurry`).
 */

/** The HTTP server's bound on its close, after its drain. */
export const SHUTDOWN_GRACE_MS = 5000;

/**
 * The stdio server's bound on its whole shutdown: inside the 2 s after which the SDK's
 * StdioClientTransport sends SIGTERM (and SIGKILL 2 s later, which nothing survives to clean up).
 * Its downstream groups take at most EXITING_KILL_GRACE_MS (process-groups.ts) to stop.
 */
export const STDIO_SHUTDOWN_GRACE_MS = 1500;

/** How long a repeated signal waits for the interrupted answers to be handed over before it exits. */
const HURRY_FLUSH_MS = 1000;

/** JSON-RPC's server-error range: the code of a request answered as interrupted by a shutdown. */
export const INTERRUPTED_CODE = -32000;

/**
 * What a shutdown tells its clients about where to go, by what shut down: an instance of a team
 * gateway sits behind a load balancer that sends the next request to another instance; a one-user
 * server (stdio or HTTP) has nobody to take over until it is started again.
 */
export interface ShutdownWords {
  /** "instance" or "server", as in "this instance shut down". */
  who: string;
  /** Where an interrupted read may be sent again. */
  readAgain: string;
  /** Where a request refused during the drain should go. */
  retry: string;
}

export function shutdownWords(behindBalancer: boolean): ShutdownWords {
  return behindBalancer
    ? { who: "instance", readAgain: "(the load balancer sends it to another instance)", retry: "(the load balancer sends you to another instance)" }
    : { who: "server", readAgain: "once the server is started again", retry: "once the server is started again" };
}

/**
 * What a request still running at a shutdown is told: what happened, that its effect is unknown,
 * what to do.
 */
export function interruptedMessage(why: string, words: ShutdownWords): string {
  return (
    `this ${words.who} shut down (${why}) while the request was running: it was stopped before it answered, so whether it took effect is unknown. ` +
    `A read can be sent again ${words.readAgain}; for a call that changes data, first check whether it took effect (read what it would have changed), and send it again only if it did not`
  );
}

export interface GracefulExit {
  /** The orderly shutdown: drain, answer what still runs, close sessions and adapters. */
  close(why: string): Promise<void>;
  /**
   * A signal came while `close` runs: answer every request still running as interrupted (the
   * answers written before this returns; resolved once they are handed over). Every downstream
   * group is SIGKILLed right after it is called, then the process exits.
   */
  interrupt(why: string): Promise<unknown>;
  /** The longest `close` may take before the exit is forced. */
  graceMs: number;
}

export function exitGracefully(log: Logger, exit: GracefulExit): (why: string) => Promise<void> {
  let closing = false;
  let hurrying = false;
  const shutdown = async (why: string): Promise<void> => {
    if (closing) return;
    closing = true;
    // From here downstream servers are stopped fast (process-groups.ts): the client may not wait.
    beginExit();
    log.debug(`shutting down (${why})`);
    const started = Date.now();
    // The exit is an operator's line (when did the instance go, and did it finish its shutdown).
    const force = setTimeout(() => {
      log.warn(`exiting (${why}): the shutdown did not finish within ${exit.graceMs} ms; exiting anyway`);
      process.exit(0);
    }, exit.graceMs);
    force.unref();
    await exit.close(why).catch((error: unknown) => log.warn(`shutdown: ${error instanceof Error ? error.message : String(error)}`));
    log.info(`exiting (${why}) after a shutdown of ${Date.now() - started} ms`);
    process.exit(0);
  };
  const hurry = async (signal: string): Promise<void> => {
    if (hurrying) return;
    hurrying = true;
    log.warn(`${signal} while shutting down: stopping every downstream process at once (SIGKILL) and exiting`);
    const answered = exit.interrupt(signal).catch(() => undefined);
    killAllGroups();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([answered, new Promise<void>((resolve) => (timer = setTimeout(resolve, HURRY_FLUSH_MS)))]);
    clearTimeout(timer);
    process.exit(0);
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => void (closing ? hurry(signal) : shutdown(signal)));
  return shutdown;
}
