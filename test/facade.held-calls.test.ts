import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { heldRequestOf, HeldCalls } from "../src/facade/held-calls.js";

const REQUEST = heldRequestOf("agent_tools_fx_call", { toolName: "ask" });
import type { CallRelay } from "../src/adapters/relay.js";
import { until } from "./wait.js";

/**
 * The held-call table on its own (the rounds over real transports are in protocol.relays): a call
 * nobody resumes is cancelled when its time is up, with its open question answered `cancel`; a
 * client that cancels a round cancels the call; answers of the wrong kind leave the question open.
 */

/** A call that asks one question, then waits to be cancelled or answers with what the user said. */
function asker(seen: { signal?: AbortSignal; answer?: unknown }) {
  return async (relay: CallRelay, signal: AbortSignal): Promise<string> => {
    seen.signal = signal;
    const answer = await relay.elicit?.({ message: "Which table?", requestedSchema: { type: "object", properties: {} } }, new AbortController().signal);
    seen.answer = answer;
    if (signal.aborted) throw signal.reason;
    return `answered ${JSON.stringify(answer)}`;
  };
}

describe("held calls", () => {
  it("each caller has its own share under the total: past either, the question is refused with TOO_MANY_QUESTIONS and its call cancelled", async () => {
    const table = new HeldCalls({ max: 3, maxPerCaller: 2 });
    const ask = async (caller: string) => {
      const seen: { signal?: AbortSignal; answer?: unknown } = {};
      const held = table.start(asker(seen), { elicit: { form: true, url: false }, sample: false }, REQUEST, caller);
      return { seen, step: await held.step({}, new AbortController().signal) };
    };
    assert.equal((await ask("alice")).step.kind, "ask");
    assert.equal((await ask("alice")).step.kind, "ask");
    const over = await ask("alice");
    assert.equal(over.step.kind, "failed");
    const error = over.step.kind === "failed" ? (over.step.error as { code?: string; message: string; details?: unknown }) : undefined;
    assert.equal(error?.code, "TOO_MANY_QUESTIONS");
    assert.match(error?.message ?? "", /identity 'alice' already has 2 calls waiting .*\(2; AGENT_TOOLS_HELD_CALLS_PER_CALLER\)/);
    assert.deepEqual(error?.details, { pending: 2, limit: 2, per: "caller" });
    assert.equal(over.seen.signal?.aborted, true, "the refused call was cancelled");
    assert.deepEqual(over.seen.answer, { action: "cancel" }, "its question was answered cancel downstream");
    assert.equal((await ask("bob")).step.kind, "ask", "another caller still gets its question held");
    const full = await ask("carol");
    const total = full.step.kind === "failed" ? (full.step.error as { code?: string; message: string; details?: unknown }) : undefined;
    assert.equal(total?.code, "TOO_MANY_QUESTIONS");
    assert.match(total?.message ?? "", /3 calls are waiting .* for all callers together \(3\)/);
    assert.deepEqual(total?.details, { pending: 3, limit: 3, per: "server" });
    assert.equal(table.size, 3);
    assert.equal(table.heldBy("alice"), 2);
    assert.equal(table.heldBy("carol"), 0);
  });


  it("a call nobody resumes is cancelled after ttlMs: its question is answered cancel, the table forgets it", async () => {
    const table = new HeldCalls({ ttlMs: 50 });
    const seen: { signal?: AbortSignal; answer?: unknown } = {};
    const held = table.start(asker(seen), { elicit: { form: true, url: false }, sample: false }, REQUEST);
    const step = await held.step({}, new AbortController().signal);
    assert.equal(step.kind, "ask");
    assert.equal(table.size, 1);
    await until(() => seen.signal?.aborted === true, "the call (and with it the downstream call) to be cancelled");
    assert.deepEqual(seen.answer, { action: "cancel" });
    // A limit under a minute is said in seconds, never "0 minutes".
    const reason: unknown = seen.signal?.reason;
    assert.match(reason instanceof Error ? reason.message : String(reason), /nobody answered within 1 second\b/);
    assert.equal(table.size, 0);
    assert.equal(table.get(held.id), undefined);
  });

  it("the client cancelling a round cancels the call", async () => {
    const table = new HeldCalls();
    const seen: { signal?: AbortSignal; answer?: unknown } = {};
    const held = table.start(async (relay, signal) => {
      seen.signal = signal;
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      return "stopped";
    }, { elicit: { form: true, url: false }, sample: false }, REQUEST);
    const request = new AbortController();
    const stepping = held.step({}, request.signal);
    request.abort(new Error("the client cancelled"));
    const step = await stepping;
    assert.equal(seen.signal?.aborted, true);
    assert.equal(step.kind, "done");
  });

  it("an answer of the wrong kind leaves the question open: the next round asks it again; the right one resumes the call", async () => {
    const table = new HeldCalls();
    const seen: { signal?: AbortSignal; answer?: unknown } = {};
    const held = table.start(asker(seen), { elicit: { form: true, url: false }, sample: false }, REQUEST);
    const first = await held.step({}, new AbortController().signal);
    assert.equal(first.kind, "ask");
    const key = first.kind === "ask" ? (Object.keys(first.requests)[0] ?? "") : "";
    held.answer({ [key]: { role: "assistant", content: { type: "text", text: "not an elicitation answer" }, model: "m" } });
    const again = await held.step({}, new AbortController().signal);
    assert.equal(again.kind, "ask");
    assert.deepEqual(again.kind === "ask" ? Object.keys(again.requests) : [], [key]);
    assert.equal(again.kind === "ask" ? again.round : 0, 2, "each round has its number: an answer to round 1 is stale now");
    held.answer({ [key]: { action: "accept", content: { table: "orders" } } });
    const done = await held.step({}, new AbortController().signal);
    assert.deepEqual(done, { kind: "done", value: `answered ${JSON.stringify({ action: "accept", content: { table: "orders" } })}` });
    assert.equal(table.size, 0);
  });
});
