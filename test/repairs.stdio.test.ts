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

  it("a skill's name sent to _call, a tool's to _run_skill, or another plugin's tool is led to the facade tool that has it; nothing runs", async () => {
    const skill = await callJson(server.client, "agent_tools_notes_call", { toolName: "count", arguments: { tag: "home" } });
    assert.equal(skill.payload.error?.code, "UNKNOWN_TOOL");
    assert.match(skill.payload.error?.message ?? "", /plugin 'notes' has no tool 'count'; 'count' is a skill of this plugin: call agent_tools_notes_run_skill with skill 'count'$/);
    assert.equal(skill.payload.error?.hint, "'count' is a skill of this plugin: call agent_tools_notes_run_skill with skill 'count'. Nothing was run.");
    // The caller's arguments are carried into next (the same call, redirected).
    assert.deepEqual(skill.payload.error?.details?.next, { tool: "agent_tools_notes_run_skill", arguments: { skill: "count", arguments: { tag: "home" } } });
    const tool = await callJson(server.client, "agent_tools_notes_run_skill", { skill: "list_notes" });
    assert.equal(tool.payload.error?.code, "UNKNOWN_SKILL");
    assert.match(tool.payload.error?.message ?? "", /'list_notes' is a tool of this plugin: call agent_tools_notes_call with toolName 'list_notes'/);
    const other = await callJson(server.client, "agent_tools_notes_call", { toolName: "listTickets" });
    assert.match(other.payload.error?.message ?? "", /plugin 'notes' has no tool 'listTickets'; 'listTickets' is a tool of plugin 'tracker': call agent_tools_tracker_call with toolName 'listTickets'$/);
    assert.equal(other.payload.error?.details?.suggestions, undefined, "no near name of this plugin is offered for it (and no empty list)");
    const back = await callJson(server.client, "agent_tools_tracker_call", { toolName: "get_note", arguments: { id: "n1" } });
    assert.match(back.payload.error?.hint ?? "", /^'get_note' is a tool of plugin 'notes': call agent_tools_notes_call with toolName 'get_note'\. Nothing was run\.$/);
    // Case and separators aside, as a tool name is matched within its plugin.
    const folded = await callJson(server.client, "agent_tools_tracker_run_skill", { skill: "Count" });
    assert.match(folded.payload.error?.message ?? "", /'count' is a skill of plugin 'notes': call agent_tools_notes_run_skill with skill 'count'/);
  });

  it("a query that is a number or an array of strings is read as text and said; any other kind is refused naming it", async () => {
    const number = await callJson(server.client, "agent_tools_notes_discover", { query: 42 });
    assert.match(String(number.payload.note), /nothing in 'notes' matches '42'/, JSON.stringify(number.payload));
    assert.deepEqual(number.payload.repairs, ["'query' was the number 42; it was read as the text \"42\""]);
    const words = await callJson(server.client, "agent_tools_notes_discover", { query: ["delete", "a note"] });
    assert.equal((words.payload.matches as { name: string }[])[0]?.name, "delete_note");
    assert.deepEqual(words.payload.repairs, ["'query' was an array of strings; its words were read as one query, \"delete a note\""]);
    const object = await callJson(server.client, "agent_tools_notes_discover", { query: { text: "delete" } });
    assert.equal(object.payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.equal(object.payload.error?.message, "'query' must be a few words as a string, e.g. {\"query\": \"list open issues\"}; got an object. Nothing was searched; leave 'query' out to list the plugin's tools and skills");
    const search = await callJson(server.client, "agent_tools_search", { query: ["tickets"] });
    assert.equal(search.payload.ok, true, JSON.stringify(search.payload));
    // The query is not echoed (the caller has it); the repair says how it was read.
    assert.equal(search.payload.query, undefined);
    assert.match(JSON.stringify(search.payload.repairs), /tickets/);
    const mixed = await callJson(server.client, "agent_tools_search", { query: ["tickets", 3] });
    assert.match(mixed.payload.error?.message ?? "", /'query' must be a few words as a string, .*; got an array that is not all strings\. Nothing was searched; say in a few words what you want to do$/);
    const flag = await callJson(server.client, "agent_tools_search", { query: true });
    assert.match(flag.payload.error?.message ?? "", /got the boolean true\./);
  });

  it("_run_skill reads toolName, tool or tool_name as the skill when it is the only name sent", async () => {
    for (const key of ["toolName", "tool", "tool_name"]) {
      const { payload } = await callJson(server.client, "agent_tools_notes_run_skill", { [key]: "count", arguments: { tag: "home" } });
      assert.deepEqual(payload.result, { count: 1 }, key);
      assert.deepEqual(payload.repairs, [`'${key}' was read as 'skill'`]);
    }
  });

  it("a tool or skill name of a megabyte is refused at once and echoed cut, not three times in full", async () => {
    const huge = "x".repeat(1_000_000);
    const tool = await callJson(server.client, "agent_tools_notes_call", { toolName: huge, arguments: {} });
    assert.equal(tool.payload.error?.code, "UNKNOWN_TOOL");
    assert.match(tool.payload.error?.message ?? "", /has no tool 'x{80}…' \(a name of 1000000 characters; tool names are short identifiers\)/);
    assert.equal(tool.payload.error?.details?.length, 1_000_000);
    // No near names: no `suggestions` (README: absent when there are none), not an empty list.
    assert.equal(tool.payload.error?.details?.suggestions, undefined);
    // Nothing near at all: no `details` either, rather than an empty object.
    const none = await callJson(server.client, "agent_tools_notes_call", { toolName: "nope" });
    assert.equal(none.payload.error?.code, "UNKNOWN_TOOL");
    assert.ok(!("details" in (none.payload.error ?? {})), JSON.stringify(none.payload.error));
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

describe("keys a call carries that the runtime does not read", () => {
  const server = stdioForSuite();

  it("a _call's arguments sent next to toolName are read as the tool's arguments, and said", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_notes_call", { toolName: "get_note", id: "n2" });
    assert.equal(isError, false, JSON.stringify(payload));
    assert.equal((payload.result as { id: string }).id, "n2");
    assert.deepEqual(payload.repairs, ["'id' was sent next to 'toolName' instead of inside 'arguments'; it was read as an argument of 'get_note'"]);
  });

  it("one inside 'arguments' wins over the same key next to it, and the answer says which was used", async () => {
    const { payload } = await callJson(server.client, "agent_tools_notes_call", { toolName: "get_note", arguments: { id: "n1" }, id: "n2" });
    assert.equal((payload.result as { id: string }).id, "n1");
    assert.match(payload.repairs?.[0] ?? "", /'id' was sent next to 'toolName': 'arguments' holds 'id' too, and that one was used/);
  });

  it("a key that is no parameter of the call or the tool is said to be ignored, naming the tool's parameters", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_notes_call", { toolName: "list_notes", arguments: {}, colour: "red" });
    assert.equal(isError, false);
    assert.match(payload.repairs?.[0] ?? "", /'colour' was sent next to 'toolName': it is not a parameter of this call \(toolName, arguments, confirm\) nor of 'list_notes' \(tag\); it was ignored/);
  });

  it("a misspelt confirm is never honoured, only said: the write stays refused", async () => {
    // A different note each time: the same refused call three times would be the loop breaker's.
    for (const [key, id] of [["confrim", "n1"], ["Confirmed", "n2"], ["confirm_", "n3"]] as const) {
      const { payload } = await callJson(server.client, "agent_tools_notes_call", { toolName: "delete_note", arguments: { id }, [key]: true });
      assert.equal(payload.error?.code, "CONFIRM_REQUIRED", key);
      assert.deepEqual(payload.repairs, [`'${key}' is not 'confirm' and was not honoured: a change is allowed only by confirm: true, spelt so, next to 'toolName'`], key);
    }
  });

  it("flattened calls that differ are different calls to the loop breaker", async () => {
    for (const text of ["a", "b", "c", "d"]) {
      const { payload } = await callJson(server.client, "agent_tools_notes_call", { toolName: "search_notes", text });
      assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED", text);
    }
  });

  it("flattened arguments still meet the tool's schema and the gate", async () => {
    const invalid = await callJson(server.client, "agent_tools_notes_call", { toolName: "search_notes", text: "x" });
    assert.equal(invalid.payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.equal(invalid.payload.repairs?.length, 1);
    const gated = await callJson(server.client, "agent_tools_notes_call", { toolName: "delete_note", id: "n1" });
    assert.equal(gated.payload.error?.code, "CONFIRM_REQUIRED");
    assert.match(gated.payload.repairs?.[0] ?? "", /'id' was sent next to 'toolName'/);
  });

  it("tool, tool_name or name for toolName (and skill_name for skill) are read as it, once unambiguous", async () => {
    for (const key of ["tool", "tool_name", "name"]) {
      const { payload, isError } = await callJson(server.client, "agent_tools_notes_call", { [key]: "get_note", arguments: { id: "n2" } });
      assert.equal(isError, false, key);
      assert.deepEqual(payload.repairs, [`'${key}' was read as 'toolName'`]);
    }
    const skill = await callJson(server.client, "agent_tools_notes_run_skill", { skill_name: "count", arguments: { tag: "home" } });
    assert.deepEqual(skill.payload.result, { count: 1 });
    // Two candidates: nothing is guessed, and the error lists what was received.
    const two = await callJson(server.client, "agent_tools_notes_call", { tool: "get_note", name: "list_notes" });
    assert.equal(two.payload.error?.code, "MISSING_TOOL_NAME");
    assert.deepEqual(two.payload.error?.details?.received, ["tool", "name"]);
  });

  it("an argument the tool's schema does not declare is passed on and said, with the near parameter", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_notes_call", { toolName: "search_notes", arguments: { text: "bread", limt: 3 } });
    assert.equal(isError, false);
    assert.deepEqual(payload.repairs, ["'limt' is not a parameter of 'search_notes' (it takes: text, limit); it was passed on as sent. Did you mean 'limit'?"]);
    // additionalProperties: false: the schema itself refuses it, and nothing more is said.
    const closed = await callJson(server.client, "agent_tools_notes_call", { toolName: "get_note", arguments: { id: "n1", extra: 1 } });
    assert.equal(closed.payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.equal(closed.payload.repairs, undefined);
  });

  it("help, search, discover and exec read a near miss or another common name of their parameter, and say any other key", async () => {
    const search = await callJson(server.client, "agent_tools_search", { qurey: "read a note", limt: 2 });
    assert.equal(search.payload.ok, true, JSON.stringify(search.payload));
    assert.equal((search.payload.hits as unknown[]).length, 2);
    assert.deepEqual(search.payload.repairs, ["'qurey' was read as 'query'", "'limt' was read as 'limit'"]);
    const discover = await callJson(server.client, "agent_tools_notes_discover", { q: "delete a note" });
    assert.equal((discover.payload.matches as { name: string }[])[0]?.name, "delete_note");
    assert.deepEqual(discover.payload.repairs, ["'q' was read as 'query'"]);
    const help = await callJson(server.client, "agent_tools_help", { topic: "writing notes" });
    assert.deepEqual(help.payload.repairs, ["'topic' is not a parameter of agent_tools_help; it was ignored. agent_tools_help takes: plugin"]);
    const exec = await callJson(server.client, "agent_tools_exec", { cmd: "echo hi" });
    assert.equal(exec.payload.stdout, "hi\n");
    assert.deepEqual(exec.payload.repairs, ["'cmd' was read as 'command'"]);
    // Sent with the parameter itself: the other is not read over it.
    const both = await callJson(server.client, "agent_tools_search", { query: "read a note", qurey: "delete" });
    assert.deepEqual(both.payload.repairs, ["'qurey' is not a parameter of agent_tools_search ('query' was sent too); it was ignored. agent_tools_search takes: query, limit, plugin, detail"]);
    // discover's entries stay short: a `detail` sent to it says where schemas come from, and that call works.
    const detail = await callJson(server.client, "agent_tools_notes_discover", { query: "get_note", detail: true });
    assert.deepEqual(detail.payload.repairs, [
      `'detail' is not a parameter of agent_tools_notes_discover; it was ignored. agent_tools_notes_discover takes: query, limit; for tools' full descriptions and input schemas, call agent_tools_search with {"query": "…", "plugin": "notes", "detail": true}`,
    ]);
    // Routed by its `plugin` (a prefix this caller may use): the repair quotes that prefix.
    const routed = await callJson(server.client, "agent_tools_discover", { plugin: "notes", query: "get_note", detail: true });
    assert.ok((routed.payload.repairs as string[]).some((r) => r.endsWith(`call agent_tools_search with {"query": "…", "plugin": "notes", "detail": true}`)), JSON.stringify(routed.payload.repairs));
    const schemas = await callJson(server.client, "agent_tools_search", { query: "get_note", plugin: "notes", detail: true });
    assert.ok((schemas.payload.hits as { inputSchema?: unknown }[]).some((hit) => hit.inputSchema), JSON.stringify(schemas.payload).slice(0, 400));
    // A refusal of a search names no `target`: the query is not one (it was echoed, up to 1,000 characters).
    const long = await callJson(server.client, "agent_tools_search", { query: "zq".repeat(5000), plugin: "nope" });
    assert.equal(long.isError, true);
    assert.equal(long.payload.target, undefined);
    assert.ok(JSON.stringify(long.payload).length < 1_000, JSON.stringify(long.payload).slice(0, 300));
    // null is how clients send an unset field: nothing to say.
    const unset = await callJson(server.client, "agent_tools_search", { query: "read a note", topic: null });
    assert.equal(unset.payload.repairs, undefined);
  });
});

describe("a key whose value is a plugin's prefix", () => {
  const server = stdioForSuite();

  it("is read as help's or search's plugin, and said; the plugin's answer, not the whole fleet's", async () => {
    const asked = await callJson(server.client, "agent_tools_help", { plugin: "notes" });
    for (const key of ["prefix", "name", "topic", "server"]) {
      const { payload, isError } = await callJson(server.client, "agent_tools_help", { [key]: "notes" });
      assert.equal(isError, false);
      assert.deepEqual(payload.repairs, [`'${key}' was read as 'plugin' ('notes' is a plugin's prefix)`]);
      const { repairs: _said, ...answer } = payload;
      assert.deepEqual(answer, asked.payload, `${key}: the same answer as {"plugin": "notes"}`);
    }
    const search = await callJson(server.client, "agent_tools_search", { query: "list", server: "tracker" });
    assert.deepEqual(search.payload.repairs, ["'server' was read as 'plugin' ('tracker' is a plugin's prefix)"]);
    assert.ok((search.payload.hits as { plugin: string }[]).every((hit) => hit.plugin === "tracker"), JSON.stringify(search.payload.hits));
  });

  it("is left alone when plugin was sent, when two keys name plugins, or when the value is no prefix", async () => {
    const sent = await callJson(server.client, "agent_tools_help", { plugin: "notes", prefix: "tracker" });
    assert.equal((sent.payload.plugin as { prefix: string }).prefix, "notes");
    assert.match(String(sent.payload.repairs), /'prefix' is not a parameter of agent_tools_help; it was ignored/);
    const two = await callJson(server.client, "agent_tools_help", { prefix: "notes", name: "tracker" });
    assert.equal(two.payload.plugin, undefined, "no plugin is chosen between two");
    assert.ok(Array.isArray(two.payload.plugins));
    const other = await callJson(server.client, "agent_tools_help", { name: "Notes app" });
    assert.ok(Array.isArray(other.payload.plugins));
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
