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
