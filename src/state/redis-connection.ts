import type { Redis } from "ioredis";
import type { Logger } from "../adapters/types.js";
import { SharedStateError } from "./types.js";

/**
 * What the Redis backend does about an outage, for every connection it opens (commands, pub/sub,
 * audit followers): an `error` handler on each (without one ioredis prints "Unhandled error event"
 * with a stack on every reconnect attempt), one warning when an outage starts and one line when the
 * connection is back; and a failed command turned into a SharedStateError the client can act on,
 * instead of ioredis's own words ("Reached the max retries per request limit …").
 */

/** Log an outage of `connection` once (not per retry), and say when it comes back. */
export function watchConnection(connection: Redis, label: string, log: Logger): void {
  let down = false;
  connection.on("error", (error: Error) => {
    if (down) return;
    down = true;
    log.warn(`${label}: unreachable (${error.message}); reconnecting, and requests that need the shared state answer that it is unreachable until it is back`);
  });
  connection.on("ready", () => {
    if (!down) return;
    down = false;
    log.info(`${label}: reachable again`);
  });
}

/** Errors of the connection rather than of the command: the server could not be asked. */
function unreachable(error: Error): boolean {
  return error.name === "MaxRetriesPerRequestError" || /Connection is closed|Stream isn't writeable|Command timed out|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN|connect/i.test(error.message);
}

/** A Redis failure as the error a client sees; other errors (the caller's own) pass unchanged. */
export function stateFailure(error: unknown, where: string): unknown {
  if (!(error instanceof Error) || error instanceof SharedStateError) return error;
  if (unreachable(error)) return new SharedStateError(`the gateway's shared state (Redis at ${where}) is unreachable right now`);
  if (error.name === "ReplyError") return new SharedStateError(`the gateway's shared state (Redis at ${where}) refused a command: ${error.message}`);
  return error;
}

/**
 * `part` with each method's failure passed through stateFailure. Only for parts whose methods run
 * Redis commands and no caller code (not Locks: withLock runs the caller's work, whose errors are its own).
 */
export function guardedPart<T extends object>(part: T, where: string): T {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(part)) {
    if (typeof value !== "function") {
      out[name] = value;
      continue;
    }
    out[name] = (...args: unknown[]): unknown => {
      const result: unknown = (value as (...a: unknown[]) => unknown).apply(part, args);
      return result instanceof Promise ? result.catch((error: unknown) => Promise.reject(stateFailure(error, where))) : result;
    };
  }
  return out as T;
}
