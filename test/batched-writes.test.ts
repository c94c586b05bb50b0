import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { BatchedWriter, WriteInterrupted } from "../src/batched-writes.js";

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

  it("a stream that takes the batch resolves every line of it", async () => {
    const taken: string[] = [];
    const out = new Writable({ write: (chunk: Buffer, _encoding, done) => (taken.push(chunk.toString()), done()) });
    const writer = new BatchedWriter(out);
    await Promise.all([writer.write("a\n"), writer.write("b\n")]);
    assert.deepEqual(taken, ["a\nb\n"], "one write for the batch");
  });
});
