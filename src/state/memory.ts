import type { Counters, JobRecords, KeyValue, Locks, PubSub, SharedState, StoredJob, AuditLog } from "./types.js";
import { newInstanceId, SharedStateError } from "./types.js";

/**
 * The one-process backend: what every instance had before Redis, behind the shared interface so
 * the code above never asks which backend it runs on.
 */

export function createMemoryJobRecords(instanceId: string): JobRecords {
  // By scope and id: two scopes' jobs of one id must not overwrite each other (redis.ts says why).
  const byId = new Map<string, StoredJob>();
  const keyOf = (scope: string, id: string): string => `${scope}\n${id}`;
  const listeners = new Set<(id: string) => void>();
  return {
    async save(job) {
      // Re-inserted so that Map order stays "oldest started first" only for new ids.
      byId.set(keyOf(job.scope, job.status.id), structuredClone(job));
    },
    async load(scope, id) {
      const job = byId.get(keyOf(scope, id));
      return job ? structuredClone(job) : undefined;
    },
    async list(scope) {
      return [...byId.values()].filter((job) => job.scope === scope).reverse().map((job) => structuredClone(job));
    },
    async remove(scope, ids) {
      for (const id of ids) byId.delete(keyOf(scope, id));
    },
    async requestCancel(_owner, id) {
      for (const listener of listeners) listener(id);
    },
    onCancelRequest(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async isAlive(owner) {
      return owner === instanceId;
    },
  };
}

function createMemoryKeyValue(): KeyValue {
  const values = new Map<string, string>();
  /** When a value set with a ttl expires (ms since the epoch); read lazily. */
  const expiries = new Map<string, number>();
  const live = (key: string): string | undefined => {
    const until = expiries.get(key);
    if (until !== undefined && until <= Date.now()) {
      values.delete(key);
      expiries.delete(key);
    }
    return values.get(key);
  };
  return {
    async get(key) {
      return live(key);
    },
    async set(key, value) {
      values.set(key, value);
      expiries.delete(key);
    },
    async setIfAbsent(key, value, ttlMs) {
      if (live(key) !== undefined) return false;
      values.set(key, value);
      if (ttlMs !== undefined) expiries.set(key, Date.now() + ttlMs);
      return true;
    },
  };
}

/** In-process locks: a queue per name; a holder past its ttl no longer blocks the next one. */
function createMemoryLocks(): Locks {
  const tails = new Map<string, Promise<void>>();
  return {
    async withLock(name, work, options = {}) {
      const waitMs = options.waitMs ?? 30_000;
      const previous = tails.get(name) ?? Promise.resolve();
      let release!: () => void;
      const mine = new Promise<void>((resolve) => (release = resolve));
      const tail = previous.then(() => mine);
      tails.set(name, tail);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), waitMs)));
      const got = await Promise.race([previous.then(() => "ok" as const), timedOut]);
      clearTimeout(timer);
      if (got === "timeout") {
        release();
        throw new SharedStateError(`lock '${name}' was held by another caller for more than ${waitMs} ms; try again`);
      }
      try {
        return await work();
      } finally {
        release();
        if (tails.get(name) === tail) tails.delete(name);
      }
    },
  };
}

function createMemoryCounters(now: () => number = Date.now): Counters {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    async hit(key, windowMs) {
      const at = now();
      const start = at - (at % windowMs);
      const current = windows.get(key);
      const entry = current && current.start === start ? current : { start, count: 0 };
      entry.count += 1;
      windows.set(key, entry);
      // Old windows are dropped on the way, so the map holds one entry per active key.
      if (windows.size > 10_000) for (const [k, v] of windows) if (v.start !== start) windows.delete(k);
      return { count: entry.count, resetInMs: start + windowMs - at };
    },
  };
}

function createMemoryPubSub(): PubSub {
  const topics = new Map<string, Set<(message: string) => void>>();
  return {
    async publish(topic, message) {
      for (const listener of [...(topics.get(topic) ?? [])]) listener(message);
    },
    subscribe(topic, listener) {
      let set = topics.get(topic);
      if (!set) topics.set(topic, (set = new Set()));
      set.add(listener);
      return () => void set.delete(listener);
    },
  };
}

export function createMemoryState(options: { audit?: AuditLog; instanceId?: string } = {}): SharedState {
  const instanceId = options.instanceId ?? newInstanceId();
  return {
    backend: "memory",
    instanceId,
    jobs: createMemoryJobRecords(instanceId),
    kv: createMemoryKeyValue(),
    locks: createMemoryLocks(),
    counters: createMemoryCounters(),
    pubsub: createMemoryPubSub(),
    audit: options.audit,
    async ping() {
      return true;
    },
    async close() {},
  };
}
