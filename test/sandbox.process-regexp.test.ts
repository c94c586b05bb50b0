import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createSandbox } from "../src/text/sandbox.js";
import { splitLines } from "../src/text-lines.js";

/**
 * The sandbox lives in the server's process, and what its command lines do must not slow the
 * runtime's own code. just-bash's defense-in-depth box (its default) redefined RegExp.prototype's
 * well-known-symbol methods on every exec and put them back; V8 then left its regexp fast paths
 * for the life of the process, so a 3 MB `split(/\r?\n/)` anywhere in the runtime went from a few
 * milliseconds to two seconds after the first `echo hi` (test/ runs each file in a process of its
 * own, so the exec below is this process's first). The sandbox is made with the box off
 * (text/sandbox.ts); hot paths split lines without a regexp anyway (text-lines.ts).
 */

const TEXT = `${"e".repeat(1023)}\n`.repeat(3 * 1024); // 3 MB of 1 KB lines

/** The fastest of a few runs of a regexp split of TEXT, in ms: the least noisy figure on a shared machine. */
function splitMs(): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    assert.equal(TEXT.split(/\r?\n/).length, 3 * 1024 + 1);
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

describe("a command line in the sandbox and the process's regexps", () => {
  it("a 3 MB regexp split is as fast after the sandbox's first command line as before it", async () => {
    const before = splitMs();
    const sandbox = await createSandbox({ timeoutMs: 60_000 }, []);
    try {
      const run = await sandbox.run("echo hi | sed 's/hi/there/'");
      assert.equal(run.stdout, "there\n");
    } finally {
      sandbox.dispose();
    }
    const after = splitMs();
    // With the box on: 100 to 500 times slower (2 s). Generous for a shared machine.
    assert.ok(after < before * 10 + 100, `after the command line ${after.toFixed(1)} ms, before ${before.toFixed(1)} ms`);
  });
});

describe("splitLines", () => {
  it("splits as /\\r?\\n/ does, a lone or final \\r included", () => {
    for (const text of ["", "a", "a\n", "a\r\nb", "a\rb\n", "a\r", "\r\n\r\n", "a\n\nb\r\n", "x\r\r\ny"]) {
      assert.deepEqual(splitLines(text), text.split(/\r?\n/), JSON.stringify(text));
    }
  });
});
