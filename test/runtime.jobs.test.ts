import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createJobStore, jobStoreFor } from "../src/runtime/jobs.js";
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
    const id = store.start(() => work.promise, { kind: "generate" });
    assert.match(id, /^job_[0-9a-f]{8}$/);
    const running = store.status(id)!;
    assert.equal(running.state, "running");
    assert.equal(running.kind, "generate");
    assert.ok(!Number.isNaN(Date.parse(running.startedAt)));
    assert.equal(running.finishedAt, undefined);
    work.resolve({ answer: 42 });
    await settle();
    const done = store.status(id)!;
    assert.equal(done.state, "succeeded");
    assert.deepEqual(done.result, { answer: 42 });
    assert.ok(done.finishedAt && typeof done.durationMs === "number");
  });

  it("a rejected work, a synchronous throw and an MCP isError result all end as failed with a code", async () => {
    const store = createJobStore();
    const coded = Object.assign(new Error("too slow"), { code: "UPSTREAM_TIMEOUT" });
    const a = store.start(() => Promise.reject(coded));
    const b = store.start(() => {
      throw new Error("boom");
    });
    const c = store.start(async () => ({ content: [{ type: "text", text: "agent gave up" }], isError: true }));
    const d = store.start(async () => ({ content: [{ type: "text", text: '{"ok":1}' }] }));
    await settle();
    assert.deepEqual([a, b, c].map((id) => store.status(id)!.state), ["failed", "failed", "failed"]);
    assert.equal(store.status(a)!.error!.code, "UPSTREAM_TIMEOUT");
    assert.equal(store.status(b)!.error!.message, "boom");
    assert.match(store.status(c)!.error!.message, /agent gave up/);
    assert.deepEqual(store.status(d)!.result, { ok: 1 }, "an MCP result is unwrapped like a call's");
  });

  it("list is newest first; status hands out copies", async () => {
    const store = createJobStore();
    const first = store.start(async () => 1);
    const second = store.start(async () => 2);
    assert.deepEqual(store.list().map((j) => j.id), [second, first]);
    const copy = store.status(first)!;
    copy.state = "failed";
    assert.equal(store.status(first)!.state === "failed", false);
  });

  it("is bounded: the oldest finished jobs are evicted, and a store full of running jobs refuses", async () => {
    const store = createJobStore({ maxJobs: 3 });
    const old = store.start(async () => "old");
    const older = store.start(async () => "older");
    await settle();
    const hold = deferred();
    const running = store.start(() => hold.promise);
    const fourth = store.start(() => hold.promise);
    assert.equal(store.status(old), undefined, "the oldest finished job made room");
    assert.ok(store.status(older));
    store.start(() => hold.promise);
    assert.equal(store.status(older), undefined);
    assert.throws(() => store.start(() => hold.promise), (e: unknown) => e instanceof RuntimeError && /3 jobs are still running/.test(e.message));
    assert.deepEqual(store.list().map((j) => j.state), ["running", "running", "running"]);
    assert.ok(store.status(running) && store.status(fourth));
    hold.resolve("done");
  });

  it("work disposed before it began never runs", async () => {
    const store = createJobStore();
    let ran = false;
    store.start(async () => {
      ran = true;
    });
    store.dispose();
    await settle();
    assert.equal(ran, false);
  });

  it("require names why an id is unknown", () => {
    const store = createJobStore();
    assert.throws(() => store.require("job_x"), (e: unknown) => e instanceof RuntimeError && e.code === "ARG_VALIDATION_FAILED" && /memory only/.test(e.message));
  });

  it("one store per session and plugin; ending the session aborts running work and forgets the jobs", async () => {
    const session = createSession();
    const other = createSession();
    const store = jobStoreFor(session, "ollama");
    assert.equal(jobStoreFor(session, "ollama"), store);
    assert.notEqual(jobStoreFor(session, "ccdd"), store);
    assert.notEqual(jobStoreFor(other, "ollama"), store);
    let aborted = false;
    const id = store.start((signal) => new Promise((_, reject) => signal.addEventListener("abort", () => {
      aborted = true;
      reject(signal.reason);
    })));
    assert.equal(jobStoreFor(other, "ollama").status(id), undefined, "another session does not see it");
    await settle();
    await closeSession(session);
    assert.equal(aborted, true);
    assert.deepEqual(store.list(), []);
  });
});
