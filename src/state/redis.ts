import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import type { Logger } from "../adapters/types.js";
import { CACHE_FORMAT, type CachedCatalog, type CatalogStore } from "../runtime/catalog-cache/store.js";
import { entryProblem } from "../runtime/catalog-cache/entry-check.js";
import type { AuditEntry, AuditLog, Counters, Heartbeats, JobRecords, KeyValue, Locks, PubSub, SharedState, SharedWorkspaceRecord, StoredJob, WorkspaceRecords } from "./types.js";
import { DEFAULT_HEARTBEAT_TTL_MS, heartbeatEveryMs, newInstanceId, SharedStateError } from "./types.js";
import { guardedPart, stateFailure, watchConnection } from "./redis-connection.js";
import { watchStateLoss } from "./redis-state-loss.js";
import { redisDatabase, StateSettingError } from "./redis-url.js";

/**
 * The Redis backend (ioredis). Key layout, all under one prefix (default `agent-tools:`):
 *   instance:<id>        heartbeat of a live instance (expires after `heartbeatTtlMs`)
 *   job:<scope>:<id>     a job's record (JSON; job:<id> before); jobs:<scope> a sorted set of its ids by start time
 *   cancel:<instance>    pub/sub channel: "abort job <id>" for the instance that runs it
 *   kv:<key>             plain values (OAuth token stores)
 *   lock:<name>          a lock holder's random token, with an expiry
 *   rate:<key>:<window>  fixed-window counters
 *   audit                the audit stream (XADD)
 *   state-epoch          a marker whose loss tells that Redis lost its data (redis-state-loss.ts)
 * One connection for commands (auto-pipelined), one for pub/sub, one per blocking audit follower.
 */

export interface RedisStateOptions {
  url: string;
  /** The setting the URL came from, for the errors that are the user's to fix; default both places. */
  setting?: string;
  log: Logger;
  prefix?: string;
  instanceId?: string;
  /** How long an instance counts as alive after its last heartbeat; default 6 s (beat every third of it). */
  heartbeatTtlMs?: number;
  /** Audit stream length kept (approximate trim); default 1,000,000 entries. */
  auditMaxLen?: number;
  /** Whether this state keeps an audit log at all; default true. */
  audit?: boolean;
}

const FINISHED_JOB_TTL_MS = 7 * 24 * 3600 * 1000;
/** How long one Redis command may take before it fails as unreachable (the audit follower's XREAD blocks 1 s, less). */
const COMMAND_TIMEOUT_MS = 3000;
const RELEASE_LOCK = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

function describe(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.hostname}:${parsed.port || 6379}${parsed.pathname.length > 1 ? parsed.pathname : ""}`;
  } catch {
    return "(unparsable URL)";
  }
}

/** A stored JSON value, or undefined when it is missing or damaged (a reader never fails on one bad key). */
function readJson<T>(text: string | null | undefined): T | undefined {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Resolves after `ms`, or earlier when `connection` becomes ready (if it is not) or `signal` aborts;
 * never rejects. The pause of a loop over Redis after a failure, so it does not spin while Redis is away.
 */
function untilReady(connection: Redis, signal: AbortSignal, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      connection.off("ready", done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    if (signal.aborted) return done();
    if (connection.status !== "ready") connection.once("ready", done);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** The start's one error when the first connection to Redis fails, naming its cause. */
function connectFailed(where: string, cause: Error): SharedStateError {
  return new SharedStateError(`could not connect to Redis at ${where}: ${cause.message}; check AGENT_TOOLS_REDIS_URL (or team.redis) and that redis-server runs`);
}

/**
 * Selects the URL's database again, to see the answer: ioredis sends its SELECT at connect but only
 * emits a refusal as an error event and carries on in database 0, where this instance would beat and
 * write next to another fleet's. A database Redis does not have stops the start instead.
 */
async function selectDatabase(redis: Redis, url: string, where: string, setting: string): Promise<void> {
  const database = redisDatabase(url);
  if (database === 0) return;
  try {
    await redis.select(database);
  } catch (error) {
    redis.disconnect();
    const message = (error as Error).message;
    if ((error as Error).name !== "ReplyError") throw connectFailed(where, error as Error);
    throw new StateSettingError(
      `${setting} names database ${database}, which Redis at ${where} refused (${message}); name one it has (0 to 15 unless its 'databases' setting says more), or raise 'databases' in redis.conf`,
    );
  }
}

/**
 * Take the instance's heartbeat key for this process (SET NX), before it beats or serves. A key
 * already there is another process's under the same AGENT_TOOLS_INSTANCE_ID: one that lives (it
 * beats again) stops this start, since two processes of one name split the fleet's records (the
 * second answered WORKSPACE_LOST for the first one's live workspaces, and its clean stop deleted
 * the first one's heartbeat, so its jobs read as lost); one that died within a TTL (a crash, then
 * a quick restart) expires, and the key is taken then, after at most about one TTL.
 */
async function claimInstance(
  instanceId: string,
  how: {
    redis: Redis;
    key: string;
    ttlMs: number;
    readBeat: (instance: string) => Promise<[string | null, number]>;
    watchBeat: (instance: string, first: string, ttl: number) => Promise<"alive" | "dead">;
    log: Logger;
  },
): Promise<void> {
  for (let said = false; ; ) {
    if ((await how.redis.set(how.key, String(Date.now()), "PX", how.ttlMs, "NX")) === "OK") return;
    const [first, ttl] = await how.readBeat(instanceId);
    if (first === null) continue; // expired between the two commands: take it
    if (!said) {
      said = true;
      how.log.info(`instance '${instanceId}': a heartbeat under this name is in Redis (${how.key}); waiting up to ${Math.ceil(((ttl > 0 ? ttl : how.ttlMs) + 1000) / 1000)} s to see whether the process that wrote it still runs (a process that stopped cleanly removes it)`);
    }
    if ((await how.watchBeat(instanceId, first, ttl)) === "alive") {
      throw new StateSettingError(
        `another process runs as instance '${instanceId}': its heartbeat in Redis (${how.key}) is renewed. Each instance needs a name of its own: set AGENT_TOOLS_INSTANCE_ID to another one (or unset it for a random one), or stop the other process first. Two processes of one name would answer WORKSPACE_LOST for each other's workspaces and take each other's jobs for lost`,
      );
    }
  }
}

export async function createRedisState(options: RedisStateOptions): Promise<SharedState> {
  const prefix = options.prefix ?? "agent-tools:";
  const instanceId = options.instanceId ?? newInstanceId();
  const heartbeatTtlMs = options.heartbeatTtlMs ?? DEFAULT_HEARTBEAT_TTL_MS;
  const where = describe(options.url);
  // Fail fast while Redis is away: a command is not queued while the connection is down (it fails at
  // once, and the client is told to retry in a few seconds) and one sent on a connection that went
  // silent gives up after COMMAND_TIMEOUT_MS. Queued and retried, a request took 8 to 47 s to fail.
  const common = { maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: COMMAND_TIMEOUT_MS, connectTimeout: 5000, lazyConnect: true } as const;
  const redis = new Redis(options.url, { ...common, enableAutoPipelining: true });
  // The first connection's failure is the start's (or `agent-tools audit`'s) one error, naming its
  // cause (ioredis rejects connect() with "Connection is closed" and says ECONNREFUSED in an event):
  // not an outage to announce as "reconnecting".
  let connectFailure: Error | undefined;
  const noteConnectFailure = (error: Error): void => void (connectFailure ??= error);
  redis.on("error", noteConnectFailure);
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw connectFailed(where, connectFailure ?? (error as Error));
  }
  await selectDatabase(redis, options.url, where, options.setting ?? "AGENT_TOOLS_REDIS_URL (or team.redis)");
  redis.off("error", noteConnectFailure);
  // ioredis reconnects by itself; each connection says an outage once, and when it is over.
  watchConnection(redis, `redis ${where}`, options.log);
  const subscriber = redis.duplicate();
  watchConnection(subscriber, `redis ${where} (pub/sub)`, options.log);
  await subscriber.connect();
  const followers = new Set<Redis>();

  const k = (key: string): string => `${prefix}${key}`;
  const beat = (): Promise<unknown> => redis.set(k(`instance:${instanceId}`), String(Date.now()), "PX", heartbeatTtlMs);
  /** `instance`'s heartbeat as Redis holds it: the time of its last beat (null: none) and the key's PTTL. */
  const readBeat = async (instance: string): Promise<[string | null, number]> => {
    const key = k(`instance:${instance}`);
    const results = await redis.multi().get(key).pttl(key).exec();
    return [(results?.[0]?.[1] as string | null | undefined) ?? null, Number(results?.[1]?.[1] ?? -2)];
  };
  /**
   * Whether a heartbeat read as `first` with `ttl` left belongs to a live process: it beats again
   * (its value, the beat's time, changes) or it expires, within its TTL. The key's own expiry (the
   * other instance's TTL, which may differ from ours) bounds the wait.
   */
  const watchBeat = async (instance: string, first: string, ttl: number): Promise<"alive" | "dead"> => {
    const deadline = Date.now() + (ttl > 0 ? ttl : heartbeatTtlMs) + 1000;
    while (Date.now() < deadline) {
      await sleep(100);
      const [now] = await readBeat(instance);
      if (now === null) return "dead";
      if (now !== first) return "alive";
    }
    // Neither a beat nor an expiry within its TTL (a key without expiry): count it as alive, never lose a workspace on a guess.
    return "alive";
  };
  try {
    await claimInstance(instanceId, { redis, key: k(`instance:${instanceId}`), ttlMs: heartbeatTtlMs, readBeat, watchBeat, log: options.log });
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  const loss = watchStateLoss({ redis, prefix, instanceId, beat, windowMs: heartbeatTtlMs, log: options.log });
  await loss.start();
  // At every beat, and when the connection comes back, whether Redis lost its data meanwhile.
  const heartbeat = setInterval(() => void beat().then(() => loss.check()).catch(() => undefined), heartbeatEveryMs(heartbeatTtlMs));
  redis.on("ready", () => void loss.check().catch(() => undefined));
  heartbeat.unref();

  const cancelListeners = new Set<(id: string) => void>();
  const cancelChannel = k(`cancel:${instanceId}`);
  await subscriber.subscribe(cancelChannel);
  const topicListeners = new Map<string, Set<(message: string) => void>>();
  subscriber.on("message", (channel: string, message: string) => {
    if (channel === cancelChannel) for (const listener of cancelListeners) listener(message);
    for (const listener of [...(topicListeners.get(channel) ?? [])]) listener(message);
  });
  // Channels whose SUBSCRIBE failed (Redis away: with no offline queue it fails at once). ioredis
  // re-subscribes on reconnect only the channels Redis confirmed, so these are subscribed again
  // when the connection is back; until then their topic is deaf, which the warning says.
  const unconfirmed = new Set<string>();
  const subscribeTopic = (channel: string): void => {
    subscriber.subscribe(channel).then(
      () => void unconfirmed.delete(channel),
      (error: Error) => {
        if (!topicListeners.has(channel) || unconfirmed.has(channel)) return;
        unconfirmed.add(channel);
        options.log.warn(`redis: could not subscribe to ${channel} (${error.message}); messages on it are missed until Redis is back, then it is subscribed again`);
      },
    );
  };
  subscriber.on("ready", () => {
    for (const channel of unconfirmed) if (topicListeners.has(channel)) subscribeTopic(channel);
  });
  const pubsub: PubSub = {
    async publish(topic, message) {
      await redis.publish(k(`topic:${topic}`), message);
    },
    subscribe(topic, listener) {
      const channel = k(`topic:${topic}`);
      let set = topicListeners.get(channel);
      if (!set) {
        topicListeners.set(channel, (set = new Set()));
        subscribeTopic(channel);
      }
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0) {
          topicListeners.delete(channel);
          unconfirmed.delete(channel);
          void subscriber.unsubscribe(channel).catch(() => undefined);
        }
      };
    },
  };

  const parseJob = (text: string | null, scope: string): StoredJob | undefined => {
    const job = readJson<StoredJob>(text);
    return job?.scope === scope ? job : undefined;
  };

  /**
   * A job's record, under its scope (the owner's identity or session): at the fleet-wide `job:<id>`,
   * two scopes' jobs that drew one id (8 hex digits before) overwrote each other, and the first
   * owner was told "no job here". Records of older versions, at `job:<id>`, are still read (and
   * removed) for their 7 days.
   */
  const jobKey = (scope: string, id: string): string => k(`job:${scope}:${id}`);
  const olderJobKey = (id: string): string => k(`job:${id}`);

  const jobs: JobRecords = {
    async save(job) {
      const running = job.status.state === "running";
      const multi = redis.multi().set(jobKey(job.scope, job.status.id), JSON.stringify(job), "PX", FINISHED_JOB_TTL_MS);
      if (running) multi.zadd(k(`jobs:${job.scope}`), Date.parse(job.status.startedAt) || Date.now(), job.status.id);
      await multi.exec();
    },
    async load(scope, id) {
      return parseJob(await redis.get(jobKey(scope, id)), scope) ?? parseJob(await redis.get(olderJobKey(id)), scope);
    },
    async list(scope) {
      const ids = await redis.zrevrange(k(`jobs:${scope}`), 0, -1);
      if (!ids.length) return [];
      const texts = await redis.mget(ids.map((id) => jobKey(scope, id)));
      const older = texts.some((text) => text === null) ? await redis.mget(ids.map((id) => olderJobKey(id))) : [];
      const found: StoredJob[] = [];
      const gone: string[] = [];
      texts.forEach((text, i) => {
        const job = parseJob(text, scope) ?? parseJob(older[i] ?? null, scope);
        if (job) found.push(job);
        else gone.push(ids[i]!);
      });
      if (gone.length) await redis.zrem(k(`jobs:${scope}`), ...gone);
      return found;
    },
    async remove(scope, ids) {
      if (!ids.length) return;
      // An older record is removed only when it is this scope's: its key names no scope.
      const older = (await redis.mget(ids.map((id) => olderJobKey(id)))).flatMap((text, i) => (parseJob(text, scope) ? [olderJobKey(ids[i]!)] : []));
      await redis.multi().zrem(k(`jobs:${scope}`), ...ids).del(...ids.map((id) => jobKey(scope, id)), ...older).exec();
    },
    async requestCancel(owner, id) {
      await redis.publish(k(`cancel:${owner}`), id);
    },
    onCancelRequest(listener) {
      cancelListeners.add(listener);
      return () => cancelListeners.delete(listener);
    },
    async isAlive(owner) {
      if (owner === instanceId) return true;
      const beating = async (): Promise<true | undefined> => ((await redis.exists(k(`instance:${owner}`))) === 1 ? true : undefined);
      // A heartbeat missing because Redis just lost its data is not a death: its owner beats again.
      return (await beating()) ?? (await loss.waitForRewrite(beating)) ?? false;
    },
  };

  const kv: KeyValue = {
    async get(key) {
      return (await redis.get(k(`kv:${key}`))) ?? undefined;
    },
    async set(key, value) {
      await redis.set(k(`kv:${key}`), value);
    },
    async setIfAbsent(key, value, ttlMs) {
      const answer = ttlMs !== undefined ? await redis.set(k(`kv:${key}`), value, "PX", ttlMs, "NX") : await redis.set(k(`kv:${key}`), value, "NX");
      return answer === "OK";
    },
  };

  const locks: Locks = {
    async withLock(name, work, lockOptions = {}) {
      const ttlMs = lockOptions.ttlMs ?? 30_000;
      const waitMs = lockOptions.waitMs ?? 30_000;
      const key = k(`lock:${name}`);
      const token = randomUUID();
      const deadline = Date.now() + waitMs;
      let pause = 5;
      const take = (): Promise<unknown> => redis.set(key, token, "PX", ttlMs, "NX").catch((error: unknown) => Promise.reject(stateFailure(error, where)));
      while ((await take()) !== "OK") {
        if (Date.now() > deadline) throw new SharedStateError(`lock '${name}' was held by another instance for more than ${waitMs} ms; try again`);
        // Jittered back-off: holders of this lock do network round trips (a token refresh).
        await sleep(pause + Math.random() * pause);
        pause = Math.min(pause * 2, 100);
      }
      try {
        return await work();
      } finally {
        await redis.eval(RELEASE_LOCK, 1, key, token).catch(() => undefined);
      }
    },
  };

  // Rate counters stay off the call's critical path: a hit is counted here at once and added to
  // Redis in the background (one INCRBY per key for the hits that piled up meanwhile). The count
  // a hit sees is Redis's last answer plus this instance's unsent hits, so the fleet can overshoot
  // a limit by the hits other instances take during one round trip — accepted for a rate limit.
  const windows = new Map<string, { known: number; pending: number; flushing: boolean }>();
  const flush = (key: string, windowMs: number): void => {
    const entry = windows.get(key);
    if (!entry || entry.flushing || entry.pending === 0) return;
    const sending = entry.pending;
    entry.flushing = true;
    void redis
      .multi()
      .incrby(k(key), sending)
      .pexpire(k(key), windowMs * 2)
      .exec()
      .then(
        (result) => {
          entry.pending -= sending;
          entry.known = Number(result?.[0]?.[1] ?? entry.known + sending);
          entry.flushing = false;
          // Hits that arrived during the round trip go in the next one.
          flush(key, windowMs);
        },
        () => {
          // Redis is away: the hits stay pending and go with the next hit's flush (no retry loop).
          entry.flushing = false;
        },
      );
  };
  const counters: Counters = {
    async hit(key, windowMs) {
      const at = Date.now();
      const start = at - (at % windowMs);
      const windowKey = `rate:${key}:${start}`;
      let entry = windows.get(windowKey);
      if (!entry) {
        // Windows of past minutes are dropped as new ones open.
        for (const old of windows.keys()) if (old.startsWith(`rate:${key}:`)) windows.delete(old);
        windows.set(windowKey, (entry = { known: 0, pending: 0, flushing: false }));
      }
      entry.pending += 1;
      const count = entry.known + entry.pending;
      flush(windowKey, windowMs);
      return { count, resetInMs: start + windowMs - at };
    },
  };

  const auditKey = k("audit");
  const auditMaxLen = options.auditMaxLen ?? 1_000_000;
  const toEntries = (rows: Array<[string, string[]]>): AuditEntry[] =>
    rows.flatMap(([, fields]) => {
      const entry = readJson<AuditEntry>(fields[fields.indexOf("entry") + 1]);
      return entry ? [entry] : [];
    });
  const audit: AuditLog = {
    where: `redis stream ${auditKey} at ${where}`,
    async append(entry) {
      await redis.xadd(auditKey, "MAXLEN", "~", auditMaxLen, "*", "entry", JSON.stringify(entry));
    },
    async tail(limit) {
      const rows = (await redis.xrevrange(auditKey, "+", "-", "COUNT", limit)) as Array<[string, string[]]>;
      return toEntries(rows.reverse());
    },
    async follow(onEntry, signal) {
      // "From now" is the newest entry when follow() is called, asked at once on the command
      // connection. "$" in the first XREAD meant "from when the reader, once connected, reached
      // Redis": entries appended in between were never shown. (Redis unreachable: "$", as before.)
      const newest = redis.xrevrange(auditKey, "+", "-", "COUNT", 1).then(
        (rows) => (rows as Array<[string, string[]]>)[0]?.[0] ?? "0-0",
        () => "$",
      );
      const reader = redis.duplicate();
      watchConnection(reader, `redis ${where} (audit follower)`, options.log);
      followers.add(reader);
      try {
        await reader.connect();
        let last = await newest;
        const stop = (): void => reader.disconnect();
        signal.addEventListener("abort", stop, { once: true });
        let complained = false;
        while (!signal.aborted) {
          // With no offline queue, XREAD on a connection that is down fails at once: retried at
          // once, that was a loop taking a whole core for as long as Redis was away. So wait for the
          // connection to be ready again (the outage is reported once, by watchConnection), and
          // after any other failure pause a second before asking again.
          if (reader.status !== "ready") {
            await untilReady(reader, signal, 1000);
            continue;
          }
          let answer: Array<[string, Array<[string, string[]]>]> | null = null;
          try {
            answer = (await reader.xread("BLOCK", 1000, "STREAMS", auditKey, last)) as typeof answer;
            complained = false;
          } catch (error) {
            if (signal.aborted) break;
            if (!complained && reader.status === "ready") options.log.warn(`redis ${where} (audit follower): reading the audit stream failed (${(error as Error).message}); trying again every second`);
            complained ||= reader.status === "ready";
            await untilReady(reader, signal, 1000);
            continue;
          }
          const rows = answer?.[0]?.[1] ?? [];
          if (rows.length) last = rows[rows.length - 1]![0];
          for (const entry of toEntries(rows)) onEntry(entry);
        }
      } finally {
        followers.delete(reader);
        reader.disconnect();
      }
    },
  };

  // The catalog cache's store interface (runtime/catalog-cache/store.ts) over Redis strings.
  const catalogs: CatalogStore = {
    location: `redis ${k("catalog:*")} at ${where}`,
    whenWritesFail:
      "the other instances of the gateway and the next start cannot reuse this listing, so they list the server again; it is stored again at its next listing once Redis answers (check that redis-server runs and takes writes: AGENT_TOOLS_REDIS_URL or team.redis), or set AGENT_TOOLS_CATALOG_CACHE=off to run without the cache",
    async get(key) {
      const entry = readJson<CachedCatalog & { format?: number }>(await redis.get(k(`catalog:${key}`)));
      // The same check as the file store's: a damaged entry is a miss, overwritten by the next listing.
      return entry?.format === CACHE_FORMAT && !entryProblem(entry) ? entry : undefined;
    },
    async set(key, entry) {
      await redis.set(k(`catalog:${key}`), JSON.stringify({ ...entry, format: CACHE_FORMAT }));
    },
    async delete(key) {
      await redis.del(k(`catalog:${key}`));
    },
    async clear() {
      let cursor = "0";
      let removed = 0;
      do {
        const [next, keys] = await redis.scan(cursor, "MATCH", k("catalog:*"), "COUNT", 200);
        cursor = next;
        if (keys.length) removed += await redis.del(...keys);
      } while (cursor !== "0");
      return removed;
    },
  };

  // Workspace records: one JSON value per workspace, and a sorted set by last use for the idle sweep.
  const workspaces: WorkspaceRecords = {
    async get(id) {
      return readJson<SharedWorkspaceRecord>(await redis.get(k(`ws:${id}`)));
    },
    async put(record) {
      await redis.multi().set(k(`ws:${record.id}`), JSON.stringify(record), "PX", FINISHED_JOB_TTL_MS).zadd(k("ws-used"), record.lastUsed, record.id).exec();
    },
    async delete(id) {
      await redis.multi().del(k(`ws:${id}`)).zrem(k("ws-used"), id).exec();
    },
    async idleSince(cutoff) {
      const ids = await redis.zrangebyscore(k("ws-used"), "-inf", `(${cutoff}`, "LIMIT", 0, 500);
      if (!ids.length) return [];
      const texts = await redis.mget(ids.map((id) => k(`ws:${id}`)));
      return texts.flatMap((text, i) => {
        try {
          return text ? [JSON.parse(text) as SharedWorkspaceRecord] : [{ id: ids[i]!, owner: "", createdAt: 0, lastUsed: 0 }];
        } catch {
          return [];
        }
      });
    },
  };

  const heartbeats: Heartbeats = {
    async settle(instance) {
      if (instance === instanceId) return "alive";
      // The beat's value is the time it was sent: a new value is a new beat.
      const [first, ttl] = await readBeat(instance);
      if (first === null || ttl === -2) {
        // Missing because Redis just lost its data (its owner lives and beats again), or because it died.
        const rewritten = await loss.waitForRewrite(async () => (await readBeat(instance))[0]);
        return rewritten === undefined ? "dead" : "alive";
      }
      return watchBeat(instance, first, ttl);
    },
  };

  // A command that fails because Redis is away reaches the client as "shared state unreachable, retry".
  const guard = <T extends object>(part: T): T => guardedPart(part, where);
  return {
    backend: "redis",
    catalogs: guard(catalogs),
    workspaces: guard(workspaces),
    heartbeats: guard(heartbeats),
    stateLoss: guard(loss),
    instanceId,
    jobs: guard(jobs),
    kv: guard(kv),
    locks,
    counters: guard(counters),
    pubsub: guard(pubsub),
    audit: options.audit === false ? undefined : guard(audit),
    async ping() {
      try {
        const answer = await Promise.race([redis.ping(), sleep(1000).then(() => "timeout")]);
        return answer === "PONG";
      } catch {
        return false;
      }
    },
    onReconnect(listener) {
      // Attached after the first connect, so "ready" here is a connection that came back.
      redis.on("ready", listener);
      return () => void redis.off("ready", listener);
    },
    async close() {
      clearInterval(heartbeat);
      // A clean stop removes the heartbeat at once, so the others see its running jobs as lost now.
      await redis.del(k(`instance:${instanceId}`)).catch(() => undefined);
      for (const reader of followers) reader.disconnect();
      subscriber.disconnect();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
