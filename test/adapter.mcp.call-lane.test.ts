import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, afterEach, describe, test } from "node:test";
import { trackedChildren, type McpAdapter } from "../src/adapters/mcp/index.js";
import type { CallRelay } from "../src/adapters/relay.js";
import type { CallContext } from "../src/adapters/types.js";
import { silentLogger } from "../src/log.js";
import { Cancel } from "../src/cancel.js";
import { buildAdapter, liveChildren, MCP_FIXTURES, textOf } from "./fixtures/mcp/support.js";
import { connect } from "./helpers.js";
import { V2_FIXTURE } from "./v2-helpers.js";

/**
 * The tools/call fast lane (src/adapters/mcp/call-lane.ts), differentially: the same calls to
 * the same real stdio servers through an adapter with the lane (the default) and one with
 * AGENT_TOOLS_CALL_LANE=off (every call through the SDK Client) give the same answers, errors
 * (code and text), progress, log messages and questions, and the server sees the same
 * cancellations. The fixture reports each call's id kind, which tells the two paths apart
 * (the lane's ids are strings, the SDK's numbers).
 */

const LANE_SERVER = path.join(MCP_FIXTURES, "lane-server.mjs");
const TSX = import.meta.resolve("tsx");
const opened: McpAdapter[] = [];
const tmp = mkdtempSync(path.join(os.tmpdir(), "call-lane-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

afterEach(async () => {
  await Promise.all(opened.splice(0).map((a) => a.close()));
  assert.deepEqual(liveChildren(), [], "no child process left behind");
  assert.deepEqual(trackedChildren(), []);
});

interface Pair {
  lane: McpAdapter;
  sdk: McpAdapter;
}

/** Two adapters over their own copy of the server: the lane on, and off. Catalogs read (the lane needs one). */
async function pair(args: string[] = [LANE_SERVER], spec: Record<string, unknown> = {}): Promise<Pair> {
  const make = (env: Record<string, string>): McpAdapter => {
    const adapter = buildAdapter({ kind: "mcp", command: process.execPath, args, ...spec }, { env: { ...process.env, ...env }, name: "lane-fixture" });
    opened.push(adapter);
    return adapter;
  };
  const built = { lane: make({}), sdk: make({ AGENT_TOOLS_CALL_LANE: "off" }) };
  await Promise.all([built.lane.listTools(), built.sdk.listTools()]);
  return built;
}

type Outcome = { result: unknown } | { error: { code: unknown; message: string; hint?: unknown; status?: unknown } };

async function outcome(adapter: McpAdapter, name: string, args: Record<string, unknown> = {}, ctx?: Partial<CallContext>): Promise<Outcome> {
  const context: CallContext = { signal: new AbortController().signal, sessionId: "s", log: silentLogger, ...ctx };
  try {
    return { result: await adapter.call(name, args, context) };
  } catch (error) {
    const e = error as { code?: unknown; message: string; hint?: unknown; status?: unknown };
    return { error: { code: e.code, message: e.message, ...(e.hint !== undefined ? { hint: e.hint } : {}), ...(e.status !== undefined ? { status: e.status } : {}) } };
  }
}

/** The same call on both adapters: equal outcomes; returns the lane's. */
async function same(p: Pair, name: string, args: Record<string, unknown> = {}): Promise<Outcome> {
  const [viaLane, viaSdk] = await Promise.all([outcome(p.lane, name, args), outcome(p.sdk, name, args)]);
  assert.deepEqual(viaLane, viaSdk, `${name}: the lane answers as the SDK path does`);
  return viaLane;
}

describe("tools/call fast lane, against the SDK path (AGENT_TOOLS_CALL_LANE=off)", () => {
  test("answers of every shape are identical; plain calls take the lane, a tool with an outputSchema does not", async () => {
    const p = await pair();
    assert.equal(textOf(((await outcome(p.lane, "id_kind")) as { result: unknown }).result), "string", "the lane's ids are strings");
    assert.equal(textOf(((await outcome(p.sdk, "id_kind")) as { result: unknown }).result), "number", "the SDK's ids are numbers");
    const before = p.lane.laneCalls ?? 0;
    assert.equal(p.sdk.laneCalls, undefined, "no lane when turned off");

    assert.equal(textOf((await same(p, "echo", { text: "hello" }) as { result: unknown }).result), "hello");
    const structured = (await same(p, "structured")) as { result: { structuredContent?: unknown } };
    assert.deepEqual(structured.result.structuredContent, { a: 1, b: [1, 2], c: { d: "e" } });
    assert.equal(((await same(p, "is_error")) as { result: { isError?: boolean } }).result.isError, true);
    assert.equal(((await same(p, "image")) as { result: { content: unknown[] } }).result.content.length, 2, "a non-plain result goes through the SDK's schema, same answer");
    await same(p, "with_meta");
    const typedResult = (await same(p, "result_type")) as { result: Record<string, unknown> };
    assert.equal(typedResult.result.resultType, undefined, "the era's decode stripped resultType on both paths");
    const invalid = (await same(p, "invalid")) as { error: { code: string; message: string } };
    assert.equal(invalid.error.code, "UPSTREAM_ERROR");
    assert.match(invalid.error.message, /Invalid result for tools\/call/);
    const rpc = (await same(p, "rpc_error")) as { error: { code: string; message: string } };
    assert.equal(rpc.error.code, "UPSTREAM_ERROR");
    assert.match(rpc.error.message, /answered tools\/call 'rpc_error' with an error: .*the backend is down/);
    await same(p, "unknown_tool");
    assert.equal((p.lane.laneCalls ?? 0) - before, 9, "each of those calls took the lane");

    // A tool with an outputSchema: the SDK checks structuredContent against it, so the lane leaves it to the SDK.
    const typed = (await same(p, "typed", { n: 3 })) as { result: { structuredContent: { id: string } } };
    assert.equal(typed.result.structuredContent.id, "number", "the SDK path took it");
    // One that misses it is passed on as sent, the mismatch said in a warning (output-check.ts), on both.
    const warned: string[] = [];
    const mismatch = (await outcome(p.lane, "typed", { n: "three" }, { warn: (m) => warned.push(m) })) as { result: { structuredContent: { n: unknown } } };
    assert.equal(mismatch.result.structuredContent.n, "three");
    assert.deepEqual(await outcome(p.sdk, "typed", { n: "three" }, { warn: (m) => warned.push(m) }), mismatch);
    assert.equal(warned.length, 2);
    assert.match(warned[0] ?? "", /does not match its own outputSchema \(data\/n must be number\)/);

    // After a list_changed the catalog and the SDK's cached list are both dropped: the SDK checks
    // no outputSchema until the next listing, and the answers stay the same on both paths.
    await same(p, "changed");
    assert.equal(textOf(((await outcome(p.lane, "id_kind")) as { result: unknown }).result), "string");
    assert.equal(((await same(p, "typed", { n: "four" })) as { result: { structuredContent: { id: string } } }).result.structuredContent.id, "number");
    await Promise.all([p.lane.listTools(), p.sdk.listTools()]);
    const checked: string[] = [];
    await outcome(p.lane, "typed", { n: "five" }, { warn: (m) => checked.push(m) });
    await outcome(p.sdk, "typed", { n: "five" }, { warn: (m) => checked.push(m) });
    assert.equal(checked.length, 2, "after the listing the SDK checks the outputSchema again, on both");
  });

  test("timeout: the same UPSTREAM_TIMEOUT, and the server is told with the same notifications/cancelled", async () => {
    // 2.5 s, not less: the servers' start and the calls after the timeout run under the same deadline
    // and must succeed on a loaded machine.
    const p = await pair([LANE_SERVER], { timeoutMs: 2500 });
    const timedOut = (await same(p, "hang")) as { error: { code: string; message: string } };
    assert.equal(timedOut.error.code, "UPSTREAM_TIMEOUT");
    assert.match(timedOut.error.message, /did not answer tools\/call 'hang' within 2500 ms/);
    const [viaLane, viaSdk] = await Promise.all([outcome(p.lane, "cancellations"), outcome(p.sdk, "cancellations")]);
    const laneSeen = JSON.parse(textOf((viaLane as { result: unknown }).result)) as { idKind: string; reason: string }[];
    const sdkSeen = JSON.parse(textOf((viaSdk as { result: unknown }).result)) as { idKind: string; reason: string }[];
    assert.deepEqual(laneSeen.map((c) => c.reason), sdkSeen.map((c) => c.reason));
    assert.deepEqual(laneSeen.map((c) => c.idKind), ["string"]);
    assert.deepEqual(sdkSeen.map((c) => c.idKind), ["number"]);
    assert.equal(textOf(((await same(p, "echo", { text: "after" })) as { result: unknown }).result), "after", "the connection still serves");
  });

  test("the caller's abort: the same cancellation error, and the same notifications/cancelled downstream", async () => {
    const p = await pair();
    const cancel = async (adapter: McpAdapter): Promise<Outcome> => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error("the agent went away")), 150);
      return outcome(adapter, "hang", {}, { signal: controller.signal });
    };
    const [viaLane, viaSdk] = await Promise.all([cancel(p.lane), cancel(p.sdk)]);
    assert.deepEqual(viaLane, viaSdk);
    assert.match((viaLane as { error: { message: string } }).error.message, /cancelled by the caller/);
    const seen = async (adapter: McpAdapter) => (JSON.parse(textOf(((await outcome(adapter, "cancellations")) as { result: unknown }).result)) as { reason: string }[]).map((c) => c.reason);
    assert.deepEqual(await seen(p.lane), await seen(p.sdk));
    assert.deepEqual(await seen(p.lane), ["Error: the agent went away"]);
    // Aborted before it starts: refused the same way, nothing sent.
    const aborted = AbortSignal.abort(new Error("too late"));
    const [early, earlySdk] = await Promise.all([outcome(p.lane, "echo", { text: "x" }, { signal: aborted }), outcome(p.sdk, "echo", { text: "x" }, { signal: aborted })]);
    assert.deepEqual(early, earlySdk);
  });

  test("the caller's abort through a Cancel (the pipeline's, no AbortSignal made): the same error and notifications/cancelled as through a signal", async () => {
    const p = await pair();
    const viaCancel = async (adapter: McpAdapter): Promise<Outcome> => {
      const cancel = new Cancel();
      setTimeout(() => cancel.abort(new Error("the agent went away")), 150);
      return outcome(adapter, "hang", {}, { cancel });
    };
    const viaSignal = async (adapter: McpAdapter): Promise<Outcome> => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error("the agent went away")), 150);
      return outcome(adapter, "hang", {}, { signal: controller.signal });
    };
    const [lane, sdk, laneSignal] = await Promise.all([viaCancel(p.lane), viaCancel(p.sdk), viaSignal(p.lane)]);
    assert.deepEqual(lane, laneSignal);
    assert.deepEqual(sdk, laneSignal);
    const seen = async (adapter: McpAdapter) => (JSON.parse(textOf(((await outcome(adapter, "cancellations")) as { result: unknown }).result)) as { reason: string }[]).map((c) => c.reason);
    assert.deepEqual(await seen(p.lane), ["Error: the agent went away", "Error: the agent went away"]);
    assert.deepEqual(await seen(p.sdk), ["Error: the agent went away"]);
    // Aborted before it starts: refused as with an aborted signal, nothing sent.
    const early = new Cancel();
    early.abort(new Error("too late"));
    const [laneEarly, sdkEarly, signalEarly] = await Promise.all([
      outcome(p.lane, "echo", { text: "x" }, { cancel: early }),
      outcome(p.sdk, "echo", { text: "x" }, { cancel: early }),
      outcome(p.lane, "echo", { text: "x" }, { signal: AbortSignal.abort(new Error("too late")) }),
    ]);
    assert.deepEqual(laneEarly, signalEarly);
    assert.deepEqual(sdkEarly, signalEarly);
  });

  test("progress, log messages and a server's elicitation during a call reach the relay alike", async () => {
    const p = await pair();
    const run = async (adapter: McpAdapter) => {
      const seen = { progress: [] as unknown[], logs: [] as unknown[], asked: [] as unknown[] };
      const relay: CallRelay = {
        progress: (update) => seen.progress.push(update),
        log: (message) => seen.logs.push(message),
        elicit: async (params) => {
          seen.asked.push(params);
          return { action: "accept", content: { reply: "yes" } };
        },
      };
      const results = [];
      for (const name of ["progress", "log", "ask"]) results.push(await outcome(adapter, name, { steps: 3 }, { relay }));
      return { results, seen };
    };
    const [viaLane, viaSdk] = await Promise.all([run(p.lane), run(p.sdk)]);
    assert.deepEqual(viaLane, viaSdk);
    assert.deepEqual(viaLane.seen.progress, [{ progress: 1, total: 3, message: "first step" }, { progress: 2, total: 3 }, { progress: 3, total: 3 }], "the malformed and the foreign progress are dropped");
    assert.deepEqual(viaLane.seen.logs, [{ level: "info", logger: "lane-fixture", data: "a note" }]);
    assert.equal(textOf((viaLane.results[2] as { result: unknown }).result), JSON.stringify({ action: "accept", content: { reply: "yes" } }), "the server's request with a lane-shaped string id reached the SDK client");
    // Without a relay that can ask, both refuse the question the same way.
    await same(p, "ask");
  });

  test("progress read in one chunk with the answer reaches the relay on both paths (the SDK client ran its progress handler a microtask late, after the answer had removed it)", async () => {
    const p = await pair();
    const run = async (adapter: McpAdapter) => {
      const progress: unknown[] = [];
      const result = await outcome(adapter, "burst", { steps: 3 }, { relay: { progress: (update) => progress.push(update) } });
      return { result, progress };
    };
    const [viaLane, viaSdk] = await Promise.all([run(p.lane), run(p.sdk)]);
    const steps = [1, 2, 3].map((progress) => ({ progress, total: 3 }));
    assert.deepEqual(viaSdk.progress, steps, "the SDK path (an outputSchema keeps the call off the lane) relays every step");
    assert.deepEqual(viaLane, viaSdk);
    assert.deepEqual((viaSdk.result as { result: { structuredContent: unknown } }).result.structuredContent, { steps: 3 });
  });

  test("a server that dies mid-call fails the call alike (its stderr tail included); the next call starts it again", async () => {
    const p = await pair();
    const died = (await same(p, "die")) as { error: { code: string; message: string } };
    assert.equal(died.error.code, "UPSTREAM_ERROR");
    assert.match(died.error.message, /exited with code \d+ during tools\/call 'die'.*took effect is unknown.*marker-4410/s);
    await Promise.all([p.lane.listTools(), p.sdk.listTools()]);
    assert.equal(textOf(((await outcome(p.lane, "id_kind")) as { result: unknown }).result), "string", "the new connection has its lane");
  });

  test("a 2026-07-28 server stays on the SDK path, with the same answers, progress and questions", async () => {
    const p = await pair(["--import", TSX, path.join(path.dirname(V2_FIXTURE), "downstream.ts"), "reject"], { timeoutMs: 30_000 });
    assert.equal(p.lane.era, "modern");
    const run = async (adapter: McpAdapter) => {
      const seen = { progress: [] as unknown[], asked: [] as unknown[] };
      const relay: CallRelay = {
        progress: (update) => seen.progress.push(update),
        elicit: async (params) => {
          seen.asked.push(params);
          return { action: "accept", content: { reply: "fine" } };
        },
      };
      const results = [await outcome(adapter, "echo", { text: "modern" }), await outcome(adapter, "slow_steps", { steps: 2 }, { relay }), await outcome(adapter, "ask_user", { question: "ok?" }, { relay })];
      return { results, seen };
    };
    const [viaLane, viaSdk] = await Promise.all([run(p.lane), run(p.sdk)]);
    assert.deepEqual(viaLane, viaSdk);
    assert.equal(textOf((viaLane.results[2] as { result: unknown }).result), "the user said: fine");
    assert.ok(viaLane.seen.progress.length >= 2, "progress relayed");
    assert.equal(p.lane.laneCalls, 0, "no call took the lane");
  });

  test("the built runtime answers the agent alike through the facade, lane on or off", async () => {
    const config = path.join(tmp, "agent-tools.config.json");
    // 5 s: the server's start and every call but 'hang' must succeed within it on a loaded machine.
    writeFileSync(config, JSON.stringify({ mcpServers: { lf: { command: process.execPath, args: [LANE_SERVER], requireConfirm: false, timeoutMs: 5_000 } } }));
    const run = async (env: Record<string, string>) => {
      const runtime = await connect(tmp, { AGENT_TOOLS_CONFIG: config, ...env });
      try {
        const answers = [];
        for (const toolName of ["id_kind", "echo", "structured", "is_error", "image", "with_meta", "invalid", "rpc_error", "hang", "die"]) {
          answers.push(await runtime.client.callTool({ name: "agent_tools_lf_call", arguments: { toolName, arguments: { text: "hi" } } }));
        }
        return answers;
      } finally {
        await runtime.close();
      }
    };
    const [viaLane, viaSdk] = await Promise.all([run({}), run({ AGENT_TOOLS_CALL_LANE: "off" })]);
    assert.match(JSON.stringify(viaLane[0]), /string/, "the lane took the call");
    assert.match(JSON.stringify(viaSdk[0]), /number/, "the SDK path took the call");
    assert.deepEqual(viaLane.slice(1), viaSdk.slice(1));
    assert.match(JSON.stringify(viaLane.at(-2)), /UPSTREAM_TIMEOUT/);
    assert.match(JSON.stringify(viaLane.at(-1)), /marker-4410/);
  });
});
