import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { deserializeMessage } from "@modelcontextprotocol/server";
import { JsonRpcLineReader, OversizedLine } from "../src/jsonrpc-lines.js";

// The line limit is exact: a line is measured by its bytes before the newline (with what of it was
// buffered), wherever its newline falls. Before, a chunk with a newline skipped the check in the
// skipping mode (a line up to one chunk past the limit got through), and the throwing mode measured
// the whole chunk, so two lines that each fit, arriving together, threw.

const MAX = 40;

/** A notification of exactly `bytes` bytes (its method name padded). */
function line(bytes: number, tag = "m"): string {
  const text = JSON.stringify({ jsonrpc: "2.0", method: tag.padEnd(bytes - 29, "x") });
  assert.equal(text.length, bytes);
  return text;
}

/** What the reader gives until it has no whole line: each method, or the OversizedLine's size and ends. */
function drain(reader: JsonRpcLineReader): string[] {
  const out: string[] = [];
  for (;;) {
    try {
      const message = reader.readMessage();
      if (message === null) return out;
      out.push((message as { method: string }).method.replace(/x+$/, ""));
    } catch (error) {
      assert.ok(error instanceof OversizedLine, String(error));
      out.push(`oversized ${error.bytes} bytes, head ${error.head.slice(0, 11)}…, tail …${error.tail.slice(-5)}`);
    }
  }
}

describe("JsonRpcLineReader: the line limit, skipping mode", () => {
  const reader = () => new JsonRpcLineReader(deserializeMessage, { maxBytes: MAX, skipOversized: true });

  it("takes a line of exactly the limit, in one chunk or split, and skips one a byte longer", () => {
    const r = reader();
    r.append(Buffer.from(`${line(MAX, "a")}\n`));
    assert.deepEqual(drain(r), ["a"]);
    const whole = line(MAX, "b");
    r.append(Buffer.from(whole.slice(0, 25)));
    r.append(Buffer.from(`${whole.slice(25)}\n`));
    assert.deepEqual(drain(r), ["b"]);
    r.append(Buffer.from(`${line(MAX + 1, "c")}\n${line(30, "d")}\n`));
    assert.deepEqual(drain(r), [`oversized ${MAX + 1} bytes, head {"jsonrpc":…, tail …xxx"}`, "d"]);
  });

  it("measures a line whose newline comes in a later chunk with its buffered start (one chunk past the limit got through before)", () => {
    const r = reader();
    const big = line(59, "big");
    r.append(Buffer.from(big.slice(0, 30)));
    assert.deepEqual(drain(r), []);
    // The rest, its newline and the next line, in one chunk: 30 buffered + 29 before the newline = 59 > 40.
    r.append(Buffer.from(`${big.slice(30)}\n${line(35, "after")}\n`));
    assert.deepEqual(drain(r), ["oversized 59 bytes, head {\"jsonrpc\":…, tail …xxx\"}", "after"]);
  });

  it("handles every line of one chunk in order: fitting, oversized, fitting, and an oversized one that ends two chunks later", () => {
    const r = reader();
    const last = line(100, "tail");
    r.append(Buffer.from(`${line(33, "c1")}\n${line(70, "big")}\n${line(33, "c2")}\n${last.slice(0, 45)}`));
    assert.deepEqual(drain(r), ["c1", "oversized 70 bytes, head {\"jsonrpc\":…, tail …xxx\"}", "c2"]);
    r.append(Buffer.from(last.slice(45, 80)));
    assert.deepEqual(drain(r), [], "still skipping: nothing of it is held or reported before its newline");
    r.append(Buffer.from(`${last.slice(80)}\n${line(33, "c3")}\n`));
    assert.deepEqual(drain(r), ["oversized 100 bytes, head {\"jsonrpc\":…, tail …xxx\"}", "c3"]);
  });

  it("keeps the order when the chunks are appended before any is read", () => {
    const r = reader();
    r.append(Buffer.from(`${line(33, "r1")}\n${line(33, "r2")}\n${line(50, "big")}`));
    r.append(Buffer.from(`\n${line(33, "r3")}\n`));
    assert.deepEqual(drain(r), ["r1", "r2", "oversized 50 bytes, head {\"jsonrpc\":…, tail …xxx\"}", "r3"]);
  });

  it("two fitting lines that together pass the limit are both read", () => {
    const r = reader();
    r.append(Buffer.from(`${line(MAX, "a1")}\n${line(MAX, "a2")}\n${line(MAX, "a3").slice(0, 10)}`));
    assert.deepEqual(drain(r), ["a1", "a2"]);
    r.append(Buffer.from(`${line(MAX, "a3").slice(10)}\n`));
    assert.deepEqual(drain(r), ["a3"]);
  });
});

describe("JsonRpcLineReader: the line limit, throwing mode", () => {
  const reader = () => new JsonRpcLineReader(deserializeMessage, { maxBytes: MAX });

  it("reads lines that each fit however many one chunk holds (it measured the whole chunk and threw before)", () => {
    const r = reader();
    r.append(Buffer.from(`${line(MAX, "a1")}\n${line(MAX, "a2")}\n`));
    assert.deepEqual(drain(r), ["a1", "a2"]);
  });

  it("throws for a line over the limit whose newline is in the chunk, and for one whose start alone passes it", () => {
    const r = reader();
    r.append(Buffer.from(line(32, "big").slice(0, 20)));
    assert.throws(() => r.append(Buffer.from(`${"x".repeat(21)}\n`)), /exceeded maximum size of 40 bytes/);
    const fresh = reader();
    assert.throws(() => fresh.append(Buffer.from(`${line(33, "ok")}\n${"y".repeat(MAX + 1)}`)), /exceeded maximum size of 40 bytes/);
  });
});
