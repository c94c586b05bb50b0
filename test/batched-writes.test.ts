import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { BatchedWriter, NotSent, WriteInterrupted, refusedUnsent } from "../src/batched-writes.js";
import { until } from "./wait.js";

// "Not connected" makes the MCP connection send a request again (adapters/mcp/connection.ts): it
// must mean the request certainly never left, never "it was handed over and the stream closed".

/** A stream that takes a write but never finishes it (a child that stopped reading its stdin). */
function stalled(): Writable {
  return new Writable({ highWaterMark: 1, write: () => undefined });
}

describe("BatchedWriter: what a failed write says", () => {
  it("a stream gone before the batch was written rejects every line of it with \"Not connected\"", async () => {
    const out = stalled();
    out.destroy();
    const writer = new BatchedWriter(out);
    const results = await Promise.allSettled([writer.write("a\n"), writer.write("b\n")]);
    for (const result of results) {
      assert.equal(result.status, "rejected");
      assert.equal((result.reason as Error).message, "Not connected");
    }
  });

  it("a stream that closes while a written batch waits for drain rejects with WriteInterrupted, not \"Not connected\"", async () => {
    const out = stalled();
    const writer = new BatchedWriter(out);
    const pending = Promise.allSettled([writer.write("a\n"), writer.write("b\n")]);
    // The batch is handed over on the next tick and the stream asks to wait; then it closes.
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(out.writableLength > 0, "the batch was handed to the stream");
    out.destroy();
    for (const result of await pending) {
      assert.equal(result.status, "rejected");
      assert.ok(result.reason instanceof WriteInterrupted, String(result.reason));
      assert.notEqual((result.reason as Error).message, "Not connected");
    }
  });

  it("a write refused there and then (EPIPE: the reader had closed) rejects with NotSent, keeping the error as its cause", async () => {
    const epipe = Object.assign(new Error("write EPIPE"), { code: "EPIPE" });
    // A failed first write syscall takes no byte, and Node records it during the write call.
    const out = new Writable({ write: (_chunk, _encoding, done) => done(epipe) });
    out.on("error", () => undefined);
    const writer = new BatchedWriter(out);
    for (const result of await Promise.allSettled([writer.write("a\n"), writer.write("b\n")])) {
      assert.equal(result.status, "rejected");
      assert.ok(result.reason instanceof NotSent, String(result.reason));
      assert.match((result.reason as Error).message, /^Not connected \(write failed before any of it was taken: write EPIPE\)$/);
      assert.equal((result.reason as Error).cause, epipe);
    }
  });

  it("a write that fails after the stream took it rejects with its own error, not NotSent", async () => {
    const epipe = Object.assign(new Error("write EPIPE"), { code: "EPIPE" });
    // Over its high-water mark, so the batch waits for drain (until then it is not settled).
    const out = new Writable({ highWaterMark: 1, write: (_chunk, _encoding, done) => setImmediate(() => done(epipe)) });
    out.on("error", () => undefined);
    const result = (await Promise.allSettled([new BatchedWriter(out).write("a\n")]))[0]!;
    assert.equal(result.status, "rejected");
    assert.equal(result.reason, epipe, "the other side may have read it: not a request to send again");
  });

  it("a stream that takes the batch resolves every line of it", async () => {
    const taken: string[] = [];
    const out = new Writable({ write: (chunk: Buffer, _encoding, done) => (taken.push(chunk.toString()), done()) });
    const writer = new BatchedWriter(out);
    await Promise.all([writer.write("a\n"), writer.write("b\n")]);
    assert.deepEqual(taken, ["a\nb\n"], "one write for the batch");
  });
});

describe("BatchedWriter: a stream that asks to wait", () => {
  it("holds the lines written meanwhile and sends them as one batch on drain, with one set of listeners however many turns pass", async () => {
    const taken: string[] = [];
    let finishWrite: (() => void) | undefined;
    // A stream that takes one write at a time and finishes it when the test says (a slow reader on the other side).
    const out = new Writable({ highWaterMark: 1, write: (chunk: Buffer, _encoding, done) => (taken.push(chunk.toString()), (finishWrite = done)) });
    const writer = new BatchedWriter(out);
    const first = writer.write("first\n");
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(taken, ["first\n"], "the first batch was handed over and the stream asked to wait");
    const later: Promise<void>[] = [];
    for (let turn = 0; turn < 50; turn++) {
      later.push(writer.write(`line ${turn}\n`));
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Before, each of the 50 turns wrote its own batch and added its own listeners: Node warned past 10.
    assert.ok(out.listenerCount("drain") <= 1, `drain listeners: ${out.listenerCount("drain")}`);
    assert.ok(out.listenerCount("close") <= 1, `close listeners: ${out.listenerCount("close")}`);
    assert.deepEqual(taken, ["first\n"], "nothing more is written while the stream asks to wait");
    finishWrite?.();
    await first;
    await until(() => taken.length === 2, "the held lines to be written");
    finishWrite?.();
    await Promise.all(later);
    assert.equal(taken[1], Array.from({ length: 50 }, (_, turn) => `line ${turn}\n`).join(""), "the held lines leave as one batch, in order");
  });

  it("lines held while the stream closes reject \"Not connected\" (they never left), the written batch WriteInterrupted", async () => {
    const out = stalled();
    const writer = new BatchedWriter(out);
    const written = writer.write("a\n");
    await new Promise((resolve) => setImmediate(resolve));
    const held = writer.write("b\n");
    out.destroy();
    await assert.rejects(written, WriteInterrupted);
    await assert.rejects(held, (error: unknown) => error instanceof NotSent && error.message === "Not connected");
  });
});

describe("refusedUnsent: a request refused before any of it was sent", () => {
  it("is a NotSent, and by default only the error itself: a wrapped one counts within the depth asked", () => {
    const notSent = new NotSent("the server closed its stdout");
    assert.ok(refusedUnsent(notSent));
    const wrapped = new Error("MCP error: the handshake failed", { cause: new Error("write failed", { cause: notSent }) });
    assert.equal(refusedUnsent(wrapped), false, "the MCP connection looks at what was thrown only");
    assert.equal(refusedUnsent(wrapped, { depth: 2 }), false, "the NotSent is the third error of the chain");
    assert.ok(refusedUnsent(wrapped, { depth: 3 }));
    assert.equal(refusedUnsent(new Error("a", { cause: new Error("b", { cause: new Error("c", { cause: new Error("d", { cause: notSent }) }) }) }), { depth: 4 }), false, "deeper than asked");
    assert.equal(refusedUnsent(new WriteInterrupted(), { depth: 4, sdkNotConnected: true }), false, "a write handed over may have been read");
    assert.equal(refusedUnsent("Not connected", { sdkNotConnected: true }), false, "not an error");
  });

  it("takes the MCP SDK's own NotConnected refusal only when asked: its code and message, as this SDK throws them", () => {
    const sdk = new SdkError(SdkErrorCode.NotConnected, "Not connected");
    assert.equal(refusedUnsent(sdk), false);
    assert.ok(refusedUnsent(sdk, { sdkNotConnected: true }));
    // Told by code: the message the SDK uses may differ (its docs show 'Transport is not connected').
    assert.ok(refusedUnsent(new SdkError(SdkErrorCode.NotConnected, "Transport is not connected"), { sdkNotConnected: true }));
    assert.ok(refusedUnsent(new Error("Not connected"), { sdkNotConnected: true }), "the SDK's transports throw this message too");
    assert.equal(refusedUnsent(new SdkError(SdkErrorCode.ConnectionClosed, "Connection closed"), { sdkNotConnected: true }), false, "closed after it was sent: it may have run");
  });
});
