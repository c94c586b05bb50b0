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

/**
 * One contract, two backends: what the runtime asks of shared state holds in memory and in a real
 * redis-server. "Two instances" are two states on one backend (memory: one process's state used
 * twice; Redis: two connections with their own instance ids).
 */

const settle = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));

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
      const a = await createRedisState({ url: redis!.url, log: silentLogger, prefix, instanceId: "i-a", heartbeatTtlMs: 600 });
      const b = await createRedisState({ url: redis!.url, log: silentLogger, prefix, instanceId: "i-b", heartbeatTtlMs: 600 });
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
      const held = a.locks.withLock("busy", () => settle(400));
      await settle(20);
      await assert.rejects(() => b.locks.withLock("busy", async () => 1, { waitMs: 100 }), /lock 'busy' was held .* for more than 100 ms/);
      await held;
    });

    it("counters: hits of both instances add up in one window", async () => {
      const [a, b] = await backend.pair();
      for (let i = 0; i < 5; i++) await a.counters.hit("x", 60_000);
      await settle(50);
      for (let i = 0; i < 4; i++) await b.counters.hit("x", 60_000);
      await settle(50);
      // Redis: an instance learns the others' hits with its own next round trip (hits are sent in the background).
      await a.counters.hit("x", 60_000);
      await settle(50);
      const last = await a.counters.hit("x", 60_000);
      assert.equal(last.count, 11);
      assert.ok(last.resetInMs > 0 && last.resetInMs <= 60_000);
    });

    it("audit: entries appended on both instances are read back in order, once each", async () => {
      const [a, b] = await backend.pair();
      const entry = (id: string) => ({ id, at: new Date().toISOString(), identity: "x", session: "s", instance: "i", operation: "call", plugin: "p", tool: "t", outcome: "ok", durationMs: 1 });
      await a.audit!.append(entry("1"));
      await b.audit!.append(entry("2"));
      const seen: string[] = [];
      const stop = new AbortController();
      const following = a.audit!.follow((e) => seen.push(e.id), stop.signal);
      await settle(backend.name === "redis" ? 200 : 50);
      await b.audit!.append(entry("3"));
      for (let i = 0; i < 50 && !seen.includes("3"); i++) await settle(50);
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
      for (let i = 0; i < 40 && !aborted; i++) await settle(25);
      assert.equal(aborted, true, "the cancel reached the instance running the work");
      assert.equal((await onA.status(id))?.state, "cancelled");
      onA.dispose();
      onB.dispose();
    });
  });
}

describe("shared state: redis heartbeats", { skip: servicesMissing(["redis"]) }, () => {
  it("a job whose instance stopped beating is lost for the others", async () => {
    const a = await createRedisState({ url: redis!.url, log: silentLogger, prefix: "hb:", instanceId: "hb-a", heartbeatTtlMs: 600 });
    const b = await createRedisState({ url: redis!.url, log: silentLogger, prefix: "hb:", instanceId: "hb-b", heartbeatTtlMs: 600 });
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
    const a = await createRedisState({ url: redis!.url, log: silentLogger, prefix, instanceId: "ws-a", heartbeatTtlMs: 600 });
    const b = await createRedisState({ url: redis!.url, log: silentLogger, prefix, instanceId: "ws-b", heartbeatTtlMs: 600 });
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
    await raw.set(`${prefix}instance:ws-dead`, String(Date.now()), "PX", 800);
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
    await settle(100); // the subscription reaches Redis
    busA.publish({ method: "notifications/tools/list_changed" });
    for (let i = 0; i < 40 && heard.length < 2; i++) await settle(25);
    await settle(50);
    assert.deepEqual(heard.sort(), ["a:notifications/tools/list_changed", "b:notifications/tools/list_changed"]);
    busA.close();
    busB.close();
  });
});
