import assert from "node:assert/strict";
import { test } from "node:test";
import { createLimiter } from "../src/runtime/limiter.js";

/** The listing limiter's bookkeeping: queued work that is started early holds a slot like any other, and counts return to zero. */

function held(): { promise: Promise<void>; release: () => void } {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

test("queued work started early runs at once, counts as active, and its starter does nothing once it runs", async () => {
  const limiter = createLimiter(1);
  const first = held();
  const order: string[] = [];
  const running = limiter.run(async () => {
    order.push("first");
    await first.promise;
  });
  let startNow: (() => void) | undefined;
  let toldFirst = false;
  void limiter.run(async () => {}, { onQueued: () => (toldFirst = true) }).catch(() => {});
  assert.equal(toldFirst, true, "work that has to wait is told how to skip the queue");
  const second = held();
  const skipped = limiter.run(
    async () => {
      order.push("skipped");
      await second.promise;
    },
    { onQueued: (start) => (startNow = start) },
  );
  assert.equal(limiter.waiting, 2);
  startNow!();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(order, ["first", "skipped"], "started without waiting for the first");
  assert.equal(limiter.active, 2);
  assert.equal(limiter.waiting, 1);
  startNow!();
  assert.equal(limiter.active, 2, "a second start of running work is ignored");
  second.release();
  first.release();
  await Promise.all([running, skipped]);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(limiter.active, 0);
  assert.equal(limiter.waiting, 0);
});

test("work that gets a slot at once is not told how to skip a queue", async () => {
  const limiter = createLimiter(2);
  let told = false;
  await limiter.run(async () => {}, { onQueued: () => (told = true) });
  assert.equal(told, false);
});

test("urgent work starts beyond the limit up to its own cap, then waits ahead of background work", async () => {
  const limiter = createLimiter(2, 1);
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  const job = (name: string, options: Parameters<typeof limiter.run>[1] = {}) =>
    limiter.run(async () => {
      started.push(name);
      await new Promise<void>((resolve) => gates.set(name, resolve));
    }, options);
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  const runs = [job("bg1"), job("bg2"), job("bg3")];
  let startBg4: (() => void) | undefined;
  runs.push(job("bg4", { onQueued: (start) => (startBg4 = start) }));
  await settle();
  assert.deepEqual(started, ["bg1", "bg2"], "background work: the limit");
  runs.push(job("call1", { urgent: true }));
  await settle();
  assert.deepEqual(started, ["bg1", "bg2", "call1"], "one urgent run beyond the limit");
  runs.push(job("call2", { urgent: true }));
  startBg4!();
  await settle();
  assert.equal(limiter.active, 3, "the urgent cap (limit 2 + 1) holds: call2 and the joined bg4 wait");
  assert.equal(limiter.waiting, 3);
  gates.get("bg1")!();
  await settle();
  assert.deepEqual(started.slice(3), ["call2"], "a freed slot goes to urgent work first");
  gates.get("bg2")!();
  await settle();
  assert.deepEqual(started.slice(4), ["bg4"], "a queued listing a call joined is next, ahead of bg3");
  for (const name of ["call1", "call2", "bg4"]) gates.get(name)!();
  await settle();
  assert.deepEqual(started.slice(5), ["bg3"]);
  gates.get("bg3")!();
  await Promise.all(runs);
  assert.equal(limiter.active, 0);
  assert.equal(limiter.waiting, 0);
});

test("queued work whose caller cancels never runs: its run rejects with the reason, and the queue moves on", async () => {
  const limiter = createLimiter(1, 0);
  const first = held();
  const started: string[] = [];
  const running = limiter.run(async () => {
    started.push("first");
    await first.promise;
  });
  const cancel = new AbortController();
  const given = limiter.run(async () => void started.push("cancelled"), { cancel: cancel.signal });
  const next = limiter.run(async () => void started.push("next"));
  assert.equal(limiter.waiting, 2);
  const reason = new Error("the caller's deadline");
  cancel.abort(reason);
  await assert.rejects(given, (error) => error === reason);
  assert.equal(limiter.waiting, 1, "taken out of the queue");
  first.release();
  await Promise.all([running, next]);
  assert.deepEqual(started, ["first", "next"], "the cancelled work never ran");
  assert.equal(limiter.active, 0);
  assert.equal(limiter.waiting, 0);
  await assert.rejects(limiter.run(async () => started.push("late"), { cancel: cancel.signal }), (error) => error === reason);
  assert.deepEqual(started, ["first", "next"], "work given an already cancelled signal never runs");
});
