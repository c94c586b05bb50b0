import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { MCP_FIXTURES } from "./fixtures/mcp/support.js";
import { callJson, connect, writePlugin, type Connected, type Payload } from "./helpers.js";
import { callV2, connectStdioV2, v2Client } from "./v2-helpers.js";
import { until } from "./wait.js";

/**
 * A skill's run stopped while one of its steps is in flight, over real stdio: the built server,
 * an MCP plugin over a fixture downstream that logs every call, cancel and end, and skills that
 * send `adapter.call(name, args)` as skills write it (no context). The run's deadline answers
 * UPSTREAM_TIMEOUT naming the writes sent (not a plugin that "threw a Promise": the deadline's
 * check asks the plugin's own adapter whether it is still starting, not the skill's gated view),
 * and the deadline or the client's cancel (2025: notifications/cancelled; 2026-07-28: the
 * client's AbortSignal) cancels the step downstream. With the catalog cache on the plugin's
 * adapter is a deferred one: the same holds.
 */

const FIXTURE = path.join(MCP_FIXTURES, "slow-steps-server.mjs");
/** Far past every bound of these tests: a step that lasts this long was never stopped. */
const FOREVER_MS = 120_000;

const SKILLS: Record<string, string> = {
  // A read, then a write; each lasts its own time.
  "skills/slowpair.mjs": `export const meta = { description: "Read slowly then write slowly.", args: { type: "object", properties: { read: { type: "number" }, write: { type: "number" }, tag: { type: "string" } } } };
export async function run(adapter, args) {
  const r = await adapter.call("slow_read", { ms: args.read, tag: args.tag + "-r" });
  const w = await adapter.call("slow_write", { ms: args.write, tag: args.tag + "-w" });
  return { r, w };
}`,
  // A write sent with a context of the skill's own, whose signal would never abort in time.
  "skills/own-long-signal.mjs": `export const meta = { description: "A write with its own long signal.", args: { type: "object", properties: { tag: { type: "string" } } } };
export async function run(adapter, args, context) {
  return adapter.call("slow_write", { ms: ${FOREVER_MS}, tag: args.tag }, { signal: AbortSignal.timeout(${FOREVER_MS}), log: context.log });
}`,
  // A read sent with a signal of the skill's own that aborts soon: the step stops, the run goes on.
  "skills/own-short-signal.mjs": `export const meta = { description: "A read it stops itself.", args: { type: "object", properties: { tag: { type: "string" } } } };
export async function run(adapter, args) {
  try {
    await adapter.call("slow_read", { ms: ${FOREVER_MS}, tag: args.tag }, { signal: AbortSignal.timeout(300) });
    return { stopped: false };
  } catch {
    return { stopped: true };
  }
}`,
  // The same, collecting garbage while the step is in flight (the server runs with --expose-gc):
  // the step's timeout signal, held by nothing but the joined one, must still fire.
  "skills/own-short-signal-gc.mjs": `export const meta = { description: "A read it stops itself, under GC.", args: { type: "object", properties: { tag: { type: "string" } } } };
export async function run(adapter, args) {
  const step = adapter.call("slow_read", { ms: ${FOREVER_MS}, tag: args.tag }, { signal: AbortSignal.timeout(300) }).then(() => false, () => true);
  let stopped;
  step.then((value) => { stopped = value; });
  for (let i = 0; i < 40 && stopped === undefined; i++) {
    globalThis.gc();
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return { stopped: await step };
}`,
  // What the adapter says of itself: plain values, not promises the gate holds as writes.
  "skills/status.mjs": `export const meta = { description: "The adapter's status methods." };
export async function run(adapter) {
  const values = { stillStarting: adapter.stillStarting(), health: adapter.health(), protocolVerdict: adapter.protocolVerdict(), serverInfo: adapter.serverInfo() };
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, value instanceof Promise ? "a promise" : value === undefined ? "undefined" : typeof value]));
}`,
};

/** A folder with the `sk` plugin over the fixture, its calls logged to `log`. */
function pluginsWithLog(prefix: string): { dir: string; log: string } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const log = path.join(dir, "calls.log");
  writeFileSync(log, "");
  writePlugin(path.join(dir, "agent-tools-plugin-sk"), { name: "sk", prefix: "sk", description: "Slow steps (tests only)", adapter: { kind: "mcp", command: process.execPath, args: [FIXTURE, "--call-log", log] }, skills: "skills" }, SKILLS);
  return { dir, log };
}

const logLines = (log: string): string[] => readFileSync(log, "utf8").split("\n").filter(Boolean);
const logged = (log: string, start: string): string | undefined => logLines(log).find((line) => line.startsWith(start));

/** Wait for the downstream to log a line starting `start`, and return it. */
async function loggedLine(log: string, start: string, what: string): Promise<string> {
  await until(() => logged(log, start) !== undefined, what);
  return logged(log, start) ?? "";
}

const errorOf = (payload: Payload): NonNullable<Payload["error"]> => payload.error ?? assert.fail(`not an error: ${JSON.stringify(payload)}`);

/**
 * With the cache on, the first run builds the deferred adapter (the MCP client loads, the server
 * starts and shakes hands) under its deadline: seconds on a loaded machine, so a longer deadline.
 */
for (const { cache, deadlineMs } of [{ cache: "off", deadlineMs: 4000 }, { cache: "on", deadlineMs: 8000 }] as const) {
  describe(`a skill's run that reaches its deadline mid-step (catalog cache ${cache})`, () => {
    let dir: string;
    let log: string;
    let server: Connected;
    before(async () => {
      ({ dir, log } = pluginsWithLog(`agent-tools-stopped-steps-${cache}-`));
      const cacheEnv: Record<string, string> = cache === "on" ? { AGENT_TOOLS_CATALOG_CACHE: "on", AGENT_TOOLS_CACHE_DIR: path.join(dir, "cache") } : {};
      server = await connect(dir, { AGENT_TOOLS_CALL_TIMEOUT_MS: String(deadlineMs), ...cacheEnv });
    });
    after(async () => {
      await server?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    // First: with the cache on, the skill's adapter is then the deferred one, not yet built.
    it("a write in flight: UPSTREAM_TIMEOUT naming the write, and the downstream write is cancelled", async () => {
      const tag = `dl-write-${cache}`;
      const { payload, isError } = await callJson(server.client, "agent_tools_sk_run_skill", { skill: "slowpair", arguments: { read: 200, write: FOREVER_MS, tag }, confirm: true });
      assert.equal(isError, true);
      const error = errorOf(payload);
      assert.equal(error.code, "UPSTREAM_TIMEOUT", JSON.stringify(error));
      assert.match(error.message, new RegExp(`skill 'sk:slowpair' did not answer within ${deadlineMs} ms`));
      assert.deepEqual(error.details?.writesSent, ["slow_write"]);
      assert.equal(error.details?.stepsSent, 2);
      assert.match(error.hint, /had already sent steps that change data \('slow_write'\) before it was stopped/);
      assert.doesNotMatch(`${error.message} ${error.hint}`, /threw a Promise|needs fixing/);
      // The step in flight is cancelled downstream, saying why; it did not run to its end.
      const cancelled = await loggedLine(log, `cancelled slow_write ${tag}-w`, "the downstream write to be cancelled");
      assert.match(cancelled, new RegExp(`skill 'sk:slowpair' did not answer within ${deadlineMs} ms`));
      assert.equal(await loggedLine(log, `done slow_write ${tag}-w`, "the downstream write to end"), `done slow_write ${tag}-w aborted=true`);
      assert.doesNotMatch(server.stderr(), /asked for step 'stillStarting'/);
    });

    it("a read in flight: UPSTREAM_TIMEOUT with no write sent, the read cancelled, and the write never sent", async () => {
      const tag = `dl-read-${cache}`;
      const { payload } = await callJson(server.client, "agent_tools_sk_run_skill", { skill: "slowpair", arguments: { read: FOREVER_MS, write: 1, tag }, confirm: true });
      const error = errorOf(payload);
      assert.equal(error.code, "UPSTREAM_TIMEOUT", JSON.stringify(error));
      assert.deepEqual(error.details?.writesSent, []);
      assert.equal(error.details?.stepsSent, 1);
      assert.match(error.hint, /stopped before it sent any step that changes data \(1 read step sent\)/);
      assert.equal(await loggedLine(log, `done slow_read ${tag}-r`, "the downstream read to end"), `done slow_read ${tag}-r aborted=true`);
      // The read's failure ends the skill's code: its write is never asked for, let alone sent.
      assert.equal(logged(log, `call slow_write ${tag}-w`), undefined);
    });

    // Once (the cache's deadline is long): what a step is sent with does not depend on the adapter's kind.
    if (cache === "off") {
      it("a step sent with the skill's own signal is still cancelled at the run's deadline", async () => {
        const tag = `own-long-${cache}`;
        const { payload } = await callJson(server.client, "agent_tools_sk_run_skill", { skill: "own-long-signal", arguments: { tag }, confirm: true });
        const error = errorOf(payload);
        assert.equal(error.code, "UPSTREAM_TIMEOUT", JSON.stringify(error));
        assert.deepEqual(error.details?.writesSent, ["slow_write"]);
        assert.equal(await loggedLine(log, `done slow_write ${tag}`, "the downstream write to end"), `done slow_write ${tag} aborted=true`);
      });
    }

    it("a step sent with the skill's own short signal stops at it, and the run goes on to answer", async () => {
      const tag = `own-short-${cache}`;
      const { payload, isError } = await callJson(server.client, "agent_tools_sk_run_skill", { skill: "own-short-signal", arguments: { tag } });
      assert.equal(isError, false, JSON.stringify(payload));
      assert.deepEqual(payload.result, { stopped: true });
      assert.equal(await loggedLine(log, `done slow_read ${tag}`, "the downstream read to end"), `done slow_read ${tag} aborted=true`);
    });

    it("the adapter's status methods answer plain values to a skill, without confirm", async () => {
      const { payload, isError } = await callJson(server.client, "agent_tools_sk_run_skill", { skill: "status", arguments: {} });
      assert.equal(isError, false, JSON.stringify(payload));
      const result = payload.result as Record<string, string>;
      for (const method of ["stillStarting", "health", "protocolVerdict", "serverInfo"]) assert.notEqual(result[method], "a promise", `${method}: ${JSON.stringify(result)}`);
      // The server has started (the runs above): nothing is starting.
      assert.equal(result.stillStarting, "undefined");
    });
  });
}

describe("a step's own timeout signal under garbage collection", () => {
  // Node 20's AbortSignal.any held the step's timeout weakly: a GC collected it and the step ran
  // on to the run's deadline (a CI run hit this without forcing GC). Here the server collects
  // garbage while the step is in flight.
  let dir: string;
  let log: string;
  let server: Connected;
  before(async () => {
    ({ dir, log } = pluginsWithLog("agent-tools-stopped-steps-gc-"));
    server = await connect(dir, { AGENT_TOOLS_CALL_TIMEOUT_MS: "20000" }, ["--expose-gc"]);
    // The downstream started and answering: a step stopped at 300 ms is then one that was sent.
    const { isError } = await callJson(server.client, "agent_tools_sk_run_skill", { skill: "slowpair", arguments: { read: 1, write: 1, tag: "warm" }, confirm: true });
    assert.equal(isError, false);
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("stops the step at its own 300 ms, not at the run's 20 s deadline", async () => {
    const tag = "own-short-gc";
    const { payload, isError } = await callJson(server.client, "agent_tools_sk_run_skill", { skill: "own-short-signal-gc", arguments: { tag } });
    assert.equal(isError, false, JSON.stringify(payload));
    assert.deepEqual(payload.result, { stopped: true });
    assert.equal(await loggedLine(log, `done slow_read ${tag}`, "the downstream read to end"), `done slow_read ${tag} aborted=true`);
  });
});

describe("a client that cancels a skill's run mid-step", () => {
  let dir: string;
  let log: string;
  before(() => {
    ({ dir, log } = pluginsWithLog("agent-tools-cancelled-steps-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("2025 era (notifications/cancelled): the downstream write in flight is cancelled", async () => {
    const server = await connect(dir, { AGENT_TOOLS_CALL_TIMEOUT_MS: "60000" });
    try {
      const tag = "cancel-2025";
      const stop = new AbortController();
      const running = server.client.callTool({ name: "agent_tools_sk_run_skill", arguments: { skill: "slowpair", arguments: { read: 200, write: FOREVER_MS, tag }, confirm: true } }, CallToolResultSchema, { signal: stop.signal });
      const settled = running.then(
        () => "answered",
        () => "rejected",
      );
      await loggedLine(log, `call slow_write ${tag}-w`, "the write step to reach the downstream");
      stop.abort("the user pressed Esc");
      assert.equal(await settled, "rejected");
      const cancelled = await loggedLine(log, `cancelled slow_write ${tag}-w`, "the downstream write to be cancelled");
      assert.match(cancelled, /cancelled by the client/);
      assert.equal(await loggedLine(log, `done slow_write ${tag}-w`, "the downstream write to end"), `done slow_write ${tag}-w aborted=true`);
    } finally {
      await server.close();
    }
  });

  it("2026-07-28 era (the client's AbortSignal): the downstream write in flight is cancelled", async () => {
    const { client } = await connectStdioV2(v2Client("pin"), { AGENT_TOOLS_PLUGINS_DIR: dir, AGENT_TOOLS_CALL_TIMEOUT_MS: "60000" });
    try {
      const tag = "cancel-2026";
      const stop = new AbortController();
      const settled = callV2(client, "agent_tools_sk_run_skill", { skill: "slowpair", arguments: { read: 200, write: FOREVER_MS, tag }, confirm: true }, { signal: stop.signal, timeout: FOREVER_MS }).then(
        () => "answered",
        () => "rejected",
      );
      await loggedLine(log, `call slow_write ${tag}-w`, "the write step to reach the downstream");
      stop.abort("the user pressed Esc");
      assert.equal(await settled, "rejected");
      assert.ok(await loggedLine(log, `cancelled slow_write ${tag}-w`, "the downstream write to be cancelled"));
      assert.equal(await loggedLine(log, `done slow_write ${tag}-w`, "the downstream write to end"), `done slow_write ${tag}-w aborted=true`);
    } finally {
      await client.close();
    }
  });
});
