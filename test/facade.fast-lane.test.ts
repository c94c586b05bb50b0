import assert from "node:assert/strict";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { baseEnv, MCP_BIN, ROOT } from "./helpers.js";
import { V2_DOWNSTREAM_ARGS } from "./v2-helpers.js";

/**
 * The fast lane (src/facade/fast-lane.ts) against the SDK path, over real stdio: the same script
 * of raw JSON-RPC lines is played to the built server twice, lane on and lane off
 * (AGENT_TOOLS_FAST_LANE=off), and every line the server writes must be the same, byte for byte,
 * in the same order — successes, tool errors, validation errors with hints, unknown tools,
 * malformed calls, cancellation, a write the user confirms (the lane hands it to the SDK's shim),
 * a skill that may ask midway, progress tokens, log messages and their level filter, questions
 * and sampling of a downstream server — in both eras. The lane's own counts (logged at shutdown)
 * show it really took the calls it should.
 */

const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-fast-lane-"));
const writes = path.join(dir, "writes.log");
const pluginsDir = path.join(dir, "plugins");
after(() => rmSync(dir, { recursive: true, force: true }));

function plugin(prefix: string, adapter: Record<string, unknown>, skills: Record<string, string> = {}, manifest: Record<string, unknown> = {}): void {
  const folder = path.join(pluginsDir, `agent-tools-plugin-${prefix}`);
  mkdirSync(path.join(folder, "skills"), { recursive: true });
  writeFileSync(path.join(folder, "plugin.json"), JSON.stringify({ name: prefix, prefix, description: `Fast-lane plugin '${prefix}'.`, adapter: { kind: "mcp", timeoutMs: 30_000, ...adapter }, ...manifest }));
  for (const [name, body] of Object.entries(skills)) writeFileSync(path.join(folder, "skills", `${name}.mjs`), body);
}
// The dual-era v2 fixture: echo, write_row (a write), slow_steps (progress), ask_user (a question), summarize (sampling), log_note.
plugin("db", { command: process.execPath, args: [...V2_DOWNSTREAM_ARGS], env: { V2_WRITE_LOG: writes } }, {
  "two-rows": `export const meta = { description: "Write two rows." };
export async function run(adapter, args) {
  await adapter.call("echo", { text: "read first" });
  await adapter.call("write_row", { table: args.table ?? "t", value: "one" });
  await adapter.call("write_row", { table: args.table ?? "t", value: "two" });
  return { wrote: 2 };
}
`,
});
// The plain stdio fixture: sleep {ms} for cancellation, crash (the server exits mid-call) for a downstream's failure.
plugin("fx", { command: process.execPath, args: [path.join(ROOT, "test", "fixtures", "mcp", "stdio-server.mjs")] }, {}, { readonlyTools: ["sleep"] });

const written = (): number => {
  try {
    return readFileSync(writes, "utf8").trim().split("\n").filter(Boolean).length;
  } catch {
    return 0;
  }
};

type Message = Record<string, unknown> & { id?: string | number; method?: string; params?: Record<string, unknown> };

/** The built server over stdio, driven line by line: every line it writes is kept as it came. */
class RawPeer {
  readonly lines: string[] = [];
  #stderr = "";
  #buffer = "";
  #waiters: Array<{ test: (m: Message) => boolean; resolve: (m: Message) => void }> = [];
  readonly #child: ChildProcessWithoutNullStreams;

  constructor(lane: boolean) {
    this.#child = spawn(process.execPath, [MCP_BIN], {
      // Search ranks with BM25F only: the two runs compare answers, and a discover answered before the
      // semantic model is ready differs from one answered after (hybrid ranking), lane or no lane.
      env: baseEnv({ AGENT_TOOLS_PLUGINS_DIR: pluginsDir, AGENT_TOOLS_LOG: "debug", AGENT_TOOLS_SEMANTIC: "off", ...(lane ? {} : { AGENT_TOOLS_FAST_LANE: "off" }) }),
      cwd: dir,
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.#child.stderr.on("data", (chunk: Buffer) => (this.#stderr += chunk.toString()));
    this.#child.stdout.on("data", (chunk: Buffer) => {
      this.#buffer += chunk.toString();
      for (let end = this.#buffer.indexOf("\n"); end >= 0; end = this.#buffer.indexOf("\n")) {
        const line = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 1);
        this.lines.push(line);
        this.#received(JSON.parse(line) as Message);
      }
    });
  }

  #received(message: Message): void {
    // The client's side of a server→client request: the user accepts, the model answers.
    if (message.method === "elicitation/create" && message.id !== undefined) {
      const schema = (message.params?.requestedSchema ?? {}) as { properties?: Record<string, unknown> };
      const content = schema.properties && "confirm" in schema.properties ? { confirm: true } : { reply: "blue" };
      this.send({ jsonrpc: "2.0", id: message.id, result: { action: "accept", content } });
    } else if (message.method === "sampling/createMessage" && message.id !== undefined) {
      this.send({ jsonrpc: "2.0", id: message.id, result: { role: "assistant", content: { type: "text", text: "a short summary" }, model: "test-model" } });
    }
    this.#waiters = this.#waiters.filter((waiter) => (waiter.test(message) ? (waiter.resolve(message), false) : true));
  }

  send(message: Message): void {
    this.#child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** Resolves with the answer to request `id` (an answer that came already counts). */
  answerOf(id: string | number): Promise<Message> {
    const test = (m: Message) => m.id === id && ("result" in m || "error" in m);
    const seen = this.lines.map((l) => JSON.parse(l) as Message).find(test);
    return seen ? Promise.resolve(seen) : new Promise((resolve) => this.#waiters.push({ test, resolve }));
  }

  async request(message: Message): Promise<Message> {
    this.send(message);
    return this.answerOf(message.id!);
  }

  /** Close stdin, wait for the exit, and return the lane's counts from the shutdown log line. */
  async close(): Promise<{ taken: number; handedOver: number } | undefined> {
    this.#child.stdin.end();
    await new Promise((resolve) => this.#child.once("exit", resolve));
    const counted = /fast lane: (\d+) tools\/call taken, (\d+) of them handed to the SDK/.exec(this.#stderr);
    return counted ? { taken: Number(counted[1]), handedOver: Number(counted[2]) } : undefined;
  }
}

const MODERN = "2026-07-28";
const clientInfo = { name: "fast-lane-test", version: "0.0.0" };
const envelope = (capabilities: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": clientInfo,
  "io.modelcontextprotocol/clientCapabilities": capabilities,
  ...extra,
});

type Script = (peer: RawPeer, call: (name: string, args?: unknown, more?: Record<string, unknown>) => Promise<Message>) => Promise<void>;

/** Play `script` to a server with the lane on and to one with it off; the two transcripts must be the same. */
async function differential(script: Script, meta?: Record<string, unknown>): Promise<{ lines: string[]; counts: { taken: number; handedOver: number } | undefined; writes: number[] }> {
  const runs: { lines: string[]; counts: { taken: number; handedOver: number } | undefined; writes: number }[] = [];
  for (const lane of [true, false]) {
    const peer = new RawPeer(lane);
    let next = 1;
    const call = (name: string, args: unknown = {}, more: Record<string, unknown> = {}) =>
      peer.request({ jsonrpc: "2.0", id: next++, method: "tools/call", params: { name, arguments: args, ...(meta ? { _meta: meta } : {}), ...more } });
    const before = written();
    try {
      await script(peer, call);
    } finally {
      const counts = await peer.close();
      runs.push({ lines: peer.lines, counts, writes: written() - before });
    }
  }
  const [on, off] = runs as [(typeof runs)[0], (typeof runs)[0]];
  assert.equal(off.counts?.taken ?? 0, 0, "with AGENT_TOOLS_FAST_LANE=off the lane takes nothing");
  assert.ok(on.lines.length > 0);
  // Byte for byte, line by line (a diff names the first line that differs).
  for (let i = 0; i < Math.max(on.lines.length, off.lines.length); i++) assert.equal(on.lines[i], off.lines[i], `line ${i + 1} differs between lane on and lane off`);
  return { lines: on.lines, counts: on.counts, writes: [on.writes, off.writes] };
}

const resultText = (message: Message): string => ((message.result as { content?: Array<{ text?: string }> } | undefined)?.content?.[0]?.text ?? "");
const payloadOf = (message: Message): Record<string, unknown> & { error?: { code: string; message: string; hint?: string } } => JSON.parse(resultText(message) || "{}");

describe("the fast lane answers as the SDK does (lane on vs AGENT_TOOLS_FAST_LANE=off, raw stdio)", () => {
  it("2025 era, a client without elicitation (the bench's client): every kind of answer, the same bytes", async () => {
    const { counts, writes } = await differential(async (peer, call) => {
      await peer.request({ jsonrpc: "2.0", id: "init", method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo } });
      peer.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      assert.match(resultText(await call("agent_tools_db_call", { toolName: "echo", arguments: { text: "hi" } })), /hi/);
      const invalid = payloadOf(await call("agent_tools_db_call", { toolName: "echo", arguments: { text: 5 } }));
      assert.equal(invalid.error?.code, "ARG_VALIDATION_FAILED");
      assert.ok(invalid.error?.hint, "a validation error carries its hint");
      const unknown = payloadOf(await call("agent_tools_db_call", { toolName: "ecko", arguments: { text: "x" } })).error;
      assert.equal(unknown?.code, "UNKNOWN_TOOL", JSON.stringify(unknown));
      assert.match(unknown?.message ?? "", /'ecko'.*'echo'/, "an unknown downstream tool is an error naming the nearest");
      assert.equal(payloadOf(await call("agent_tools_nope_call", { toolName: "echo" })).error?.code, "UNKNOWN_FACADE_TOOL");
      assert.match(resultText(await call("agent_tools_db_cal", { toolName: "echo", arguments: { text: "mended" } })), /read as 'agent_tools_db_call'/);
      assert.equal(((await call("agent_tools_db_call", "not an object")).error as { code?: number } | undefined)?.code, -32602, "malformed arguments: the SDK's -32602");
      assert.equal(((await call(5 as unknown as string)).error as { code?: number } | undefined)?.code, -32602, "a name that is no string: the SDK's -32602");
      assert.ok(payloadOf(await call("agent_tools_db_call", { toolName: "write_row", arguments: { table: "t", value: "no" } })).error, "a write without confirm is refused (this client cannot ask its user)");
      assert.match(resultText(await call("agent_tools_db_call", { toolName: "write_row", arguments: { table: "t", value: "flag" }, confirm: true })), /wrote flag/);
      const progressed = await call("agent_tools_db_call", { toolName: "slow_steps", arguments: { steps: 3 } }, { _meta: { progressToken: "p1" } });
      assert.match(resultText(progressed), /done 3 steps/);
      assert.match(resultText(await call("agent_tools_db_call", { toolName: "log_note", arguments: { note: "seen" } })), /logged/);
      await peer.request({ jsonrpc: "2.0", id: "level", method: "logging/setLevel", params: { level: "error" } });
      assert.match(resultText(await call("agent_tools_db_call", { toolName: "log_note", arguments: { note: "filtered" } })), /logged/);
      assert.ok(payloadOf(await call("agent_tools_db_call", { toolName: "ask_user", arguments: { question: "colour?" } })).ok !== undefined);
      assert.ok(payloadOf(await call("agent_tools_db_run_skill", { skill: "two-rows" })).error, "a skill's write without confirm is refused");
      assert.equal(payloadOf(await call("agent_tools_search", { query: "write a row" })).ok, true);
      assert.equal(payloadOf(await call("agent_tools_db_discover", { query: "echo" })).ok, true);
      assert.equal(payloadOf(await call("agent_tools_help", {})).ok, true);
      // Last but the cancellation (help, search and discover above would tell of the crash).
      const crashed = await call("agent_tools_fx_call", { toolName: "crash", arguments: {}, confirm: true });
      assert.ok((crashed.result as { isError?: boolean } | undefined)?.isError, `a downstream that fails mid-call is a tool error: ${resultText(crashed)}`);
      // Cancellation: the first sleep is cancelled right after it was sent; the second, as long,
      // started later, is answered; the first never is (its answer would have come before).
      peer.send({ jsonrpc: "2.0", id: "sleep-1", method: "tools/call", params: { name: "agent_tools_fx_call", arguments: { toolName: "sleep", arguments: { ms: 300 } } } });
      peer.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "sleep-1", reason: "the user moved on" } });
      assert.match(resultText(await peer.request({ jsonrpc: "2.0", id: "sleep-2", method: "tools/call", params: { name: "agent_tools_fx_call", arguments: { toolName: "sleep", arguments: { ms: 300 } } } })), /slept/);
      assert.ok(!peer.lines.some((line) => (JSON.parse(line) as Message).id === "sleep-1"), "the cancelled call is not answered");
    });
    assert.deepEqual(writes, [1, 1], "the flagged write ran once in each run");
    // Taken: every facade call but the two malformed ones and the one with a progress token.
    assert.deepEqual(counts, { taken: 17, handedOver: 0 }, "the lane took the plain calls");
  });

  it("2025 era, a client that can ask its user: a confirmed write, a downstream's question and sampling, a skill that may ask", async () => {
    const { lines, counts, writes } = await differential(async (peer, call) => {
      await peer.request({ jsonrpc: "2.0", id: "init", method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: { elicitation: {}, sampling: {} }, clientInfo } });
      peer.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      assert.match(resultText(await call("agent_tools_db_call", { toolName: "echo", arguments: { text: "hi" } })), /hi/);
      // The gate asks: the facade asks with elicitation/create through the lane's request (no hand-over to the SDK); the user accepts.
      assert.match(resultText(await call("agent_tools_db_call", { toolName: "write_row", arguments: { table: "t", value: "asked" } })), /wrote asked/);
      assert.match(resultText(await call("agent_tools_db_call", { toolName: "ask_user", arguments: { question: "colour?" } })), /the user said: blue/);
      assert.match(resultText(await call("agent_tools_db_call", { toolName: "summarize", arguments: { text: "long" } })), /summary: a short summary/);
      assert.match(resultText(await call("agent_tools_db_run_skill", { skill: "two-rows" })), /wrote/);
      // The route the lane resolved to decide (a skill may ask) is the one the call runs: mended
      // names, unknown ones, a contradicting plugin, and arguments left out.
      assert.match(resultText(await call("agent_tools_db_cal", { toolName: "echo", arguments: { text: "mended" } })), /read as 'agent_tools_db_call'/);
      assert.equal(payloadOf(await call("agent_tools_nope_call", { toolName: "echo" })).error?.code, "UNKNOWN_FACADE_TOOL");
      assert.equal(payloadOf(await call("agent_tools_db_call", { plugin: "fx", toolName: "echo" })).error?.code, "ARG_VALIDATION_FAILED");
      // A call without arguments names what is missing (and, for a skill, which skills there are).
      const noSkill = payloadOf(await peer.request({ jsonrpc: "2.0", id: "no-args", method: "tools/call", params: { name: "agent_tools_db_run_skill" } })).error;
      assert.equal(noSkill?.code, "UNKNOWN_SKILL", JSON.stringify(noSkill));
      assert.match(noSkill?.message ?? "", /'skill' is missing/);
      const noTool = payloadOf(await peer.request({ jsonrpc: "2.0", id: "no-args-call", method: "tools/call", params: { name: "agent_tools_db_call" } })).error;
      assert.equal(noTool?.code, "MISSING_TOOL_NAME", JSON.stringify(noTool));
      assert.match(noTool?.message ?? "", /'toolName' is missing: name the tool of plugin 'db'/);
      peer.send({ jsonrpc: "2.0", id: "sleep-1", method: "tools/call", params: { name: "agent_tools_fx_call", arguments: { toolName: "sleep", arguments: { ms: 300 } } } });
      peer.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "sleep-1" } });
      assert.match(resultText(await peer.request({ jsonrpc: "2.0", id: "sleep-2", method: "tools/call", params: { name: "agent_tools_fx_call", arguments: { toolName: "sleep", arguments: { ms: 300 } } } })), /slept/);
      assert.ok(!peer.lines.some((line) => (JSON.parse(line) as Message).id === "sleep-1"), "the cancelled call is not answered");
    });
    assert.equal(lines.filter((line) => line.includes('"method":"elicitation/create"')).length, 3, "asked for the write, the question, and once for the skill's two writes");
    assert.deepEqual(writes, [3, 3], "the confirmed write and the skill's two ran once each, in each run");
    assert.ok(counts && counts.handedOver === 0, `the confirmed write was asked in the lane, not handed to the SDK: ${JSON.stringify(counts)}`);
    assert.ok(counts.taken >= 6, `echo, the confirmed write, question, sampling and the sleeps went through the lane: ${JSON.stringify(counts)}`);
  });

  it("2026-07-28 era, a client that declared no questions: the SDK sees the first envelope, the lane answers the rest with the era's stamps", async () => {
    const { lines, counts } = await differential(async (peer, call) => {
      assert.match(resultText(await call("agent_tools_db_call", { toolName: "echo", arguments: { text: "first" } })), /first/);
      assert.match(resultText(await call("agent_tools_db_call", { toolName: "echo", arguments: { text: "second" } })), /second/);
      assert.equal(payloadOf(await call("agent_tools_db_call", { toolName: "echo", arguments: { text: 5 } })).error?.code, "ARG_VALIDATION_FAILED");
      assert.equal(payloadOf(await call("agent_tools_nope_call", {})).error?.code, "UNKNOWN_FACADE_TOOL");
      assert.equal(((await call("agent_tools_db_call", "not an object")).error as { code?: number } | undefined)?.code, -32602);
      assert.match(resultText(await call("agent_tools_db_call", { toolName: "slow_steps", arguments: { steps: 2 } }, { _meta: { ...envelope(), progressToken: 9 } })), /done 2 steps/);
      // A log level in the envelope: a new envelope (the SDK first), then the same one (the lane).
      for (const note of ["one", "two"]) {
        assert.match(resultText(await call("agent_tools_db_call", { toolName: "log_note", arguments: { note } }, { _meta: envelope({}, { "io.modelcontextprotocol/logLevel": "info" }) })), /logged/);
      }
      assert.match(resultText(await call("agent_tools_db_call", { toolName: "log_note", arguments: { note: "quiet" } }, { _meta: envelope({}, { "io.modelcontextprotocol/logLevel": "error" }) })), /logged/);
      const bad = await call("agent_tools_db_call", { toolName: "echo", arguments: { text: "x" } }, { _meta: envelope({}, { "io.modelcontextprotocol/protocolVersion": 7 }) });
      assert.equal((bad.error as { code?: number } | undefined)?.code, -32602, "an envelope the SDK refuses is refused as before");
      peer.send({ jsonrpc: "2.0", id: "sleep-1", method: "tools/call", params: { name: "agent_tools_fx_call", arguments: { toolName: "sleep", arguments: { ms: 300 } }, _meta: envelope() } });
      peer.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "sleep-1", reason: "stop", _meta: envelope() } });
      assert.match(resultText(await peer.request({ jsonrpc: "2.0", id: "sleep-2", method: "tools/call", params: { name: "agent_tools_fx_call", arguments: { toolName: "sleep", arguments: { ms: 300 } }, _meta: envelope() } })), /slept/);
      assert.ok(!peer.lines.some((line) => (JSON.parse(line) as Message).id === "sleep-1"), "the cancelled call is not answered");
    }, envelope());
    assert.ok(lines.some((line) => line.includes('"resultType":"complete"') && line.includes("io.modelcontextprotocol/serverInfo")), "2026-07-28 results carry the era's stamps");
    assert.ok(lines.some((line) => line.includes('"method":"notifications/message"') && line.includes("note: one")), "the log level the envelope names lets the note through");
    assert.ok(!lines.some((line) => line.includes("note: quiet")), "and a higher level filters it");
    assert.ok(counts && counts.taken >= 5 && counts.handedOver === 0, `the lane took the calls after the first of each envelope: ${JSON.stringify(counts)}`);
  });

  it("2026-07-28 era, a client that can answer questions: its calls stay with the SDK (held across input_required rounds)", async () => {
    const { counts } = await differential(async (_peer, call) => {
      assert.match(resultText(await call("agent_tools_db_call", { toolName: "echo", arguments: { text: "a" } })), /a/);
      assert.match(resultText(await call("agent_tools_db_call", { toolName: "echo", arguments: { text: "b" } })), /b/);
    }, envelope({ elicitation: { form: {} } }));
    assert.equal(counts?.taken, 0, `nothing went through the lane: ${JSON.stringify(counts)}`);
  });
});
