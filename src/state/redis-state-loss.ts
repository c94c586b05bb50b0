import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { Logger } from "../adapters/types.js";
import type { StateLoss } from "./types.js";

/**
 * Telling that Redis lost the fleet's data (restarted without persistence, or flushed) while this
 * instance ran. Heartbeats and records vanish with it, and the instances that own them are still
 * alive: read naively, an empty Redis says every other instance died and every workspace expired.
 *
 * A marker (`<prefix>state-epoch`, no expiry) is set once by the first instance; each instance
 * remembers its value. The value starts with the time it was set (Redis's clock, ms): an instance
 * that starts on a Redis emptied a moment ago learns the new marker at once and so never sees the
 * loss itself, yet the fleet's owners may still be writing back; a marker younger than one
 * heartbeat TTL tells it so. Missing (wiped) or another value (another instance found it wiped first and
 * set a new one) means the state was lost since this instance last looked. It looks at every
 * heartbeat, when its connection comes back, and whenever a request finds a heartbeat or record
 * missing — then it beats at once and tells its listeners, which write back what this instance
 * owns (its workspace records, its running jobs).
 */

const MARKER = "state-epoch";
/** How often a reader looks again for what a live owner is writing back. */
const POLL_MS = 100;

export interface StateLossOptions {
  redis: Redis;
  /** The key prefix (`agent-tools:`). */
  prefix: string;
  instanceId: string;
  /** Writes this instance's heartbeat. */
  beat: () => Promise<unknown>;
  /** How long after a loss the fleet's owners may still be writing back: one heartbeat TTL (they beat every third of it). */
  windowMs: number;
  log: Logger;
  now?: () => number;
}

export interface StateLossWatch extends StateLoss {
  /** Learn the marker at start (SET NX: of instances starting together, one value is stored). */
  start(): Promise<void>;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function watchStateLoss(options: StateLossOptions): StateLossWatch {
  const { redis, windowMs, log } = options;
  const now = options.now ?? Date.now;
  const key = `${options.prefix}${MARKER}`;
  const listeners = new Set<() => unknown>();
  let known: string | undefined;
  let lostAt: number | undefined;
  /** When the marker this instance knows was set, on this process's clock; undefined when its value names no time (set by an older version). */
  let markerSetAt: number | undefined;
  let running: Promise<boolean> | undefined;

  const redisNow = async (): Promise<number> => {
    const [seconds, micros] = await redis.time();
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  };

  /** The stored marker, set to a new value when it is missing; undefined when a flush raced the two commands. */
  async function stored(): Promise<string | undefined> {
    const made = `${await redisNow()}:${randomUUID()}`;
    if ((await redis.set(key, made, "NX")) === "OK") return made;
    return (await redis.get(key)) ?? undefined;
  }

  /** Take `value` as the known marker, and note when it was set (its age by Redis's clock, so the instances' clocks need not agree). */
  async function learn(value: string | undefined): Promise<void> {
    known = value;
    const setAt = Number(value?.split(":")[0]);
    markerSetAt = value !== undefined && Number.isSafeInteger(setAt) && setAt > 0 ? now() - Math.max(0, (await redisNow()) - setAt) : undefined;
  }

  /** Whether the state may have been lost within one heartbeat TTL: this instance saw it, or the marker it knows was set that recently (set anew after a loss, or by a fleet's first instance). */
  const lossMayBeRecent = (): boolean => [lostAt, markerSetAt].some((at) => at !== undefined && now() - at <= windowMs);

  async function once(): Promise<boolean> {
    const value = (await redis.get(key)) ?? (await stored());
    if (value === undefined || value === known) return false;
    lostAt = now();
    // The heartbeat first: a reader that sees a written-back record then sees its owner alive.
    await options.beat();
    const results = await Promise.allSettled([...listeners].map(async (listener) => listener()));
    const failed = results.find((result): result is PromiseRejectedResult => result.status === "rejected");
    if (failed) {
      // The marker is not taken as known yet: the next check finds the loss again and writes everything back again.
      log.warn(`gateway instance '${options.instanceId}': Redis lost the fleet's shared state, and writing back what this instance holds failed (${(failed.reason as Error).message}); it tries again at the next heartbeat`);
      return true;
    }
    await learn(value);
    log.warn(
      `gateway instance '${options.instanceId}': Redis lost the fleet's shared state (restarted without persistence, or flushed); this instance wrote back its heartbeat and the records of the workspaces and running jobs it holds. Finished jobs' records, spent confirmations, rate counts, the audit stream, OAuth token sets and cached catalogs are gone. Run Redis with appendonly yes`,
    );
    return true;
  }

  const check = (): Promise<boolean> => (running ??= once().finally(() => (running = undefined)));

  return {
    async start() {
      await learn(await stored());
    },
    lostAt: () => lostAt,
    check,
    onLoss(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    async waitForRewrite(read) {
      const found = await check();
      if (!found && !lossMayBeRecent()) return undefined;
      const deadline = Date.now() + windowMs;
      while (Date.now() < deadline) {
        await sleep(POLL_MS);
        const value = await read();
        if (value !== undefined && value !== null) return value;
      }
      return undefined;
    },
  };
}
