import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { callJson, stdioForSuite } from "./helpers.js";

// Repairs of malformed calls and the loop breaker, over real stdio. Each repair is reported and
// never skips validation or the confirm gate.

describe("repairs", () => {
  const server = stdioForSuite();

  it("unwraps {arguments:{toolName, arguments}} in _call and reports it", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_notes_call", { arguments: { toolName: "get_note", arguments: { id: "n2" } } });
    assert.equal(isError, false);
    assert.equal((payload.result as { id: string }).id, "n2");
    assert.deepEqual(payload.repairs, ["'toolName' and 'arguments' were nested inside 'arguments'; they were lifted one level up"]);
  });

  it("unwraps {arguments:{skill, arguments}} in _run_skill", async () => {
    const { payload } = await callJson(server.client, "agent_tools_notes_run_skill", { arguments: { skill: "count", arguments: { tag: "home" } } });
    assert.deepEqual(payload.result, { count: 1 });
    assert.equal(payload.repairs?.length, 1);
  });

  it("an unwrapped call still goes through validation and the confirm gate", async () => {
    const invalid = await callJson(server.client, "agent_tools_notes_call", { arguments: { toolName: "get_note", arguments: {} } });
    assert.equal(invalid.payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.equal(invalid.payload.repairs?.length, 1);
    const gated = await callJson(server.client, "agent_tools_notes_call", { arguments: { toolName: "delete_note", arguments: { id: "n1" } } });
    assert.equal(gated.payload.error?.code, "CONFIRM_REQUIRED");
  });

  it("parses arguments sent as a JSON string", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_notes_call", { toolName: "search_notes", arguments: '{"text":"bread"}' });
    assert.equal(isError, false);
    assert.equal((payload.result as { hits: unknown[] }).hits.length, 1);
    assert.deepEqual(payload.repairs, ["'arguments' was a JSON string; it was parsed into an object"]);
  });

  it("mends a near miss of the tool kind on a real plugin prefix", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_notes_cal", { toolName: "list_notes", arguments: {} });
    assert.equal(isError, false);
    assert.match(payload.repairs?.[0] ?? "", /'agent_tools_notes_cal' was read as 'agent_tools_notes_call'/);
  });

  it("does not guess a plugin from the shape of the arguments: nothing runs", async () => {
    const { payload, isError } = await callJson(server.client, "tracker_execute", { toolName: "listTickets", arguments: { status: "closed" } });
    assert.equal(isError, true, JSON.stringify(payload));
    assert.equal(payload.error?.code, "UNKNOWN_FACADE_TOOL");
    assert.ok((payload.error?.details?.tools as string[]).includes("agent_tools_tracker_call"), "the nearest names include the one meant");
  });

  it("answers UNKNOWN_FACADE_TOOL with suggestions when nothing fits", async () => {
    const { payload, isError } = await callJson(server.client, "frobnicate", { x: 1 });
    assert.equal(isError, true);
    assert.equal(payload.error?.code, "UNKNOWN_FACADE_TOOL");
    assert.ok((payload.error?.details?.tools as string[]).length > 0, "the nearest real names are in details.tools");
  });

  it("strips the plugin prefix from a tool name", async () => {
    for (const sent of ["notes_list_notes", "notes.list_notes", "agent_tools_notes_list_notes"]) {
      const { payload, isError } = await callJson(server.client, "agent_tools_notes_call", { toolName: sent, arguments: {} });
      assert.equal(isError, false, sent);
      assert.equal(payload.toolName, "list_notes");
      assert.match(payload.repairs?.[0] ?? "", /carried the plugin prefix/);
    }
  });

  it("answers UNKNOWN_TOOL with 'did you mean' for a misspelt tool", async () => {
    const { payload } = await callJson(server.client, "agent_tools_notes_call", { toolName: "serch_notes", arguments: { text: "x" } });
    assert.equal(payload.error?.code, "UNKNOWN_TOOL");
    assert.match(payload.error?.message ?? "", /did you mean 'search_notes'/);
    assert.equal((payload.error?.details?.suggestions as string[])[0], "search_notes");
  });

  it("answers UNKNOWN_SKILL with the skill list and 'did you mean'", async () => {
    const { payload } = await callJson(server.client, "agent_tools_notes_run_skill", { skill: "digets", arguments: {} });
    assert.equal(payload.error?.code, "UNKNOWN_SKILL");
    assert.match(payload.error?.message ?? "", /did you mean 'digest'/);
    assert.deepEqual((payload.error?.details?.skills as { name: string }[]).map((s) => s.name), ["count", "digest"]);
  });

  it("a tool or skill name of a megabyte is refused at once and echoed cut, not three times in full", async () => {
    const huge = "x".repeat(1_000_000);
    const tool = await callJson(server.client, "agent_tools_notes_call", { toolName: huge, arguments: {} });
    assert.equal(tool.payload.error?.code, "UNKNOWN_TOOL");
    assert.match(tool.payload.error?.message ?? "", /has no tool 'x{80}…' \(a name of 1000000 characters; tool names are short identifiers\)/);
    assert.equal(tool.payload.error?.details?.length, 1_000_000);
    const skill = await callJson(server.client, "agent_tools_notes_run_skill", { skill: huge, arguments: {} });
    assert.equal(skill.payload.error?.code, "UNKNOWN_SKILL");
    assert.deepEqual((skill.payload.error?.details?.skills as { name: string }[]).map((s) => s.name), ["count", "digest"]);
    // The whole answer, target included, is small: it was 3 MB.
    for (const answer of [tool.payload, skill.payload]) assert.ok(JSON.stringify(answer).length < 2_000, JSON.stringify(answer).slice(0, 300));
  });

  it("answers MISSING_TOOL_NAME when toolName is absent", async () => {
    const { payload } = await callJson(server.client, "agent_tools_notes_call", { arguments: { id: "n1" } });
    assert.equal(payload.error?.code, "MISSING_TOOL_NAME");
    assert.match(payload.error?.message ?? "", /'toolName' is missing/);
  });

  it("rejects arguments that are not an object, naming what was sent", async () => {
    const { payload } = await callJson(server.client, "agent_tools_notes_call", { toolName: "list_notes", arguments: [1, 2] });
    assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.match(payload.error?.message ?? "", /not an array/);
  });
});

describe("loop breaker", () => {
  const server = stdioForSuite();

  it("the third identical failing call answers LOOP_DETECTED without running it", async () => {
    const call = { toolName: "get_note", arguments: { nope: true } };
    const first = await callJson(server.client, "agent_tools_notes_call", call);
    const second = await callJson(server.client, "agent_tools_notes_call", call);
    const third = await callJson(server.client, "agent_tools_notes_call", call);
    const fourth = await callJson(server.client, "agent_tools_notes_call", call);
    assert.equal(first.payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.equal(second.payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.equal(third.payload.error?.code, "LOOP_DETECTED");
    assert.match(third.payload.error?.message ?? "", /failed 2 times in a row with ARG_VALIDATION_FAILED/);
    assert.match(third.payload.error?.hint ?? "", /Stop repeating this call/);
    assert.equal(fourth.payload.error?.code, "LOOP_DETECTED");
  });

  it("arguments nested thousands deep get the schema's error, and count as any other failure", async () => {
    // Deeper than the recursive key builder could go (it overflowed near 3,000 levels) and shallow
    // enough for the client's own JSON.stringify. Its RangeError replaced the call's error with
    // UPSTREAM_ERROR "Maximum call stack size exceeded", blaming a service that was never called.
    let nested: unknown = 1;
    for (let i = 0; i < 3500; i++) nested = { a: nested };
    const call = { toolName: "get_note", arguments: { id: "n1", nested } };
    const first = await callJson(server.client, "agent_tools_notes_call", call);
    assert.equal(first.payload.error?.code, "ARG_VALIDATION_FAILED", JSON.stringify(first.payload).slice(0, 400));
    assert.match(first.payload.error?.message ?? "", /unknown property 'nested'/);
    assert.equal((await callJson(server.client, "agent_tools_notes_call", call)).payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.equal((await callJson(server.client, "agent_tools_notes_call", call)).payload.error?.code, "LOOP_DETECTED");
  });

  it("a changed call is run again, and key order does not make a call different", async () => {
    const a = { toolName: "get_note", arguments: { id: "n1", a: 1, b: 2 } };
    const b = { toolName: "get_note", arguments: { b: 2, a: 1, id: "n1" } };
    assert.equal((await callJson(server.client, "agent_tools_notes_call", a)).payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.equal((await callJson(server.client, "agent_tools_notes_call", b)).payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.equal((await callJson(server.client, "agent_tools_notes_call", a)).payload.error?.code, "LOOP_DETECTED");
    const changed = await callJson(server.client, "agent_tools_notes_call", { toolName: "get_note", arguments: { id: "n1", a: 2 } });
    assert.equal(changed.payload.error?.code, "ARG_VALIDATION_FAILED");
  });

  it("upstream failures never trip it: a retry may find the service back", async () => {
    for (let i = 0; i < 5; i++) {
      const { payload } = await callJson(server.client, "agent_tools_notes_call", { toolName: "fail_always", arguments: {} });
      assert.equal(payload.error?.code, "UPSTREAM_ERROR", `attempt ${i + 1}`);
    }
  });
});
