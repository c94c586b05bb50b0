import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { callJson, connect, FIXTURES, type Connected } from "./helpers.js";
import { tapProgress, type WireProgress } from "./wire-progress.js";

// A downstream that sent 100,000 progress steps during one call had every one relayed: 25.7 MB to
// the client over 14 s. Through the built server over stdio: a request relays at most 20 steps at
// once, then 10 a second; a step past that waits in place of the one waiting, so the latest goes
// as soon as the pace allows, and the one waiting when the answer is ready goes just before it.
// A step's message is cut to 1,000 characters.

const FLOOD_SERVER = path.join(FIXTURES, "mcp", "log-flood-server.mjs");
const BURST = 20;
const PER_SECOND = 10;

const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-progress-flood-"));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("a downstream that floods progress during a call", () => {
  let server: Connected;
  /** The steps as they came over the wire (wire-progress.ts: onprogress can lose one read with the answer). */
  const steps: WireProgress[] = [];
  before(async () => {
    const config = path.join(dir, "agent-tools.config.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { flood: { command: process.execPath, args: [FLOOD_SERVER], timeoutMs: 60_000 } } }));
    server = await connect(dir, { AGENT_TOOLS_CONFIG: config });
    tapProgress(server.client.transport, (p) => void steps.push(p));
    await callJson(server.client, "agent_tools_flood_call", { toolName: "echo", arguments: { text: "warm" } });
  });
  after(() => server.close());

  /** A `_call` of the flood server's `progress` tool asking for progress; its seconds. */
  async function progressCall(args: Record<string, unknown>): Promise<{ text: string; seconds: number }> {
    steps.length = 0;
    const started = performance.now();
    const result = (await server.client.callTool({ name: "agent_tools_flood_call", arguments: { toolName: "progress", arguments: args } }, undefined, { onprogress: () => undefined, timeout: 120_000 })) as { content: { text: string }[] };
    return { text: result.content[0]?.text ?? "", seconds: (performance.now() - started) / 1000 };
  }

  it("20,000 steps as fast as they can be written: the client gets the pace's worth, in order, the last step last", { timeout: 120_000 }, async () => {
    const { text, seconds } = await progressCall({ count: 20_000 });
    assert.match(text, /sent 20000 steps/);
    assert.ok(steps.length >= BURST, `the burst is relayed (${steps.length})`);
    // The pace, and the one step waiting when the answer was ready.
    assert.ok(steps.length <= BURST + Math.ceil(PER_SECOND * seconds) + 1, `at most the pace: ${steps.length} steps in ${seconds.toFixed(1)} s`);
    assert.deepEqual(
      steps.map((s) => s.progress),
      [...steps.map((s) => s.progress)].sort((a, b) => a - b),
      "in the order sent",
    );
    assert.equal(steps.at(-1)?.progress, 19_999, "what the client last sees is where the call got to");
    assert.equal(steps.at(-1)?.total, 20_000);
  });

  it("steps one every 20 ms past the burst: the latest waiting one goes at the pace, none after the answer", { timeout: 120_000 }, async () => {
    const { seconds } = await progressCall({ count: 80, everyMs: 20 });
    const count = steps.length;
    assert.ok(count > BURST && count < 80, `more than the burst, fewer than sent: ${count} in ${seconds.toFixed(1)} s`);
    assert.ok(count <= BURST + Math.ceil(PER_SECOND * seconds) + 1, `at most the pace: ${count} in ${seconds.toFixed(1)} s`);
    assert.equal(steps.at(-1)?.progress, 79);
    // Steps past the burst were held, not dropped in a row: the gaps between relayed steps are steps that were replaced.
    assert.ok(steps.slice(BURST).some((s, i) => s.progress > (steps[BURST + i - 1]?.progress ?? 0) + 1), JSON.stringify(steps.map((s) => s.progress)));
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(steps.length, count, "no step arrives after the answer");
  });

  it("a step's message over 1,000 characters is cut, saying how much was left out; a call within the pace gets every step whole", async () => {
    await progressCall({ count: 3, messageChars: 5_000 });
    assert.equal(steps.length, 3);
    for (const step of steps) assert.match(step.message ?? "", /^step \d x+… \(4000 more characters left out\)$/);
    assert.equal(steps[0]?.message?.indexOf("…"), 1000);
    await progressCall({ count: 5 });
    assert.deepEqual(
      steps.map((s) => [s.progress, s.message?.length]),
      [0, 1, 2, 3, 4].map((i) => [i, 200]),
    );
  });
});
