import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { callJson, connect, FIXTURES, ROOT, type Connected } from "./helpers.js";
import { startTasksApi, type TasksApi } from "./tasks-api-helpers.js";

/**
 * The reference tasks API serves the original runtime's tasks plugin (test/fixtures/original-tasks:
 * a fetch adapter that reads `{task}` answers, sends a boolean `done`, and prints `body.error` in
 * its errors) and the bundled tasks plugin, both against one running server.
 */

const KEY = `tasks-key-${randomBytes(12).toString("hex")}`;
const ORIGINAL = path.join(FIXTURES, "original-tasks");
const BUNDLED = path.join(ROOT, "plugins", "agent-tools-plugin-tasks");

let dir: string;
let api: TasksApi;
before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "tasks-original-"));
  api = await startTasksApi(path.join(dir, "tasks.sqlite"), KEY);
});
after(async () => {
  await api?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("the original tasks plugin against examples/tasks-api", () => {
  let agent: Connected;
  before(async () => {
    agent = await connect(ORIGINAL, { TASKS_API_BASE: api.url, TASKS_API_KEY: KEY });
  });
  after(async () => {
    await agent?.close();
  });

  it("insert-and-verify-task succeeds", async () => {
    const { payload, isError } = await callJson(agent.client, "agent_tools_tasks_run_skill", { skill: "insert-and-verify-task", arguments: { title: "Renew passport" }, confirm: true });
    assert.equal(isError, false, JSON.stringify(payload));
    const result = payload.result as { verified: boolean; task: { id: number; title: string; done: boolean } };
    assert.equal(result.verified, true);
    assert.equal(result.task.title, "Renew passport");
    assert.equal(result.task.done, false);
  });

  it("get_task and create_task answer the task, and done completes it", async () => {
    const created = await callJson(agent.client, "agent_tools_tasks_call", { toolName: "create_task", arguments: { title: "Buy milk", done: false }, confirm: true });
    assert.equal(created.isError, false, JSON.stringify(created.payload));
    const task = created.payload.result as { id: number; title: string; done: boolean; status: string };
    assert.equal(task.title, "Buy milk");
    assert.equal(typeof task.id, "number");
    const got = await callJson(agent.client, "agent_tools_tasks_call", { toolName: "get_task", arguments: { id: task.id } });
    assert.deepEqual(got.payload.result, task);
    const completed = await callJson(agent.client, "agent_tools_tasks_call", { toolName: "complete_task", arguments: { id: task.id }, confirm: true });
    assert.equal((completed.payload.result as { done: boolean; status: string }).done, true);
    assert.equal((completed.payload.result as { status: string }).status, "done");
  });

  it("a result that is a bare JSON scalar (`true`, a count) is parsed, not passed on as its text", async () => {
    const created = await callJson(agent.client, "agent_tools_tasks_call", { toolName: "create_task", arguments: { title: "Throw away" }, confirm: true });
    const id = (created.payload.result as { id: number }).id;
    const counted = await callJson(agent.client, "agent_tools_tasks_call", { toolName: "count_tasks", arguments: {} });
    assert.equal(typeof counted.payload.result, "number", JSON.stringify(counted.payload));
    const deleted = await callJson(agent.client, "agent_tools_tasks_call", { toolName: "delete_task", arguments: { id }, confirm: true });
    assert.equal(deleted.isError, false, JSON.stringify(deleted.payload));
    assert.equal(deleted.payload.result, true);
    const after = await callJson(agent.client, "agent_tools_tasks_call", { toolName: "count_tasks", arguments: {} });
    assert.equal(after.payload.result, (counted.payload.result as number) - 1);
  });

  it("the API's errors reach the agent as words, never [object Object]", async () => {
    const missing = await callJson(agent.client, "agent_tools_tasks_call", { toolName: "get_task", arguments: { id: 987654 } });
    assert.equal(missing.isError, true);
    assert.match(missing.payload.error?.message ?? "", /tasks API 404: task 987654 does not exist/);
    const invalid = await callJson(agent.client, "agent_tools_tasks_call", { toolName: "create_task", arguments: { title: "" }, confirm: true });
    assert.match(invalid.payload.error?.message ?? "", /tasks API 422: field 'title' must be a non-empty string/);
    assert.doesNotMatch(JSON.stringify([missing.payload, invalid.payload]), /\[object Object\]/);
  });
});

describe("the bundled tasks plugin against the same server", () => {
  it("insert-and-verify-task succeeds, and sees the original plugin's tasks with their done flag", async () => {
    const agent = await connect(BUNDLED, { TASKS_API_BASE: api.url, TASKS_API_KEY: KEY });
    try {
      const { payload, isError } = await callJson(agent.client, "agent_tools_tasks_run_skill", { skill: "insert-and-verify-task", arguments: { title: "Water the plants", status: "doing" }, confirm: true });
      assert.equal(isError, false, JSON.stringify(payload));
      assert.equal((payload.result as { verified: boolean }).verified, true);
      const listed = await callJson(agent.client, "agent_tools_tasks_call", { toolName: "list_tasks", arguments: { text: "passport" } });
      const tasks = (listed.payload.result as { data: { tasks: { title: string; done: boolean }[] } }).data.tasks;
      assert.deepEqual(tasks.map((t) => [t.title, t.done]), [["Renew passport", false]]);
    } finally {
      await agent.close();
    }
  });
});
