import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "node:test";
import { childrenOf, cpuMark, perCall } from "../bench/perf-kit.js";

/**
 * bench/perf-kit.ts perCall: a wrapper's downstream servers are read when the timing starts; one
 * restarted during the timing ran only part of it, so the downstream CPU is under-reported. The
 * bench says so instead of passing over it. A real parent process here restarts its real child.
 */
const WRAPPER = `
const { spawn } = require("node:child_process");
const start = () => spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
let child = start();
process.on("SIGUSR2", () => { child.kill(); child = start(); });
setInterval(() => {}, 1000);
`;

async function childrenSettled(pid: number, not: number[] = []): Promise<number[]> {
  for (let waited = 0; waited < 10_000; waited += 50) {
    const children = childrenOf(pid);
    if (children.length === 1 && !not.includes(children[0]!)) return children;
    await sleep(50);
  }
  throw new Error(`the wrapper ${pid} did not settle on one new child (${childrenOf(pid).join(", ")})`);
}

describe("bench perf: CPU per call", () => {
  it("says when a wrapper's downstream server changed during the timing, and counts only the ones that ran throughout", async () => {
    const wrapper = spawn(process.execPath, ["-e", WRAPPER], { stdio: "ignore" });
    try {
      const first = await childrenSettled(wrapper.pid!);
      const warnings: string[] = [];
      const steady = perCall(cpuMark(wrapper.pid!), 10, (m) => warnings.push(m));
      assert.equal(warnings.length, 0, `the same child throughout: nothing to say (${warnings.join("; ")})`);
      assert.ok(steady.downstreamUs >= 0 && steady.cpuUs >= 0, `per-call figures ${JSON.stringify(steady)}`);

      const before = cpuMark(wrapper.pid!);
      wrapper.kill("SIGUSR2");
      const second = await childrenSettled(wrapper.pid!, first);
      const restarted = perCall(before, 10, (m) => warnings.push(m));
      assert.equal(warnings.length, 1, "one warning");
      assert.match(warnings[0]!, new RegExp(`downstream servers of ${wrapper.pid} changed .*ended: ${first[0]}; started: ${second[0]}.*under-reported`));
      assert.equal(restarted.downstreamUs, 0, "neither child ran throughout: no downstream CPU counted (rather than a negative or a partial one)");
    } finally {
      // The child first: killed alone, the wrapper would leave it running.
      for (const child of childrenOf(wrapper.pid!)) process.kill(child, "SIGKILL");
      wrapper.kill("SIGKILL");
    }
  });
});
