import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { ROOT } from "./helpers.js";

/** scripts/together.ts, as `npm test`'s pretest runs it: real shells, side by side. */

function together(...commands: string[]) {
  return spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts", "together.ts"), ...commands], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
}

describe("scripts/together.ts", () => {
  it("runs the commands at once: each waits for the other to have started", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-together-"));
    try {
      // Each command marks its start, then waits (up to 60 s) for the other's mark: run one after the other, the first would give up.
      const meet = (me: string, other: string) => `touch ${dir}/${me}; i=0; while [ ! -e ${dir}/${other} ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; test -e ${dir}/${other} && echo ${me} met ${other}`;
      const run = together(meet("a", "b"), meet("b", "a"));
      assert.equal(run.status, 0, run.stdout + run.stderr);
      assert.match(run.stdout, /a met b/);
      assert.match(run.stdout, /b met a/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("writes each command's output whole under its name, and fails naming the command that failed", () => {
    const run = together("echo one; echo two; echo oops >&2; exit 3", "echo fine");
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /\[together\] echo one; echo two; echo oops >&2; exit 3\none\ntwo\n/);
    assert.match(run.stdout, /\[together\] echo fine\nfine\n/);
    assert.match(run.stderr, /oops\n/);
    assert.match(run.stderr, /\[together\] failed \(exit 3\): echo one; echo two; echo oops >&2; exit 3/);
    assert.doesNotMatch(run.stderr, /failed .*echo fine/);
  });

  it("with no command, exits 2 saying how to pass them", () => {
    const run = together();
    assert.equal(run.status, 2);
    assert.match(run.stderr, /no command given; pass each shell command as one argument/);
  });
});
