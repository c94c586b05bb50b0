import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { describe, it } from "node:test";
import { CAN_SCAN_PROCESSES, leftoverProcesses, newRunMarker, processesWithMarker, RUN_MARKER_VAR, runClient, tempDir } from "./clients-kit.js";
import { until, WAIT_MS } from "./wait.js";

/** The clients.* tests rely on these two checks; here they are shown to catch what they should. */

describe("client-run kit", { skip: CAN_SCAN_PROCESSES ? false : "needs Linux /proc" }, () => {
  it("finds a process that carries the run marker, even in its own session, and kills it", async () => {
    const marker = newRunMarker();
    // a grandchild that leaves the client's process group, as a stray MCP server could
    const stray = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { env: { ...process.env, [RUN_MARKER_VAR]: marker }, detached: true, stdio: "ignore" });
    stray.unref();
    await until(() => processesWithMarker(marker).includes(stray.pid ?? -1), "the marked process to be found", WAIT_MS, 50);
    const left = await leftoverProcesses(marker, 300);
    assert.equal(left.length, 1, `one leftover reported: ${left.join("; ")}`);
    assert.match(left[0] ?? "", /setTimeout/, "with its command line");
    await until(() => processesWithMarker(marker).length === 0, "the leftover to be killed", WAIT_MS, 50);
  });

  it("kills a client that runs past its timeout, with its whole process group", async () => {
    const marker = newRunMarker();
    const home = tempDir("kit");
    try {
      const script = "require('child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' }); setTimeout(() => {}, 60000);";
      const run = await runClient({ command: process.execPath, args: ["-e", script], env: { ...process.env, [RUN_MARKER_VAR]: marker } as Record<string, string>, cwd: home.dir, timeoutMs: 500 });
      assert.equal(run.timedOut, true);
      assert.equal(run.signal, "SIGKILL");
      assert.deepEqual(await leftoverProcesses(marker), [], "the child it started went with it");
    } finally {
      home.remove();
    }
  });
});
