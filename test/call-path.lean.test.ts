import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough, Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { deserializeMessage as clientParse } from "@modelcontextprotocol/client";
import { deserializeMessage as serverParse } from "@modelcontextprotocol/server";
import { BatchedWriter } from "../src/batched-writes.js";
import { JsonRpcLineReader, plainMessage } from "../src/jsonrpc-lines.js";
import { isPlainToolResult, LenientClient } from "../src/adapters/mcp/lenient-handshake.js";
import { baseEnv, MCP_BIN } from "./helpers.js";
import { serverEntry } from "./fixtures/mcp/support.js";

// The call path made cheaper (issue #16): messages written in one turn leave in one write, plain
// JSON-RPC envelopes and plain 2025-era tools/call results are checked without zod — with what
// every message gets unchanged.

/** What the SDK's own parser makes of a line: its message, or the fact that it throws. */
function sdkVerdict(parse: (line: string) => unknown, line: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: parse(line) };
  } catch {
    return { ok: false };
  }
}

const corpus: unknown[] = [
  { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { message: "hi", nested: { a: [1, 2] } } } },
  { jsonrpc: "2.0", id: "abc", method: "tools/list" },
  { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", _meta: { progressToken: 7 } } },
  { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo", _meta: { progressToken: "t", custom: { x: 1 } } } },
  { jsonrpc: "2.0", id: 4, method: "tools/call", params: { _meta: { progressToken: 1.5 } } },
  { jsonrpc: "2.0", id: 5, method: "tools/call", params: { _meta: { "io.modelcontextprotocol/related-task": { taskId: "x" } } } },
  { jsonrpc: "2.0", id: 6, method: "tools/call", params: { _meta: { "io.modelcontextprotocol/related-task": { taskId: 9 } } } },
  { jsonrpc: "2.0", id: 7, method: "tools/call", params: { _meta: null } },
  { jsonrpc: "2.0", id: 8, method: "tools/call", params: [1, 2] },
  { jsonrpc: "2.0", id: 9, method: "tools/call", params: null },
  { jsonrpc: "2.0", id: 10, method: "tools/call", extra: true },
  { jsonrpc: "2.0", id: null, method: "tools/call" },
  { jsonrpc: "2.0", id: 1.5, method: "tools/call" },
  // Integers past 2^53: the schema takes safe integers only (found by bench:fuzz seed 4242).
  { jsonrpc: "2.0", id: -4.5e100, method: "tools/call" },
  { jsonrpc: "2.0", id: 19, method: "tools/call", params: { _meta: { progressToken: 2 ** 60 } } },
  { jsonrpc: "1.0", id: 11, method: "tools/call" },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 0.5 } },
  { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3 }, id: undefined },
  { jsonrpc: "2.0", method: "notifications/x", other: 1 },
  { jsonrpc: "2.0", id: 12, result: { content: [{ type: "text", text: "Echo: hi" }] } },
  { jsonrpc: "2.0", id: "r", result: {} },
  { jsonrpc: "2.0", id: 13, result: { content: [], _meta: { "io.modelcontextprotocol/serverInfo": { name: "s", version: "1" } } } },
  { jsonrpc: "2.0", id: 14, result: [1] },
  { jsonrpc: "2.0", id: 15, result: { a: 1 }, extra: 1 },
  { jsonrpc: "2.0", result: { a: 1 } },
  { jsonrpc: "2.0", id: 16, error: { code: -32601, message: "Method not found", data: { x: 1 } } },
  { jsonrpc: "2.0", error: { code: -32700, message: "Parse error", extra: "stripped by the schema" } },
  { jsonrpc: "2.0", id: 17, error: { code: 1.5, message: "bad code" } },
  { jsonrpc: "2.0", id: 18, method: "m", result: {} },
  [1, 2, 3],
  "just a string",
  42,
  null,
];

describe("plain JSON-RPC envelopes (jsonrpc-lines.ts)", () => {
  it("a message the fast check accepts is exactly what the SDK's parser makes of it; everything else goes to that parser", () => {
    let fast = 0;
    for (const message of corpus) {
      const line = JSON.stringify(message);
      for (const parse of [clientParse, serverParse]) {
        const verdict = sdkVerdict(parse, line);
        const plain = plainMessage(JSON.parse(line));
        if (plain !== undefined) {
          fast++;
          assert.ok(verdict.ok, `accepted by the fast check but refused by the SDK: ${line}`);
          assert.deepEqual(plain, verdict.value, line);
        }
        const reader = new JsonRpcLineReader(parse);
        reader.append(Buffer.from(`${line}\n`));
        if (verdict.ok) assert.deepEqual(reader.readMessage(), verdict.value, line);
        else assert.throws(() => reader.readMessage(), Error, `the reader refuses what the SDK refuses: ${line}`);
      }
    }
    assert.ok(fast >= 16, `the usual shapes take the fast path (${fast})`);
  });

  it("frames lines as the SDK does: split across chunks, CRLF, lines that are not JSON skipped, a cap on the buffer", () => {
    const reader = new JsonRpcLineReader(clientParse);
    const a = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const b = JSON.stringify({ jsonrpc: "2.0", id: 2, result: { ok: "ü✓" } });
    const bytes = Buffer.from(`${a}\r\nnot json at all\n${b}\n`);
    // Cut inside a multi-byte character too.
    const cut = bytes.indexOf(Buffer.from("✓")) + 1;
    reader.append(bytes.subarray(0, 10));
    reader.append(bytes.subarray(10, cut));
    assert.deepEqual(reader.readMessage(), JSON.parse(a));
    assert.equal(reader.readMessage(), null, "the second message is not whole yet");
    reader.append(bytes.subarray(cut));
    assert.deepEqual(reader.readMessage(), JSON.parse(b));
    assert.equal(reader.readMessage(), null);
    assert.throws(() => reader.append(Buffer.alloc(11 * 1024 * 1024)), /exceeded maximum size/);
  });
});

/** The SDK client's own 2025-era codec (the validator a tools/call result went through before). */
class CodecProbe extends LenientClient {
  legacyCodec(): ReturnType<LenientClient["_wireCodec"]> {
    this._negotiatedProtocolVersion = "2025-06-18";
    return this._wireCodec();
  }
}

describe("plain tools/call results (lenient-handshake.ts)", () => {
  it("a result taken without the schema is exactly what the 2025-era schema makes of it", () => {
    const codec = new CodecProbe({ name: "probe", version: "0" }).legacyCodec();
    assert.equal(codec.era, "2025-11-25");
    const results: unknown[] = [
      { content: [{ type: "text", text: "Echo: hello" }] },
      { content: [{ type: "text", text: "a" }, { type: "text", text: "b" }], isError: false },
      { content: [{ type: "text", text: "boom" }], isError: true },
      { content: [], structuredContent: { rows: [1, 2], nested: { deep: true } } },
      { content: [{ type: "text", text: "{}" }], structuredContent: [1, 2, 3] },
      { content: [{ type: "text", text: "x" }], vendorExtra: { kept: 1 } },
      { content: [{ type: "text", text: "x", annotations: { audience: ["user"] } }] },
      { content: [{ type: "text", text: "x", _meta: { a: 1 } }] },
      { content: [{ type: "text", text: "x", extra: 1 }] },
      { content: [{ type: "image", data: "aGk=", mimeType: "image/png" }] },
      { content: [{ type: "text", text: 5 }] },
      { content: [{ type: "text" }] },
      { content: "not an array" },
      { content: [{ type: "text", text: "x" }], isError: "yes" },
      { content: [{ type: "text", text: "x" }], _meta: { "io.modelcontextprotocol/serverInfo": { name: "s", version: "1" } } },
      { structuredContent: { a: 1 } },
      { toolResult: { legacy: true } },
      [],
      null,
    ];
    let fast = 0;
    for (const result of results) {
      const outcome = codec.validateResult("tools/call", result);
      if (!isPlainToolResult(result)) continue;
      fast++;
      assert.ok(outcome.ok, `taken without the schema but refused by it: ${JSON.stringify(result)}`);
      assert.deepEqual(outcome.value, result, JSON.stringify(result));
    }
    assert.equal(fast, 5, "the plain shapes take the fast path; the rest go through the schema");
  });
});

/** A real Writable that records each write it receives (and can ask the writer to wait). */
class Recorder extends Writable {
  readonly chunks: string[] = [];
  constructor(
    highWaterMark = 1 << 20,
    private readonly slow = false,
  ) {
    super({ highWaterMark, decodeStrings: false });
  }
  override _write(chunk: unknown, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.chunks.push(String(chunk));
    // A slow reader takes the chunk a moment later (until then the stream holds it and asks to wait).
    if (this.slow) setTimeout(done, 20);
    else done();
  }
}

describe("batched writes (batched-writes.ts)", () => {
  it("lines written in one turn leave in one write, in order; the next turn makes the next write", async () => {
    const out = new Recorder();
    const writer = new BatchedWriter(out);
    const sent = ["a\n", "b\n", "c\n"].map((line) => writer.write(line));
    assert.equal(out.chunks.length, 0, "nothing is written before the turn's microtasks are done");
    await Promise.all(sent);
    assert.deepEqual(out.chunks, ["a\nb\nc\n"]);
    await writer.write("d\n");
    assert.deepEqual(out.chunks, ["a\nb\nc\n", "d\n"]);
  });

  it("a stream that asks to wait settles the batch on drain; a gone stream rejects with 'Not connected'", async () => {
    const out = new Recorder(4, true);
    const writer = new BatchedWriter(out);
    let settled = false;
    const pending = writer.write("0123456789\n").then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(settled, false, "over the high-water mark: waits for drain");
    await pending;
    assert.equal(out.chunks.join(""), "0123456789\n");
    const gone = new PassThrough();
    gone.destroy();
    await assert.rejects(new BatchedWriter(gone).write("x\n"), /Not connected/);
  });

  it("a stream that fails rejects the batch with its error", async () => {
    const failing = new Writable({
      write(_chunk, _encoding, done) {
        done(new Error("EPIPE: the reader went away"));
      },
    });
    failing.on("error", () => undefined);
    await assert.rejects(new BatchedWriter(failing).write("x\n"), /EPIPE/);
  });
});

describe("the runtime over stdio with many requests in one read", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-batching-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("answers 16 calls sent in one write, each with its own result, skips a line that is not JSON, and refuses a malformed call as the SDK does", async () => {
    const config = path.join(dir, "agent-tools.config.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { ev: { command: process.execPath, args: [serverEntry("everything"), "stdio"], requireConfirm: false } } }));
    const child = spawn(process.execPath, [MCP_BIN], { env: baseEnv({ AGENT_TOOLS_CONFIG: config }), cwd: dir, stdio: ["pipe", "pipe", "pipe"] });
    child.stderr.resume();
    const answers = new Map<number, Record<string, unknown>>();
    let waiting: { count: number; resolve: () => void } | undefined;
    const reader = new JsonRpcLineReader(clientParse);
    child.stdout.on("data", (chunk: Buffer) => {
      reader.append(chunk);
      for (let message = reader.readMessage(); message; message = reader.readMessage()) {
        const { id } = message as { id?: number };
        if (typeof id === "number") answers.set(id, message as Record<string, unknown>);
      }
      if (waiting && answers.size >= waiting.count) waiting.resolve();
    });
    const until = (count: number) => new Promise<void>((resolve) => (answers.size >= count ? resolve() : (waiting = { count, resolve })));
    const line = (message: unknown) => `${JSON.stringify(message)}\n`;
    try {
      child.stdin.write(line({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "batching-test", version: "0" } } }));
      await until(1);
      assert.ok((answers.get(0)?.result as { serverInfo?: unknown } | undefined)?.serverInfo, "initialize answered");
      let batch = line({ jsonrpc: "2.0", method: "notifications/initialized" }) + "this line is not JSON\n";
      for (let i = 1; i <= 16; i++) {
        batch += line({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "agent_tools_ev_call", arguments: { toolName: "echo", arguments: { message: `call ${i}` } } } });
      }
      child.stdin.write(batch);
      await until(17);
      for (let i = 1; i <= 16; i++) {
        const result = answers.get(i)?.result as { isError?: boolean; content?: Array<{ text?: string }> } | undefined;
        assert.ok(result && !result.isError, `call ${i} answered without error: ${JSON.stringify(answers.get(i))}`);
        const payload = JSON.parse(result.content?.[0]?.text ?? "{}") as { result?: unknown };
        assert.match(JSON.stringify(payload.result), new RegExp(`call ${i}\\b`), `call ${i} got its own echo`);
      }
      // A malformed request is refused before the SDK's schema (params-check.ts): -32602 naming
      // the member and what to send.
      child.stdin.write(line({ jsonrpc: "2.0", id: 17, method: "tools/call", params: { name: 5 } }) + line({ jsonrpc: "2.0", id: 18, method: "tools/call", params: { name: "agent_tools_ev_call", arguments: "not an object" } }));
      await until(19);
      for (const [id, field] of [[17, "name"], [18, "arguments"]] as const) {
        const error = answers.get(id)?.error as { code?: number; message?: string } | undefined;
        assert.equal(error?.code, -32602, JSON.stringify(answers.get(id)));
        assert.match(error?.message ?? "", new RegExp(`Invalid params for tools/call: 'params\\.${field}'`));
      }
    } finally {
      child.stdin.end();
      await new Promise((resolve) => child.once("exit", resolve));
    }
  });
});
