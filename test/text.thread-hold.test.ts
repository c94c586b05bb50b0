import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { httpClient, startHttp, type RunningHttp } from "./http-helpers.js";
import { textJson } from "./helpers.js";

/**
 * A command line of shell builtins never lets the server's event loop turn (just-bash awaits
 * settled promises only): before, `while [ $i -lt 200000 ]` held /healthz 20 s and every other
 * session's call with it at load ~15, and a 2 s deadline let it run 74 s, until just-bash's command
 * count stopped it. Now its steps are watched (src/text/thread-hold.ts): it is stopped once it has
 * held the thread for the hold limit (AGENT_TOOLS_EXEC_HOLD_MS), and at its deadline. The built
 * HTTP server, SDK clients, real /healthz requests; bounds are generous (2 shared cores).
 */

const LOOP = "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; echo $i";

interface Answer {
  exitCode: number;
  stdout: string;
  stderr: string;
  stopped?: string;
}

async function exec(client: Client, command: string): Promise<Answer> {
  return textJson<Answer>(await client.callTool({ name: "agent_tools_exec", arguments: { command } }, undefined, { timeout: 180_000 }));
}

/** /healthz every 100 ms while `work` runs: the longest answer's time, in ms. */
async function healthzWhile<T>(url: string, work: Promise<T>): Promise<{ result: T; slowestMs: number; probes: number }> {
  let done = false;
  let slowestMs = 0;
  let probes = 0;
  const healthz = new URL("/healthz", url);
  const probing = (async () => {
    while (!done) {
      const started = performance.now();
      const res = await fetch(healthz, { signal: AbortSignal.timeout(120_000) });
      await res.text();
      slowestMs = Math.max(slowestMs, performance.now() - started);
      probes++;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  try {
    return { result: await work, slowestMs, probes };
  } finally {
    done = true;
    await probing;
  }
}

describe("agent_tools_exec: a line of shell builtins holds the server's thread for at most the hold limit", () => {
  let server: RunningHttp;
  let alice: Client;
  let bob: Client;
  before(async () => {
    server = await startHttp({ AGENT_TOOLS_EXEC_TIMEOUT_MS: "60000" });
    alice = (await httpClient(server.url)).client;
    bob = (await httpClient(server.url)).client;
    // The shell is made on a session's first line; not part of what is measured.
    await Promise.all([exec(alice, "export KEPT=before"), exec(bob, "true")]);
  });
  after(async () => {
    await Promise.all([alice?.close(), bob?.close()]);
    await server?.stop();
  });

  it("is stopped at the hold limit with exit 126, saying which limit and what to do instead; /healthz and another session are answered meanwhile", async () => {
    const started = performance.now();
    const heavy = exec(alice, LOOP);
    const other = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const asked = performance.now();
      const answer = await exec(bob, "echo hi");
      return { answer, ms: performance.now() - asked };
    })();
    const { result, slowestMs, probes } = await healthzWhile(server.url, Promise.all([heavy, other]));
    const [line, { answer, ms }] = result;
    const lineMs = performance.now() - started;
    assert.equal(line.exitCode, 126, line.stderr);
    assert.equal(line.stopped, "limit");
    assert.match(line.stderr, /kept the server busy for \d+ ms without a pause and was stopped \(the hold limit, 500 ms, AGENT_TOOLS_EXEC_HOLD_MS\)/);
    assert.match(line.stderr, /do the work in one command over the whole input \(seq, awk, jq, sed\), or split it over several calls/);
    assert.doesNotMatch(line.stderr, /too many commands/, "stopped by the hold limit, not just-bash's command count");
    assert.equal(answer.stdout, "hi\n");
    // Half a second of hold, plus the machine's load: far from the 20 s before.
    assert.ok(slowestMs < 10_000, `the slowest /healthz took ${Math.round(slowestMs)} ms`);
    assert.ok(ms < 15_000, `the other session's line took ${Math.round(ms)} ms`);
    assert.ok(probes >= 1);
    console.log(`hold limit: line stopped after ${Math.round(lineMs)} ms; slowest /healthz ${Math.round(slowestMs)} ms over ${probes} probes; another session's echo ${Math.round(ms)} ms`);
  });

  it("the session goes on with its files, variables and directory from before the stopped line", async () => {
    const next = await exec(alice, 'echo "$KEPT ${i:-unset}"');
    assert.equal(next.exitCode, 0, next.stderr);
    assert.equal(next.stdout, "before unset\n");
  });

  it("a line that pauses (sleep, a plugin call) runs past the limit, and one long command (seq) counts for little", async () => {
    const paced = await exec(alice, "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do sleep 0.05; done; echo slept");
    assert.equal(paced.exitCode, 0, paced.stderr);
    assert.equal(paced.stdout, "slept\n");
    const calls = await exec(alice, "for i in 1 2 3 4 5 6 7 8; do notes call list_notes > /dev/null || echo failed; done; echo called");
    assert.equal(calls.stdout, "called\n", calls.stderr);
    const long = await exec(alice, "seq 1 90000 | wc -l; seq 1 90000 | tail -1; echo after");
    assert.equal(long.exitCode, 0, long.stderr);
    assert.equal(long.stdout.replace(/ +/g, ""), "90000\n90000\nafter\n");
  });
});

describe("agent_tools_exec: a line of shell builtins is stopped at its deadline", () => {
  let server: RunningHttp;
  let client: Client;
  before(async () => {
    // No hold limit: the deadline alone must stop it (before, the timer could not fire until the line ended).
    server = await startHttp({ AGENT_TOOLS_EXEC_TIMEOUT_MS: "1500", AGENT_TOOLS_EXEC_HOLD_MS: "off" });
    client = (await httpClient(server.url)).client;
    await exec(client, "true");
  });
  after(async () => {
    await client?.close();
    await server?.stop();
  });

  it("with exit 124 and the deadline named, soon after it", async () => {
    const started = performance.now();
    const line = await exec(client, `echo start; ${LOOP}`);
    const ms = performance.now() - started;
    assert.equal(line.exitCode, 124, line.stderr);
    assert.equal(line.stopped, "deadline");
    assert.equal(line.stdout, "start\n", "the output before the stop is kept");
    assert.match(line.stderr, /ran past its deadline of 1500 ms and was stopped \(AGENT_TOOLS_EXEC_TIMEOUT_MS\)/);
    assert.ok(ms < 20_000, `the line took ${Math.round(ms)} ms`);
    console.log(`deadline 1500 ms, hold limit off: line answered after ${Math.round(ms)} ms`);
  });

  it("status says the hold limit is off", async () => {
    const status = textJson<{ result: { sandbox: { holdMs: unknown } } }>(await client.callTool({ name: "agent_tools_exec", arguments: { command: "status" } }));
    assert.equal(status.result.sandbox.holdMs, "off");
  });
});
