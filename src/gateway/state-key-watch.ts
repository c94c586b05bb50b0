import { randomBytes } from "node:crypto";
import type { Logger } from "../adapters/types.js";
import { adoptStateKey, parseStateKey, stateKey } from "../runtime/state-key.js";
import type { SharedState } from "../state/types.js";

/**
 * One signing key for a fleet that did not get one from its operator (AGENT_TOOLS_STATE_KEY).
 * Workspace handles and confirmation states are signed with it, and instances behind one balancer
 * must share it. The first instance makes one and puts it in Redis (`kv:state-key`); the others
 * read it (whoever can read Redis can already change every job and token, so the key adds no new
 * exposure there).
 *
 * Redis restarted without its data loses the key, and a new instance would then make another while
 * the running ones kept theirs: a fleet split in two, each half refusing the other's handles. So a
 * running instance keeps checking — when its connection comes back and at every heartbeat's pace:
 *   - the key is missing: it puts its own back (SET NX: the first of the fleet to do so wins);
 *   - another key is there (an instance that started meanwhile made it, or another won the race):
 *     it adopts that key for new signatures, still accepts what it signed with its own
 *     (state-key.ts keeps earlier keys), and says so once.
 * Whatever the order of restarts, the fleet ends on the one key in Redis.
 */

const KV_NAME = "state-key";
/** How the stored key is named in errors and warnings. */
const STORED = "the fleet's signing key in Redis (kv:state-key)";

export interface StateKeyWatch {
  /** Check now (tests, and the timer's and reconnect's tick). */
  check(): Promise<void>;
  stop(): void;
}

/** The key the fleet signs with, made and stored when Redis holds none. Sets `env.AGENT_TOOLS_STATE_KEY`; call before anything signs. */
export async function shareStateKey(state: SharedState, env: NodeJS.ProcessEnv): Promise<void> {
  const made = randomBytes(32).toString("hex");
  // SET NX: of instances starting together on an empty Redis, exactly one key is stored.
  const stored = (await state.kv.setIfAbsent(KV_NAME, made)) ? made : await state.kv.get(KV_NAME);
  // Deleted between the two commands (a flush): this instance's own key goes in, the watch re-publishes it.
  const key = stored ?? made;
  parseStateKey(key, STORED);
  env.AGENT_TOOLS_STATE_KEY = key;
}

/** Keep this instance on the key stored in Redis (see the top of this file). `everyMs`: the periodic check. */
export function watchStateKey(state: SharedState, log: Logger, everyMs: number): StateKeyWatch {
  let running: Promise<void> | undefined;
  let warnedMalformed = false;
  const own = (): string => stateKey().toString("hex");

  async function once(): Promise<void> {
    let stored = await state.kv.get(KV_NAME);
    if (stored === undefined) {
      if (await state.kv.setIfAbsent(KV_NAME, own())) {
        log.warn(
          `gateway instance '${state.instanceId}': ${STORED} was missing — Redis lost its data (restarted without persistence, or flushed), and with it what it held for the fleet (running instances write back their heartbeats and the records of their workspaces and running jobs; finished jobs, spent confirmations, rate counts, the audit stream, OAuth tokens and cached catalogs are gone); this instance put its key back so the fleet keeps one. Run Redis with appendonly yes, or set AGENT_TOOLS_STATE_KEY on every instance`,
        );
        return;
      }
      stored = await state.kv.get(KV_NAME);
      if (stored === undefined) return;
    }
    if (stored === own()) return;
    let key: Buffer;
    try {
      key = parseStateKey(stored, STORED);
    } catch (error) {
      if (!warnedMalformed) log.warn(`gateway instance '${state.instanceId}': ${(error as Error).message}; this instance keeps signing with its own key (delete the key in Redis to let the fleet store a good one)`);
      warnedMalformed = true;
      return;
    }
    warnedMalformed = false;
    if (!adoptStateKey(key)) return;
    log.warn(
      `gateway instance '${state.instanceId}': ${STORED} is not the one this instance signed with — two keys were in the fleet (Redis lost its data and another instance made a new key); this instance now signs with the stored key and still accepts its own earlier workspace handles and confirmations, which other instances refuse. Nothing to do now; to prevent it, run Redis with appendonly yes, or set AGENT_TOOLS_STATE_KEY to the same value on every instance`,
    );
  }

  // One check at a time; a failure is an outage, which the connection itself reports (redis-connection.ts).
  const check = (): Promise<void> => (running ??= once().catch(() => undefined).finally(() => (running = undefined)));
  const timer = setInterval(() => void check(), everyMs);
  timer.unref();
  const unsubscribe = state.onReconnect?.(() => void check());
  return {
    check,
    stop() {
      clearInterval(timer);
      unsubscribe?.();
    },
  };
}
