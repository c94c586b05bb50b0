import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { silentLogger } from "../src/log.js";
import { createFleetEventBus } from "../src/gateway/event-bus.js";
import { createJobStore } from "../src/runtime/jobs.js";
import { createFileAuditLog } from "../src/state/audit-file.js";
import { createMemoryState } from "../src/state/memory.js";
import { createRedisState } from "../src/state/redis.js";
import type { SharedState } from "../src/state/types.js";
import { Redis } from "ioredis";
import type { RuntimeError } from "../src/errors.js";
import { Workspaces } from "../src/runtime/workspaces.js";
import { servicesMissing, startRedis, type RunningService } from "./services-kit.js";
import { until } from "./wait.js";

/**
 * One contract, two backends: what the runtime asks of shared state holds in memory and in a real
 * redis-server. "Two instances" are two states on one backend (memory: one process's state used
 * twice; Redis: two connections with their own instance ids).
 */

const settle = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * The heartbeat TTL of instances that must count as live throughout a test. Not 600 ms: a beat is
 * sent every TTL/3 by a timer, and on a loaded machine a timer late by a few hundred ms let a live
 * instance's key expire (its jobs "lost", its workspaces "stopped"). A stopped instance's beat is
 * removed at once or set by hand with its own expiry, so nothing here waits for this TTL.
 */
const LIVE_TTL_MS = 5_000;
/** A rate window no test run crosses the edge of (windows are aligned to the clock: a 60 s one could turn mid-test). */
const DAY_MS = 86_400_000;

interface Backend {
  name: string;
  pair(): Promise<[SharedState, SharedState]>;
  skip?: string | undefined;
}

let redis: (RunningService & { url: string }) | undefined;
let dir: string;
const opened: SharedState[] = [];

const backends: Backend[] = [
  {
    name: "memory",
    async pair() {
      const state = createMemoryState({ audit: createFileAuditLog(path.join(dir, `audit-${opened.length}.jsonl`)) });
      opened.push(state);
      return [state, state];
    },
  },
  {
    name: "redis",
    skip: servicesMissing(["redis"]),
    async pair() {
      const prefix = `t${opened.length}:`;
      const a = await createRedisState({ url: redis!.url, log: silentLogger, prefix, instanceId: "i-a", heartbeatTtlMs: LIVE_TTL_MS });
      const b = await createRedisState({ url: redis!.url, log: silentLogger, prefix, instanceId: "i-b", heartbeatTtlMs: LIVE_TTL_MS });
      opened.push(a, b);
      return [a, b];
    },
  },
];

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "agent-tools-state-"));
  if (!servicesMissing(["redis"])) redis = await startRedis();
});
after(async () => {
  await Promise.allSettled(opened.map((s) => s.close()));
  await redis?.stop();
  await rm(dir, { recursive: true, force: true });
});

for (const backend of backends) {
  describe(`shared state: ${backend.name}`, { skip: backend.skip }, () => {
    it("key-value: what one instance sets, the other reads", async () => {
      const [a, b] = await backend.pair();
      assert.equal(await b.kv.get("k"), undefined);
      await a.kv.set("k", "v1");
      assert.equal(await b.kv.get("k"), "v1");
    });

    it("locks: two instances never hold one lock together, and a waiter gives up with a clear error", async () => {
      const [a, b] = await backend.pair();
      let inside = 0;
      let most = 0;
      const work = async (): Promise<void> => {
        inside += 1;
        most = Math.max(most, inside);
        await settle(10);
        inside -= 1;
      };
      await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).locks.withLock("l", work)));
      assert.equal(most, 1);
      // a holds 'busy' until b has given up (not for a fixed 400 ms that a loaded machine could use up before b asks).
      let entered!: () => void;
      const holding = new Promise<void>((resolve) => (entered = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const held = a.locks.withLock("busy", async () => {
        entered();
        await released;
      });
      await holding;
      await assert.rejects(() => b.locks.withLock("busy", async () => 1, { waitMs: 100 }), /lock 'busy' was held .* for more than 100 ms/);
      release();
      await held;
    });

    it("counters: hits of both instances add up in one window", async () => {
      const [a, b] = await backend.pair();
      // Redis: hits are sent in the background; wait until Redis holds them (memory: at once).
      const stored = async (count: number): Promise<void> => {
        if (backend.name !== "redis") return;
        const raw = new Redis(redis!.url);
        try {
          await until(async () => {
            const keys = await raw.keys("*rate:x:*");
            return keys.length === 1 && Number(await raw.get(keys[0]!)) === count;
          }, `Redis to hold ${count} hits`);
        } finally {
          raw.disconnect();
        }
      };
      for (let i = 0; i < 5; i++) await a.counters.hit("x", DAY_MS);
      await stored(5);
      for (let i = 0; i < 4; i++) await b.counters.hit("x", DAY_MS);
      await stored(9);
      // Redis: an instance learns the others' hits with its own next round trip.
      await a.counters.hit("x", DAY_MS);
      await stored(10);
      const last = await a.counters.hit("x", DAY_MS);
      assert.equal(last.count, 11);
      assert.ok(last.resetInMs > 0 && last.resetInMs <= DAY_MS);
    });

    it("audit: entries appended on both instances are read back in order, once each", async () => {
      const [a, b] = await backend.pair();
      const entry = (id: string) => ({ id, at: new Date().toISOString(), identity: "x", session: "s", instance: "i", operation: "call", plugin: "p", tool: "t", outcome: "ok", durationMs: 1 });
      await a.audit!.append(entry("1"));
      await b.audit!.append(entry("2"));
      const seen: string[] = [];
      const stop = new AbortController();
      const following = a.audit!.follow((e) => seen.push(e.id), stop.signal);
      // follow() fixes "from now" when called (Redis: on a's command connection, which answers in
      // order, so a's next answer comes after it). No wait for the reader: 3 is appended at once.
      await a.kv.get("after-follow");
      await b.audit!.append(entry("3"));
      await until(() => seen.includes("3"), "the follower to see entry 3");
      stop.abort();
      await following;
      assert.deepEqual((await a.audit!.tail(10)).map((e) => e.id), ["1", "2", "3"]);
      assert.deepEqual(seen, ["3"]);
    });

    it("jobs: started on one instance, polled, listed and cancelled through the other", async () => {
      const [a, b] = await backend.pair();
      const onA = createJobStore({ records: a.jobs, instanceId: a.instanceId, scope: "identity:x:w", showInstance: true });
      const onB = createJobStore({ records: b.jobs, instanceId: b.instanceId, scope: "identity:x:w", showInstance: true });
      let aborted = false;
      const id = await onA.start((signal) => new Promise((_, reject) => signal.addEventListener("abort", () => {
        aborted = true;
        reject(signal.reason);
      })));
      assert.equal((await onB.status(id))?.state, "running");
      assert.deepEqual((await onB.list()).map((j) => j.id), [id]);
      assert.equal((await onB.cancel(id)).state, "cancelled");
      await until(() => aborted, "the cancel to reach the instance running the work");
      assert.equal((await onA.status(id))?.state, "cancelled");
      onA.dispose();
      onB.dispose();
    });

    it("jobs: two identities' records of one id are each their own (the probe's 8-digit collision)", async () => {
      const [a, b] = await backend.pair();
      // Saved as a job is first (running: that puts it in its scope's list).
      const record = (scope: string, label: string) => ({ owner: a.instanceId, scope, status: { id: "job_0badc0de", kind: "sleep", state: "running", startedAt: new Date().toISOString(), result: { label } } });
      await a.jobs.save(record("identity:alice:worker", "alice's result"));
      await b.jobs.save(record("identity:bob:worker", "bob's result"));
      // Before, bob's save overwrote alice's record: she was told "no job here", her list was empty.
      assert.deepEqual((await b.jobs.load("identity:alice:worker", "job_0badc0de"))?.status.result, { label: "alice's result" });
      assert.deepEqual((await a.jobs.load("identity:bob:worker", "job_0badc0de"))?.status.result, { label: "bob's result" });
      assert.deepEqual((await a.jobs.list("identity:alice:worker")).map((job) => job.status.result), [{ label: "alice's result" }]);
      await a.jobs.remove("identity:alice:worker", ["job_0badc0de"]);
      assert.equal(await b.jobs.load("identity:alice:worker", "job_0badc0de"), undefined);
      assert.deepEqual((await b.jobs.load("identity:bob:worker", "job_0badc0de"))?.status.result, { label: "bob's result" }, "removing alice's leaves bob's");
    });
  });
}

describe("shared state: redis job records of older versions", { skip: servicesMissing(["redis"]) }, () => {
  it("a record at job:<id> (before records were kept under their scope) is still loaded, listed and removed", async () => {
    const prefix = `old${opened.length}:`;
    const state = await createRedisState({ url: redis!.url, log: silentLogger, prefix, instanceId: "i-old", heartbeatTtlMs: LIVE_TTL_MS });
    opened.push(state);
    const raw = new Redis(redis!.url);
    try {
      const scope = "identity:alice:worker";
      const job = { owner: "i-old", scope, status: { id: "job_1234abcd", kind: "sleep", state: "succeeded", startedAt: new Date().toISOString(), result: { kept: true } } };
      // As the version before wrote it.
      await raw.multi().set(`${prefix}job:job_1234abcd`, JSON.stringify(job), "PX", 60_000).zadd(`${prefix}jobs:${scope}`, Date.now(), "job_1234abcd").exec();
      assert.deepEqual((await state.jobs.load(scope, "job_1234abcd"))?.status.result, { kept: true });
      assert.equal(await state.jobs.load("identity:bob:worker", "job_1234abcd"), undefined, "still only its own scope's");
      assert.deepEqual((await state.jobs.list(scope)).map((j) => j.status.id), ["job_1234abcd"]);
      await state.jobs.remove(scope, ["job_1234abcd"]);
      assert.equal(await raw.exists(`${prefix}job:job_1234abcd`), 0);
      assert.deepEqual(await state.jobs.list(scope), []);
    } finally {
      raw.disconnect();
    }
  });
});

describe("shared state: redis heartbeats", { skip: servicesMissing(["redis"]) }, () => {
  it("a job whose instance stopped beating is lost for the others", async () => {
    const a = await createRedisState({ url: redis!.url, log: silentLogger, prefix: "hb:", instanceId: "hb-a", heartbeatTtlMs: LIVE_TTL_MS });
    const b = await createRedisState({ url: redis!.url, log: silentLogger, prefix: "hb:", instanceId: "hb-b", heartbeatTtlMs: LIVE_TTL_MS });
    opened.push(b);
    const onA = createJobStore({ records: a.jobs, instanceId: a.instanceId, scope: "identity:x:w", showInstance: true });
    const onB = createJobStore({ records: b.jobs, instanceId: b.instanceId, scope: "identity:x:w", showInstance: true });
    const id = await onA.start(() => new Promise(() => undefined));
    assert.equal((await onB.status(id))?.state, "running");
    await a.close(); // a clean stop removes the heartbeat at once (a SIGKILL lets it expire: the failover test)
    const lost = await onB.status(id);
    assert.equal(lost?.state, "lost");
    assert.equal(lost?.instance, "hb-a");
    onB.dispose();
  });

  it("workspaces in a fleet: another live instance's workspace answers WORKSPACE_UNAVAILABLE; a dead or restarted holder's answers WORKSPACE_LOST; none reopens empty", async () => {
    const prefix = "wsf:";
    const a = await createRedisState({ url: redis!.url, log: silentLogger, prefix, instanceId: "ws-a", heartbeatTtlMs: LIVE_TTL_MS });
    const b = await createRedisState({ url: redis!.url, log: silentLogger, prefix, instanceId: "ws-b", heartbeatTtlMs: LIVE_TTL_MS });
    opened.push(a, b);
    const key = Buffer.alloc(32, 7);
    const on = (state: SharedState, instance = state.instanceId): Workspaces =>
      new Workspaces({ key, store: state.workspaces!, fleet: { instance, settle: (other) => state.heartbeats!.settle(other) } });
    const [onA, onB] = [on(a), on(b)];
    const made = await onB.create("alice");

    // gw-b lives: the request reached gw-a by mistake. Nothing runs there; the record stays.
    const misrouted = await onA.open(made.handle, "alice").then(() => undefined, (error: unknown) => error as RuntimeError);
    assert.equal(misrouted?.code, "WORKSPACE_UNAVAILABLE", String(misrouted));
    assert.match(misrouted.message, /held by gateway instance 'ws-b', which is running, but this request reached instance 'ws-a'/);
    assert.deepEqual(misrouted.details, { instance: "ws-b", answeredBy: "ws-a", retryAfterMs: 1000 });
    assert.equal(onA.liveCount, 0, "no empty shell was opened on ws-a");
    assert.equal((await onB.open(made.handle, "alice")).session, made.session, "the holder still serves it");

    // An instance killed a moment ago: its heartbeat is still there, so the verdict waits for the key to expire.
    const dead = on(a, "ws-dead");
    const orphan = await dead.create("alice");
    const raw = new Redis(redis!.url);
    // 2.5 s to expire: the open below must still find the key (and wait for it) after quit() on a loaded machine.
    await raw.set(`${prefix}instance:ws-dead`, String(Date.now()), "PX", 2500);
    await raw.quit();
    const started = Date.now();
    const lost = await onA.open(orphan.handle, "alice").then(() => undefined, (error: unknown) => error as RuntimeError);
    const waited = Date.now() - started;
    assert.equal(lost?.code, "WORKSPACE_LOST", String(lost));
    assert.match(lost.message, /lived on gateway instance 'ws-dead', which stopped: its shell's files, variables and working folder are lost/);
    assert.ok(waited >= 400, `waited for the heartbeat to expire (${waited} ms)`);
    const again = await onA.open(orphan.handle, "alice").then(() => undefined, (error: unknown) => error as RuntimeError);
    assert.equal(again?.code, "WORKSPACE_EXPIRED", "a lost workspace's record is gone: the handle is dead for good");

    // ws-a restarted (a new process, same name): its earlier workspaces are lost, at once.
    const mine = await onA.create("alice");
    const restarted = on(a);
    const gone = await restarted.open(mine.handle, "alice").then(() => undefined, (error: unknown) => error as RuntimeError);
    assert.equal(gone?.code, "WORKSPACE_LOST");
    assert.match(gone.message, /which restarted/);
    await Promise.all([onA.close(), onB.close(), dead.close(), restarted.close()]);
  });

  it("catalogs: one instance's stored listing is read by another, cleared for all", async () => {
    const a = await createRedisState({ url: redis!.url, log: silentLogger, prefix: "cat:", instanceId: "cat-a" });
    const b = await createRedisState({ url: redis!.url, log: silentLogger, prefix: "cat:", instanceId: "cat-b" });
    opened.push(a, b);
    const entry = { prefix: "notes", listedAt: 1, tools: [{ name: "t", inputSchema: { type: "object" } }] };
    await a.catalogs!.set("0123456789abcdef", entry);
    assert.deepEqual((await b.catalogs!.get("0123456789abcdef"))?.tools, entry.tools);
    assert.equal(await b.catalogs!.clear(), 1);
    assert.equal(await a.catalogs!.get("0123456789abcdef"), undefined);
  });

  it("the fleet event bus: an event published on one instance reaches the listeners of both, once each", async () => {
    const a = await createRedisState({ url: redis!.url, log: silentLogger, prefix: "bus:", instanceId: "bus-a" });
    const b = await createRedisState({ url: redis!.url, log: silentLogger, prefix: "bus:", instanceId: "bus-b" });
    opened.push(a, b);
    const busA = createFleetEventBus<{ method: string }>(a.pubsub);
    const busB = createFleetEventBus<{ method: string }>(b.pubsub);
    const heard: string[] = [];
    busA.subscribe((e) => heard.push(`a:${e.method}`));
    busB.subscribe((e) => heard.push(`b:${e.method}`));
    // Both subscriptions must have reached Redis before the publish (subscribe() sends it in the background).
    const raw = new Redis(redis!.url);
    try {
      await until(async () => {
        const [channel] = (await raw.pubsub("CHANNELS", "bus:topic:*")) as string[];
        return channel !== undefined && Number(((await raw.pubsub("NUMSUB", channel)) as [string, number])[1]) >= 2;
      }, "both instances' subscriptions to reach Redis");
    } finally {
      raw.disconnect();
    }
    busA.publish({ method: "notifications/tools/list_changed" });
    await until(() => heard.length >= 2, "the event to reach both listeners");
    await settle(50); // a second delivery (the "once each" this test checks) would come right after
    assert.deepEqual(heard.sort(), ["a:notifications/tools/list_changed", "b:notifications/tools/list_changed"]);
    busA.close();
    busB.close();
  });

  it("a topic subscribed while Redis is down is subscribed when it is back: its messages then arrive (ioredis restores only confirmed channels)", async () => {
    const own = await startRedis();
    const logged: string[] = [];
    const log = { ...silentLogger, warn: (message: string) => void logged.push(message) };
    const listening = await createRedisState({ url: own.url, log, prefix: "deaf:", instanceId: "deaf-a" });
    let restarted: (RunningService & { url: string }) | undefined;
    try {
      await own.stop();
      // Down: the SUBSCRIBE fails at once (no offline queue), and says so.
      const heard: string[] = [];
      const unsubscribe = listening.pubsub.subscribe("late", (message) => heard.push(message));
      await until(() => logged.some((line) => /could not subscribe to deaf:topic:late .*messages on it are missed until Redis is back, then it is subscribed again/.test(line)), "the failed subscribe to be said");
      restarted = await startRedis(own.port);
      const publisher = new Redis(restarted.url);
      try {
        // Published until heard: the listener reconnects on its own schedule; without the retry it never hears.
        await until(async () => {
          await publisher.publish("deaf:topic:late", "after the outage");
          return heard.length > 0;
        }, "a message on the topic subscribed during the outage", 30_000, 200);
      } finally {
        publisher.disconnect();
      }
      assert.equal(heard[0], "after the outage");
      assert.equal(logged.filter((line) => line.includes("could not subscribe")).length, 1, logged.join("\n"));
      unsubscribe();
    } finally {
      await listening.close();
      await restarted?.stop();
    }
  });
});

describe("shared state: Redis loses its data (FLUSHALL) while the fleet runs", { skip: servicesMissing(["redis"]) }, () => {
  it("no live instance is taken for dead: holders write back their heartbeat, workspace records and running jobs; an unknown job names the loss", async () => {
    const own = await startRedis();
    const logged: string[] = [];
    const log = { ...silentLogger, warn: (message: string) => void logged.push(message) };
    const prefix = "loss:";
    const a = await createRedisState({ url: own.url, log, prefix, instanceId: "loss-a", heartbeatTtlMs: LIVE_TTL_MS });
    const b = await createRedisState({ url: own.url, log: silentLogger, prefix, instanceId: "loss-b", heartbeatTtlMs: LIVE_TTL_MS });
    const key = Buffer.alloc(32, 9);
    const on = (state: SharedState): Workspaces =>
      new Workspaces({ key, store: state.workspaces!, fleet: { instance: state.instanceId, settle: (other) => state.heartbeats!.settle(other), waitForRewrite: (read) => state.stateLoss!.waitForRewrite(read), checkLoss: () => state.stateLoss!.check() } });
    const [wsA, wsB] = [on(a), on(b)];
    const stopRewriting = a.stateLoss!.onLoss(() => wsA.rewriteRecords());
    const jobs = (state: SharedState) => createJobStore({ records: state.jobs, instanceId: state.instanceId, scope: "identity:x:w", showInstance: true, stateLoss: state.stateLoss! });
    const [jobsA, jobsB] = [jobs(a), jobs(b)];
    const flusher = new Redis(own.url);
    try {
      const held = await wsA.create("alice");
      await held.release();
      const runningJob = await jobsA.start(() => new Promise(() => undefined));
      const finishedJob = await jobsA.start(async () => "done");
      await until(async () => (await jobsB.status(finishedJob))?.state === "succeeded", "the quick job to finish");
      assert.equal(b.stateLoss!.lostAt(), undefined, "no loss known before the flush");

      await flusher.flushall();
      // Within the first second, through the other instance: the holder lives, so "retry", never "lost".
      const misrouted = await wsB.open(held.handle, "alice").then(() => undefined, (error: unknown) => error as RuntimeError);
      assert.equal(misrouted?.code, "WORKSPACE_UNAVAILABLE", String(misrouted));
      assert.match(misrouted.message, /held by gateway instance 'loss-a', which is running/);
      assert.equal(wsB.liveCount, 0, "no empty shell was opened on loss-b");
      // The holder serves it, with its files (the same sandbox).
      const reopened = await wsA.open(held.handle, "alice");
      assert.equal(reopened.session, held.session);
      await reopened.release();
      // The running job's record came back from its instance, which counts as alive; the finished one's is gone, and the error says why.
      assert.equal((await jobsB.require(runningJob)).state, "running");
      const unknown = await jobsB.require(finishedJob).then(() => undefined, (error: unknown) => error as RuntimeError);
      assert.equal(unknown?.code, "ARG_VALIDATION_FAILED", String(unknown));
      assert.match(unknown.message, /no job '.*' here: the gateway's shared state was lost at \S+ \(Redis restarted without its data, or was flushed\), and with it the records of jobs that had finished by then .* so this job and its result may have been lost with it/);
      assert.doesNotMatch(unknown.message, /kept in the shared store for 7 days/);
      assert.ok(logged.some((line) => /'loss-a': Redis lost the fleet's shared state .*wrote back its heartbeat and the records of the workspaces and running jobs it holds/.test(line)), logged.join("\n"));

      // Right after a second flush, before the holder's next beat, a workspace made there: its heartbeat is missing, it is not dead.
      await flusher.flushall();
      const fresh = await wsA.create("alice");
      await fresh.release();
      const notLost = await wsB.open(fresh.handle, "alice").then(() => undefined, (error: unknown) => error as RuntimeError);
      assert.equal(notLost?.code, "WORKSPACE_UNAVAILABLE", String(notLost));
      assert.equal((await wsA.open(fresh.handle, "alice")).session, fresh.session, "the record was left in place");
    } finally {
      flusher.disconnect();
      stopRewriting();
      jobsA.dispose();
      jobsB.dispose();
      await Promise.all([wsA.close(), wsB.close()]);
      await Promise.all([a.close(), b.close()]);
      await own.stop();
    }
  });

  it("a holder that finds its own record gone recovers everything first; an instance started on the emptied Redis waits for the holder", async () => {
    const own = await startRedis();
    const prefix = "loss2:";
    // A heartbeat TTL long enough that the holder's timer (every TTL/3) cannot do the recovery for it in this test's first steps.
    const ttlMs = 30_000;
    const a = await createRedisState({ url: own.url, log: silentLogger, prefix, instanceId: "hold-a", heartbeatTtlMs: ttlMs });
    const started: SharedState[] = [a];
    const key = Buffer.alloc(32, 7);
    const made: Workspaces[] = [];
    const on = (state: SharedState): Workspaces => {
      const workspaces = new Workspaces({ key, store: state.workspaces!, fleet: { instance: state.instanceId, settle: (other) => state.heartbeats!.settle(other), waitForRewrite: (read) => state.stateLoss!.waitForRewrite(read), checkLoss: () => state.stateLoss!.check() } });
      made.push(workspaces);
      return workspaces;
    };
    const wsA = on(a);
    const stopRewriting = a.stateLoss!.onLoss(() => wsA.rewriteRecords());
    const flusher = new Redis(own.url);
    try {
      const first = await wsA.create("alice");
      await first.release();
      const second = await wsA.create("alice");
      await second.release();

      await flusher.flushall();
      const served = await wsA.open(first.handle, "alice");
      await served.release();
      const keys = (await flusher.keys(`${prefix}*`)).sort();
      assert.ok(keys.includes(`${prefix}instance:hold-a`), `the holder's heartbeat is back: ${keys.join(" ")}`);
      assert.ok(keys.includes(`${prefix}state-epoch`), `the loss marker is back: ${keys.join(" ")}`);
      assert.equal(keys.filter((k) => k.startsWith(`${prefix}ws:`)).length, 2, `both workspace records are back, not only the one served: ${keys.join(" ")}`);

      // Emptied again; an instance that starts now learns the new marker at once, so it never sees the loss itself.
      await flusher.flushall();
      const c = await createRedisState({ url: own.url, log: silentLogger, prefix, instanceId: "late-c", heartbeatTtlMs: ttlMs });
      started.push(c);
      const wsC = on(c);
      // The holder's next beat (or its next call) writes its records back; until then the late instance waits, it does not answer expired or lost.
      const askedAt = Date.now();
      const asking = wsC.open(second.handle, "alice").then(() => undefined, (error: unknown) => error as RuntimeError);
      await settle(300);
      await a.stateLoss!.check();
      const answer = await asking;
      assert.equal(answer?.code, "WORKSPACE_UNAVAILABLE", String(answer));
      assert.match(answer.message, /held by gateway instance 'hold-a', which is running/);
      assert.ok(Date.now() - askedAt < ttlMs, "answered once the holder wrote back, not after the whole wait");
      assert.equal((await wsA.open(second.handle, "alice")).session, second.session, "the holder still serves it with its files");
    } finally {
      flusher.disconnect();
      stopRewriting();
      await Promise.all(made.map((w) => w.close()));
      await Promise.all(started.map((s) => s.close()));
      await own.stop();
    }
  });
});
