import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createJobStore, jobStoreFor } from "../src/runtime/jobs.js";
import { createMemoryJobRecords } from "../src/state/memory.js";
import { closeSession, createSession } from "../src/runtime/session.js";
import { RuntimeError } from "../src/runtime/errors.js";

/** The in-memory job store: states, results and errors, bounds, and per-session scoping. */

function deferred<T = unknown>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
const settle = () => new Promise((r) => setImmediate(r));

describe("job store", () => {
  it("start answers an id while the work runs; the job then succeeds with its result", async () => {
    const store = createJobStore();
    const work = deferred();
    const id = await store.start(() => work.promise, { kind: "generate" });
    assert.match(id, /^job_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, "a whole UUID: 8 hex digits met across identities in a fleet");
    const running = (await store.status(id))!;
    assert.equal(running.state, "running");
    assert.equal(running.kind, "generate");
    assert.ok(!Number.isNaN(Date.parse(running.startedAt)));
    assert.equal(running.finishedAt, undefined);
    work.resolve({ answer: 42 });
    await settle();
    const done = (await store.status(id))!;
    assert.equal(done.state, "succeeded");
    assert.deepEqual(done.result, { answer: 42 });
    assert.ok(done.finishedAt && typeof done.durationMs === "number");
  });

  it("a rejected work, a synchronous throw and an MCP isError result all end as failed with a code", async () => {
    const store = createJobStore();
    const coded = Object.assign(new Error("too slow"), { code: "UPSTREAM_TIMEOUT" });
    const a = await store.start(() => Promise.reject(coded));
    const b = await store.start(() => {
      throw new Error("boom");
    });
    const c = await store.start(async () => ({ content: [{ type: "text", text: "agent gave up" }], isError: true }));
    const d = await store.start(async () => ({ content: [{ type: "text", text: '{"ok":1}' }] }));
    await settle();
    assert.deepEqual(await Promise.all([a, b, c].map(async (id) => (await store.status(id))!.state)), ["failed", "failed", "failed"]);
    assert.equal((await store.status(a))!.error!.code, "UPSTREAM_TIMEOUT");
    assert.equal((await store.status(b))!.error!.message, "boom");
    assert.match((await store.status(c))!.error!.message, /agent gave up/);
    assert.deepEqual((await store.status(d))!.result, { ok: 1 }, "an MCP result is unwrapped like a call's");
  });

  it("a failed job's error is kept bounded (masked first when the store masks), however large the failure", async () => {
    const secret = "s3cr3t-token-abcdef";
    const store = createJobStore({ redact: (value) => JSON.parse(JSON.stringify(value).replaceAll(secret, "[redacted]")) as unknown });
    const huge = "x".repeat(500_000);
    const a = await store.start(() => Promise.reject(new Error(`${"y".repeat(3_990)}${secret} ${huge}`)));
    const b = await store.start(() => Promise.reject(new RuntimeError("UPSTREAM_ERROR", "failed", { content: huge, rows: Array.from({ length: 200 }, (_, i) => ({ i, text: "z".repeat(400) })) })));
    await settle();
    const first = (await store.status(a))!;
    assert.equal(first.state, "failed");
    assert.ok(first.error!.message.length < 4_200, `${first.error!.message.length} characters`);
    assert.match(first.error!.message, /\(\d+ more characters left out\)$/);
    assert.ok(!first.error!.message.includes("s3cr3t"), "masked before it was cut");
    const second = (await store.status(b))!;
    assert.match(String(second.error!.details!.content), /^x+… \(496000 more characters left out\)$/);
    assert.ok(JSON.stringify(second.error).length < 20_000, `${JSON.stringify(second.error).length} characters`);
  });

  it("list is newest first; status hands out copies", async () => {
    const store = createJobStore();
    const first = await store.start(async () => 1);
    const second = await store.start(async () => 2);
    assert.deepEqual((await store.list()).map((j) => j.id), [second, first]);
    const copy = (await store.status(first))!;
    copy.state = "failed";
    assert.equal((await store.status(first))!.state === "failed", false);
  });

  it("is bounded: the oldest finished jobs are evicted, and a store full of running jobs refuses", async () => {
    const store = createJobStore({ maxJobs: 3 });
    const old = await store.start(async () => "old");
    const older = await store.start(async () => "older");
    await settle();
    const hold = deferred();
    const running = await store.start(() => hold.promise);
    const fourth = await store.start(() => hold.promise);
    assert.equal((await store.status(old)), undefined, "the oldest finished job made room");
    assert.ok((await store.status(older)));
    await store.start(() => hold.promise);
    assert.equal((await store.status(older)), undefined);
    await assert.rejects(() => store.start(() => hold.promise), (e: unknown) => e instanceof RuntimeError && /3 jobs are still running/.test(e.message));
    assert.deepEqual((await store.list()).map((j) => j.state), ["running", "running", "running"]);
    assert.ok((await store.status(running)) && (await store.status(fourth)));
    hold.resolve("done");
  });

  it("a store that lives as long as the server does not grow with the jobs it has started and dropped", async () => {
    // A stdio session's store (and a team identity's) lives as long as the process: it kept every
    // id it ever started, about 54 bytes a job, while holding only maxJobs records.
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const heap = (): number => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    const store = createJobStore();
    const startMany = async (count: number): Promise<void> => {
      for (let i = 0; i < count; i++) {
        await store.start(async () => i);
        if (i % 50 === 49) await settle();
      }
      await settle();
    };
    await startMany(2_000);
    const before = heap();
    await startMany(30_000);
    const grown = heap() - before;
    assert.equal((await store.list()).length, 50);
    // Before the fix: about 1.6 MB for these 30,000 jobs.
    assert.ok(grown < 600_000, `the heap grew ${grown} bytes over 30,000 jobs`);
    store.dispose();
  });

  it("work disposed before it began never runs", async () => {
    const store = createJobStore();
    let ran = false;
    void store.start(async () => {
      ran = true;
    });
    store.dispose();
    await settle();
    assert.equal(ran, false);
  });

  it("require names why an id is unknown", async () => {
    const store = createJobStore();
    await assert.rejects(() => store.require("job_x"), (e: unknown) => e instanceof RuntimeError && e.code === "ARG_VALIDATION_FAILED" && /memory only/.test(e.message));
  });

  it("one store per session and plugin; ending the session aborts running work and forgets the jobs", async () => {
    const session = createSession();
    const other = createSession();
    const store = jobStoreFor(session, "ollama");
    assert.equal(jobStoreFor(session, "ollama"), store);
    assert.notEqual(jobStoreFor(session, "ccdd"), store);
    assert.notEqual(jobStoreFor(other, "ollama"), store);
    let aborted = false;
    const id = await store.start((signal) => new Promise((_, reject) => signal.addEventListener("abort", () => {
      aborted = true;
      reject(signal.reason);
    })));
    assert.equal(await jobStoreFor(other, "ollama").status(id), undefined, "another session does not see it");
    await settle();
    await closeSession(session);
    assert.equal(aborted, true);
    assert.deepEqual((await store.list()), []);
  });
});

describe("job store: cancel and lost instances (shared records)", () => {
  it("cancel aborts a running job and leaves a finished one as it is", async () => {
    const store = createJobStore();
    let aborted = false;
    const id = await store.start((signal) => new Promise((_, reject) => signal.addEventListener("abort", () => {
      aborted = true;
      reject(signal.reason);
    })));
    const cancelled = await store.cancel(id);
    assert.equal(cancelled.state, "cancelled");
    assert.equal(aborted, true);
    const done = await store.start(async () => 7);
    await settle();
    assert.equal((await store.cancel(done)).state, "succeeded");
  });

  it("a cancelled job says so with the same hint whether its own instance or another one cancelled it", async () => {
    const records = createMemoryJobRecords("i-a");
    const a = createJobStore({ records, instanceId: "i-a", scope: "identity:x", showInstance: true });
    const b = createJobStore({ records: { ...records, isAlive: async () => true }, instanceId: "i-b", scope: "identity:x", showInstance: true });
    const never = (signal: AbortSignal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("the work saw its abort"))));
    const here = await a.cancel(await a.start(never));
    const there = await b.cancel(await a.start(never));
    for (const [label, cancelled] of [["own instance", here], ["another instance", there]] as const) {
      assert.equal(cancelled.state, "cancelled", label);
      assert.equal(cancelled.error?.message, "the job was cancelled", label);
      assert.equal(cancelled.error?.hint, "Start it again if it is still needed.", label);
    }
    a.dispose();
    b.dispose();
  });

  it("a job whose owner stopped beating is reported lost by another instance's store", async () => {
    const records = createMemoryJobRecords("i-a");
    const a = createJobStore({ records, instanceId: "i-a", scope: "identity:x", showInstance: true });
    const id = await a.start(() => new Promise(() => undefined));
    // A second instance reading the same records: i-a is not alive from its point of view.
    const b = createJobStore({ records: { ...records, isAlive: async (owner) => owner === "i-b" }, instanceId: "i-b", scope: "identity:x", showInstance: true });
    const seen = await b.status(id);
    assert.equal(seen?.state, "lost");
    assert.equal(seen?.instance, "i-a");
    assert.match(seen?.error?.message ?? "", /instance 'i-a' that ran this job stopped/);
    a.dispose();
  });
});
