import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { callJson, stdioForSuite } from "./helpers.js";
import { tasksAgentForSuite } from "./tasks-api-helpers.js";

// An ARG_VALIDATION_FAILED answer names what to send instead: the misspelt argument beside the
// missing one, the properties to add, the types in words.

describe("a failed call names its undeclared arguments", () => {
  const server = stdioForSuite();

  it("a wrong-case argument on an open schema is named with the parameter it means, and the hint leads to a call that runs", async () => {
    const { payload } = await callJson(server.client, "agent_tools_notes_call", { toolName: "search_notes", arguments: { Text: "milk" } });
    assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.equal(payload.error?.message, "arguments for 'search_notes' are invalid: /text: missing required property 'text'; /Text: not a declared parameter; did you mean 'text'?");
    assert.deepEqual((payload.error?.details?.errors as { path: string }[]).map((e) => e.path), ["/text", "/Text"]);
    const fixed = await callJson(server.client, "agent_tools_notes_call", { toolName: "search_notes", arguments: { text: "milk" } });
    assert.equal(fixed.isError, false);
  });

  it("an undeclared argument with no near parameter is named with the declared ones", async () => {
    const { payload } = await callJson(server.client, "agent_tools_notes_call", { toolName: "search_notes", arguments: { banana: 1 } });
    assert.match(payload.error?.message ?? "", /\/banana: not a declared parameter \(declared: text, limit\)$/);
  });

  it("a valid call's undeclared argument is still said in repairs only, not refused", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_notes_call", { toolName: "search_notes", arguments: { text: "milk", limt: 2 } });
    assert.equal(isError, false);
    assert.deepEqual(payload.repairs, ["'limt' is not a parameter of 'search_notes' (it takes: text, limit); it was passed on as sent. Did you mean 'limit'?"]);
  });
});

describe("minProperties and type unions, against the tasks API", () => {
  const tasks = tasksAgentForSuite("validation-next");

  it("update_task with only its id names the properties to add and keeps minProperties in the schema fragment", async () => {
    const { payload } = await callJson(tasks.agent.client, "agent_tools_tasks_call", { toolName: "update_task", arguments: { id: 1 } });
    assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.match(payload.error?.message ?? "", /must NOT have fewer than 2 properties; add one or more of 'title', 'description', 'status', 'due'$/);
    const [entry] = payload.error?.details?.errors as { schema: Record<string, unknown> }[];
    assert.equal(entry?.schema.minProperties, 2);
    assert.deepEqual(entry?.schema.properties, ["id", "title", "description", "status", "due"]);
  });

  it("a nullable field's type is said in words", async () => {
    const { payload } = await callJson(tasks.agent.client, "agent_tools_tasks_call", { toolName: "create_task", arguments: { title: "t", due: 5 }, confirm: true });
    assert.match(payload.error?.message ?? "", /\/due: 'due' must be a string or null$/);
  });
});
