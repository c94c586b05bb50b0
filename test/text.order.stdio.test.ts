import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { callJson, stdioForSuite } from "./helpers.js";

/**
 * Calls of one session run one after the other, `load` included: a `load` sent while a command
 * line runs waits for it, so its commands do not appear in the middle of that line. The built
 * server over stdio, the SDK client sending both requests at once.
 */

interface Answer {
  exitCode: number;
  stdout: string;
  stderr: string;
  result?: { loaded?: string };
}

describe("agent_tools_exec: load in the session's order", () => {
  const server = stdioForSuite(undefined, { AGENT_TOOLS_EXEC_TIMEOUT_MS: "20000" });

  it("a load sent while a line runs is answered after it, and its commands exist only for the lines after", { timeout: 60_000 }, async () => {
    const order: string[] = [];
    const running = callJson(server.client, "agent_tools_exec", { command: "sleep 1.5; runtime-echo during" }).then((r) => {
      order.push("line");
      return r.payload as unknown as Answer;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const loading = callJson(server.client, "agent_tools_exec", { command: "load runtime-demo" }).then((r) => {
      order.push("load");
      return r.payload as unknown as Answer;
    });
    const [line, load] = await Promise.all([running, loading]);
    assert.deepEqual(order, ["line", "load"], "the load waited for the line sent before it");
    assert.equal(line.exitCode, 127, "the line ran without the module's commands, as it started");
    assert.match(line.stderr, /runtime-echo: command not found/);
    assert.equal(load.exitCode, 0, load.stderr);
    assert.equal(load.result?.loaded, "runtime-demo");
    const after = (await callJson(server.client, "agent_tools_exec", { command: "runtime-echo after" })).payload as unknown as Answer;
    assert.equal(after.exitCode, 0, after.stderr);
    assert.equal(after.stdout, "after\n");
  });
});
