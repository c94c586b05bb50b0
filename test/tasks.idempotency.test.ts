import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { IdempotencyKeys } from "../src/adapters/rest/idempotency.js";
import { callJson, connect, ROOT, type Connected } from "./helpers.js";
import { startProxy, startTasksApi, type TasksProxy, type TasksApi } from "./tasks-api-helpers.js";

// Ghost writes: the tasks API commits a create and is SIGKILLed before its answer reaches the
// runtime (a proxy in between swallows the answers, so every write of the round is such a
// ghost). The API restarts on the same database, the agent retries the same calls in the same
// session: each is answered with the task the first attempt created, and no row is doubled.
// The restarted API also removed the temporary database copy a killed server leaves behind.

const PLUGIN = path.join(ROOT, "plugins", "agent-tools-plugin-tasks");
const KEY = `tasks-key-${randomBytes(12).toString("hex")}`;

/** Forwards to the current API; while `swallow` is on, a write's answer is dropped and its connection cut. */
async function startSwallowingProxy(target: () => string): Promise<TasksProxy & { state: { swallow: boolean; committed: number } }> {
  const state = { swallow: false, committed: 0 };
  const proxy = await startProxy(target, {
    answer(req, res) {
      if (!state.swallow || req.method === "GET") return false;
      state.committed++;
      res.socket?.destroy();
      return true;
    },
    // The API killed mid-write: the runtime sees a cut connection, as from the API itself.
    unreachable: (res) => void res.socket?.destroy(),
  });
  return { ...proxy, state };
}

describe("writes in flight when the tasks API is SIGKILLed", { timeout: 240_000 }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-ghosts-"));
  const dbFile = path.join(dir, "tasks.sqlite");
  let api: TasksApi;
  let proxy: Awaited<ReturnType<typeof startSwallowingProxy>>;
  let agent: Connected;
  before(async () => {
    api = await startTasksApi(dbFile, KEY);
    proxy = await startSwallowingProxy(() => api.url);
    agent = await connect(PLUGIN, { TASKS_API_BASE: proxy.url, TASKS_API_KEY: KEY });
  });
  after(async () => {
    await agent.close();
    api.child.kill("SIGKILL");
    await proxy.close();
  });

  const create = (title: string) => callJson(agent.client, "agent_tools_tasks_call", { toolName: "create_task", arguments: { title, description: "ghost-write test" }, confirm: true });

  it("restart, retry the same calls: every task exists once", async () => {
    let ghosts = 0;
    for (let round = 1; round <= 3; round++) {
      const titles = Array.from({ length: 10 }, (_, i) => `round ${round} task ${i}`);
      proxy.state.swallow = true;
      proxy.state.committed = 0;
      const first = await Promise.all(titles.map((title) => create(title)));
      assert.ok(first.every((answer) => !answer.payload.ok), "no write got its answer");
      ghosts += proxy.state.committed;
      assert.equal(proxy.state.committed, 10, "each write was committed before its answer was lost");
      api.child.kill("SIGKILL");
      await new Promise((resolve) => api.child.once("exit", resolve));
      // What a server killed in the middle of persist() leaves: a full temporary copy.
      writeFileSync(`${dbFile}.4242.${randomBytes(4).toString("hex")}.tmp`, "partial database");
      api = await startTasksApi(dbFile, KEY);
      assert.deepEqual(readdirSync(dir).filter((name) => name.endsWith(".tmp")), [], "stale temporary copies are removed at start");
      proxy.state.swallow = false;
      const retried = await Promise.all(titles.map((title) => create(title)));
      for (const answer of retried) assert.equal(answer.payload.ok, true, JSON.stringify(answer.payload));
      const list = await callJson(agent.client, "agent_tools_tasks_call", { toolName: "list_tasks", arguments: { text: `round ${round} task`, limit: 500 } });
      const tasks = ((list.payload.result as { data: { tasks: { id: number; title: string }[] } }).data.tasks);
      const counts = new Map<string, number>();
      for (const task of tasks) counts.set(task.title, (counts.get(task.title) ?? 0) + 1);
      assert.deepEqual([...counts.entries()].filter(([, n]) => n !== 1), [], "no task was created twice");
      assert.equal(counts.size, 10);
      const retriedIds = retried.map((answer) => (answer.payload.result as { data: { task: { id: number } } }).data.task.id).sort((a, b) => a - b);
      assert.deepEqual(retriedIds, tasks.map((task) => task.id).sort((a, b) => a - b), "each retry answered the task its first attempt created");
    }
    assert.equal(ghosts, 30);
    assert.ok(existsSync(dbFile));
  });

  it("different calls are never merged", async () => {
    const a = await create("distinct one");
    const b = await create("distinct two");
    assert.equal(a.payload.ok && b.payload.ok, true);
    assert.notEqual((a.payload.result as { data: { task: { id: number } } }).data.task.id, (b.payload.result as { data: { task: { id: number } } }).data.task.id);
  });
});

describe("idempotency keys of the runtime", () => {
  it("one key per call and session while it is repeated within the window (sliding), a new one after it", () => {
    let now = 0;
    const keys = new IdempotencyKeys(1_000, () => now);
    const first = keys.keyFor("s1", "create_task", { title: "a", status: "todo" });
    now = 900;
    assert.equal(keys.keyFor("s1", "create_task", { status: "todo", title: "a" }), first, "argument order does not matter");
    now = 1_800;
    assert.equal(keys.keyFor("s1", "create_task", { title: "a", status: "todo" }), first, "each repeat extends the window");
    assert.notEqual(keys.keyFor("s2", "create_task", { title: "a", status: "todo" }), first, "another session");
    assert.notEqual(keys.keyFor("s1", "create_task", { title: "b", status: "todo" }), first, "other arguments");
    now = 2_900;
    assert.notEqual(keys.keyFor("s1", "create_task", { title: "a", status: "todo" }), first, "after the window: a new write");
  });
});
