import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { callJson, connect, ROOT, stdioForSuite, writePlugin, type Connected } from "./helpers.js";
import { tasksAgentForSuite } from "./tasks-api-helpers.js";

// What a caller sent comes back cut, and an error answer is bounded, however large the call was:
// a 500 KB key or value was quoted whole (an unknown property four times: a 2 MB answer).

const HUGE = "k".repeat(500_000);
/** The whole answer as the model reads it (one line of JSON). */
const size = (payload: unknown) => JSON.stringify(payload).length;

describe("answers quote what was sent cut", () => {
  const server = stdioForSuite();

  it("an unknown property of half a megabyte on a closed schema is named cut, once per place", async () => {
    const { payload } = await callJson(server.client, "agent_tools_notes_call", { toolName: "get_note", arguments: { id: "n1", [HUGE]: 1 } });
    assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.match(payload.error?.message ?? "", /\/k{80}…: unknown property 'k{80}…' is not allowed/);
    assert.equal((payload.error?.details?.errors as { path: string }[])[0]?.path, `/${"k".repeat(80)}…`);
    assert.ok(size(payload) < 1_000, `${size(payload)} characters`);
  });

  it("a stray top-level key and an undeclared argument of half a megabyte are named cut in repairs", async () => {
    const stray = await callJson(server.client, "agent_tools_notes_call", { toolName: "get_note", arguments: { id: "n1" }, [HUGE]: 1 });
    assert.equal(stray.isError, false);
    assert.match(stray.payload.repairs?.[0] ?? "", /^'k{80}…' was sent next to 'toolName': it is not a parameter/);
    const undeclared = await callJson(server.client, "agent_tools_notes_call", { toolName: "list_notes", arguments: { [HUGE]: 1 } });
    assert.equal(undeclared.isError, false);
    assert.match(undeclared.payload.repairs?.[0] ?? "", /^'k{80}…' is not a parameter of 'list_notes'/);
    for (const { payload } of [stray, undeclared]) assert.ok(size(payload) < 1_000, `${size(payload)} characters`);
  });

  it("a routing error (unknown facade tool) is bounded as the pipeline's are: a huge name, and huge arguments carried into details.next", async () => {
    const named = await callJson(server.client, `agent_tools_${HUGE}`, {});
    assert.equal(named.payload.error?.code, "UNKNOWN_FACADE_TOOL");
    assert.match(named.payload.error?.message ?? "", /^this server has no tool 'agent_tools_k{68}…'; nothing was run; did you mean '/);
    assert.ok(size(named.payload) < 1_000, `${size(named.payload)} characters`);
    const carried = await callJson(server.client, "agent_tools_notes_get_note", { id: HUGE });
    assert.equal(carried.payload.error?.code, "UNKNOWN_FACADE_TOOL");
    assert.ok(size(carried.payload) < 2_000, `${size(carried.payload)} characters`);
    // A next whose arguments would have been cut is left out (followed, it would send the cut copy); the message still names the call.
    assert.match(String(carried.payload.error?.details?.next), /^\(left out: the call's arguments are too long, or hold a secret/);
    assert.match(carried.payload.error?.message ?? "", /agent_tools_notes_call/);
  });

  it("a downstream's error text quoting half a megabyte is sent once: its head in the message, the next part in details.moreText, the rest left out, each saying so", async () => {
    const { payload } = await callJson(server.client, "agent_tools_notes_call", { toolName: "get_note", arguments: { id: HUGE } });
    assert.equal(payload.error?.code, "UPSTREAM_ERROR");
    assert.match(payload.error?.message ?? "", /^the tool answered with an error: no note with id k+… \(continued in `details\.moreText`: 498016 more characters\)$/);
    assert.match(String(payload.error?.details?.moreText), /^k{2000}… \(496016 more characters left out\)$/);
    // The message's text is not sent again: an all-text error result has no details.content.
    assert.equal(payload.error?.details?.content, undefined);
    // 4,000 characters of the text in all (a nested runtime's answer must stay whole JSON): 2,000 in the message, 2,000 in details.
    assert.ok(size(payload) < 5_000, `${size(payload)} characters`);
  });
});

// A plugin name the caller made up is quoted cut wherever an answer names it: help's note, search's
// and a compact call's UNKNOWN_PLUGIN (and the error answer's own `plugin` field), routing's refusals.
// Before, help quoted 100 KB whole (ok: true), a compact call's answer carried it in `plugin`, and
// the others quoted 4,000 characters of it (only the message's bound).
const BIG = "q".repeat(100_000);
/** No run of the sent name longer than an echo (80 characters) anywhere in the answer. */
const noLongEcho = (payload: unknown) => assert.ok(!JSON.stringify(payload).includes("q".repeat(81)), JSON.stringify(payload).slice(0, 300));

for (const facade of ["full", "compact"] as const) {
  describe(`a made-up plugin name of 100 KB is quoted cut (${facade} facade)`, () => {
    const server = stdioForSuite(undefined, facade === "compact" ? { AGENT_TOOLS_FACADE: "compact" } : {});

    it("help's note names it cut, and the answer is the note alone", async () => {
      const { payload, isError } = await callJson(server.client, "agent_tools_help", { plugin: BIG });
      assert.equal(isError, false);
      assert.match(payload.note as string, /^no plugin has prefix 'q{80}…'; agent_tools_help without 'plugin' lists every plugin$/);
      noLongEcho(payload);
      assert.ok(size(payload) < 300, `${size(payload)} characters`);
    });

    it("search's UNKNOWN_PLUGIN names it cut", async () => {
      const { payload } = await callJson(server.client, "agent_tools_search", { query: "notes", plugin: BIG });
      assert.equal(payload.error?.code, "UNKNOWN_PLUGIN");
      assert.match(payload.error?.message ?? "", /^no plugin has prefix 'q{80}…'; nothing was run/);
      noLongEcho(payload);
      assert.ok(size(payload) < 1_000, `${size(payload)} characters`);
    });

    it("the call tools' refusals name it cut", async () => {
      const calls: Array<[string, Record<string, unknown>]> =
        facade === "compact"
          ? [
              ["agent_tools_call", { plugin: BIG, toolName: "get_note" }],
              ["agent_tools_run_skill", { plugin: BIG, skill: "x" }],
              ["agent_tools_notes_call", { plugin: BIG, toolName: "get_note" }],
              ["agent_tools_calll", { plugin: BIG, toolName: "get_note" }],
            ]
          : [
              ["agent_tools_notes_call", { plugin: BIG, toolName: "get_note" }],
              ["agent_tools_notes_discover", { plugin: BIG, query: "x" }],
              ["agent_tools_calll", { plugin: BIG, toolName: "get_note" }],
              ["agent_tools_call", { plugin: BIG, toolName: "get_note" }],
              [`agent_tools_${BIG}_call`, {}],
              ["agent_tools_notes_call_", { plugin: BIG, toolName: "get_note" }],
            ];
      for (const [name, args] of calls) {
        const { payload, isError } = await callJson(server.client, name, args);
        assert.equal(isError, true, name.slice(0, 40));
        noLongEcho(payload);
        assert.ok(size(payload) < 1_000, `${name.slice(0, 40)}: ${size(payload)} characters`);
      }
    });

    if (facade === "compact") {
      it("agent_tools_call's UNKNOWN_PLUGIN names it cut in its message and in the answer's plugin field", async () => {
        const { payload } = await callJson(server.client, "agent_tools_call", { plugin: BIG, toolName: "get_note" });
        assert.equal(payload.error?.code, "UNKNOWN_PLUGIN");
        assert.equal(payload.plugin, `${"q".repeat(80)}…`);
        assert.match(payload.error?.message ?? "", /^no plugin has prefix 'q{80}…'; nothing was run/);
      });
    } else {
      it("a per-plugin tool given another plugin names that plugin's tool, or says a made-up one is no plugin", async () => {
        const other = await callJson(server.client, "agent_tools_notes_call", { plugin: "Tracker", toolName: "x" });
        assert.equal(other.payload.error?.message, "'plugin' is 'Tracker' but agent_tools_notes_call belongs to plugin 'notes'; nothing was run. Call agent_tools_tracker_call, or leave 'plugin' out");
        const made = await callJson(server.client, "agent_tools_notes_call", { plugin: BIG, toolName: "x" });
        assert.match(made.payload.error?.message ?? "", /^'plugin' is 'q{80}…' but agent_tools_notes_call belongs to plugin 'notes'; nothing was run\. 'q{80}…' is not a plugin here: leave 'plugin' out$/);
      });
    }
  });
}

describe("a REST error names the request cut", () => {
  const tasks = tasksAgentForSuite("answer-bounds");

  it("a 100 KB search text the API refuses (HTTP 431) is not quoted whole in the request's URL", async () => {
    const { payload } = await callJson(tasks.agent.client, "agent_tools_tasks_call", { toolName: "list_tasks", arguments: { text: "y".repeat(100_000) } });
    assert.equal(payload.error?.code, "UPSTREAM_ERROR");
    assert.match(payload.error?.message ?? "", /GET \/tasks\?q=y+… answered HTTP 431/);
    assert.ok(size(payload) < 1_000, `${size(payload)} characters`);
    assert.ok(!JSON.stringify(payload).includes(tasks.key));
  });
});

describe("a downstream's error text is masked before it is cut at 2,000 characters", () => {
  // The fixture fails with `pad` 'x's then the text; the cut of its text is at 2,000 characters.
  const SECRET = "Zq8vK3mPw9tR2xLb";
  let dir: string;
  let agent: Connected;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "answer-bounds-cut-"));
    writePlugin(path.join(dir, "agent-tools-plugin-ft"), {
      name: "ft",
      prefix: "ft",
      description: "A downstream that fails with a text of the caller's making.",
      adapter: { kind: "mcp", command: process.execPath, args: [path.join(ROOT, "test", "fixtures", "v2", "fail-text.mjs")], env: { FAIL_TOKEN: "${HOST_FAIL_TOKEN}" }, timeoutMs: 30_000 },
    });
    agent = await connect(dir, { HOST_FAIL_TOKEN: SECRET });
  });
  after(async () => {
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const failed = async (pad: number, text: string) => {
    const { payload } = await callJson(agent.client, "agent_tools_ft_call", { toolName: "fail_text", arguments: { pad, text } });
    assert.equal(payload.error?.code, "UPSTREAM_ERROR");
    return { message: (payload.error?.message ?? "").replace(/^the tool answered with an error: /, ""), more: payload.error?.details?.moreText, all: JSON.stringify(payload) };
  };
  /** No part of the secret, not even its first two characters, anywhere in the answer. */
  const noPart = (all: string) => assert.ok(!all.includes(SECRET.slice(0, 2)), all.slice(-300));

  it("a secret wholly inside the cut is masked, and the cut goes on after the marker", async () => {
    const { message, more, all } = await failed(1984, "{token} and more");
    assert.match(message, /^x{1984}\[redacted\] and m… \(continued in `details\.moreText`: 3 more characters\)$/);
    // The text goes on in details.moreText, once: what the message quotes is not repeated.
    assert.equal(more, "ore");
    noPart(all);
  });

  it("a secret the cut goes through shows none of its characters (8 or 2 of them before the cut)", async () => {
    const eight = await failed(1992, "{token} and more");
    assert.match(eight.message, /^x{1992}\[redacte… \(continued in `details\.moreText`: 11 more characters\)$/);
    noPart(eight.all);
    const two = await failed(1998, "{token} and more");
    assert.match(two.message, /^x{1998}\[r… \(continued in `details\.moreText`: 17 more characters\)$/);
    noPart(two.all);
  });

  it("a secret just after the cut is left out whole", async () => {
    const { message, more, all } = await failed(2000, "{token} and more");
    assert.equal(more, "[redacted] and more");
    assert.match(message, /^x{2000}… \(continued in `details\.moreText`: 19 more characters\)$/);
    noPart(all);
  });

  it("a cut that falls inside an emoji (a surrogate pair) leaves the whole emoji out, counted", async () => {
    const { message } = await failed(1999, "😀tail");
    assert.match(message, /^x{1999}… \(continued in `details\.moreText`: 6 more characters\)$/);
    assert.ok(!/[\uD800-\uDFFF]/.test(message), "no lone surrogate");
  });
});
