import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
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

/**
 * Forwards to the API and records the Idempotency-Key of every create. `next` says what happens to
 * the next create: passed on, its answer replaced by a 503 or its connection cut after the API
 * committed it, or refused with a 409 by the proxy itself before the API sees it.
 */
async function startRecordingProxy(target: () => string) {
  const state = { keys: [] as string[], next: "pass" as "pass" | "commitThen503" | "commitThenCut" | "refuse409" };
  const isCreate = (req: { method?: string; url?: string }) => req.method === "POST" && (req.url ?? "").startsWith("/tasks");
  const proxy = await startProxy(target, {
    request(req, res) {
      if (!isCreate(req)) return false;
      state.keys.push(String(req.headers["idempotency-key"]));
      if (state.next !== "refuse409") return false;
      state.next = "pass";
      res.writeHead(409, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "a task is being moved; try again", code: "conflict" }));
      return true;
    },
    answer(req, res) {
      if (!isCreate(req) || state.next === "pass") return false;
      const what = state.next;
      state.next = "pass";
      if (what === "commitThenCut") res.socket?.destroy();
      else {
        res.writeHead(503, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: "the database is busy", code: "unavailable" }));
      }
      return true;
    },
  });
  return { ...proxy, state };
}

describe("a write whose answer was received is not replayed; one whose answer was lost is", { timeout: 120_000 }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-answered-"));
  let api: TasksApi;
  let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
  let agent: Connected;
  before(async () => {
    api = await startTasksApi(path.join(dir, "tasks.sqlite"), KEY);
    proxy = await startRecordingProxy(() => api.url);
    agent = await connect(PLUGIN, { TASKS_API_BASE: proxy.url, TASKS_API_KEY: KEY });
  });
  after(async () => {
    await agent.close();
    await api.stop();
    await proxy.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const create = (title: string) => callJson(agent.client, "agent_tools_tasks_call", { toolName: "create_task", arguments: { title }, confirm: true });
  const taskId = (answer: Awaited<ReturnType<typeof create>>) => (answer.payload.result as { status: number; data: { task: { id: number } } }).data.task.id;
  const titled = async (title: string) => {
    const list = await callJson(agent.client, "agent_tools_tasks_call", { toolName: "list_tasks", arguments: { text: title, limit: 500 } });
    return (list.payload.result as { data: { tasks: { id: number; title: string }[] } }).data.tasks.filter((task) => task.title === title);
  };

  it("the same create twice, both answered: two keys, two tasks", async () => {
    proxy.state.keys = [];
    const first = await create("Water the plants");
    const second = await create("Water the plants");
    assert.equal(first.payload.ok, true, JSON.stringify(first.payload));
    assert.equal(second.payload.ok, true, JSON.stringify(second.payload));
    assert.equal(proxy.state.keys.length, 2);
    assert.notEqual(proxy.state.keys[0], proxy.state.keys[1], "a delivered answer retires the key");
    assert.notEqual(taskId(first), taskId(second));
    assert.equal((await titled("Water the plants")).length, 2);
  });

  it("a create refused with a 4xx, then the same create: a new key, and it is made", async () => {
    proxy.state.keys = [];
    proxy.state.next = "refuse409";
    const refused = await create("Refused first");
    assert.equal(refused.payload.ok, false, JSON.stringify(refused.payload));
    assert.match(JSON.stringify(refused.payload), /409/);
    const again = await create("Refused first");
    assert.equal(again.payload.ok, true, JSON.stringify(again.payload));
    assert.equal(proxy.state.keys.length, 2);
    assert.notEqual(proxy.state.keys[0], proxy.state.keys[1], "the backend decided: the next call is a new write");
    assert.equal((await titled("Refused first")).length, 1);
  });

  for (const [lost, how] of [
    ["the connection cut after the commit", "commitThenCut"],
    ["a 503 after the commit", "commitThen503"],
  ] as const) {
    it(`a create answered by ${lost}, then retried: the same key, one task`, async () => {
      const title = `Lost answer (${how})`;
      proxy.state.keys = [];
      proxy.state.next = how;
      const lostAnswer = await create(title);
      assert.equal(lostAnswer.payload.ok, false, JSON.stringify(lostAnswer.payload));
      const retried = await create(title);
      assert.equal(retried.payload.ok, true, JSON.stringify(retried.payload));
      assert.equal(proxy.state.keys.length, 2);
      assert.equal(proxy.state.keys[1], proxy.state.keys[0], "the retry of a write whose answer was lost keeps its key");
      const tasks = await titled(title);
      assert.equal(tasks.length, 1, "the backend answered the retry with the first task");
      assert.equal(taskId(retried), tasks[0]!.id);
      // Once the retry's answer came back, the key is retired: asked again, it is a new task.
      const third = await create(title);
      assert.equal(third.payload.ok, true, JSON.stringify(third.payload));
      assert.notEqual(proxy.state.keys[2], proxy.state.keys[0]);
      assert.equal((await titled(title)).length, 2);
    });
  }
});

describe("idempotency keys of the runtime", () => {
  it("one key per unanswered call and session while it is repeated within the window (sliding), a new one after it", () => {
    let now = 0;
    const keys = new IdempotencyKeys(1_000, () => now);
    const first = keys.keyFor("s1", "create_task", { title: "a", status: "todo" }).key;
    now = 900;
    assert.equal(keys.keyFor("s1", "create_task", { status: "todo", title: "a" }).key, first, "argument order does not matter");
    now = 1_800;
    assert.equal(keys.keyFor("s1", "create_task", { title: "a", status: "todo" }).key, first, "each repeat extends the window");
    assert.notEqual(keys.keyFor("s2", "create_task", { title: "a", status: "todo" }).key, first, "another session");
    assert.notEqual(keys.keyFor("s1", "create_task", { title: "b", status: "todo" }).key, first, "other arguments");
    now = 2_900;
    assert.notEqual(keys.keyFor("s1", "create_task", { title: "a", status: "todo" }).key, first, "after the window: a new write");
  });

  it("an answered write retires its key, and only its own", () => {
    const keys = new IdempotencyKeys(1_000, () => 0);
    const first = keys.keyFor("s1", "create_task", { title: "a" });
    first.answered();
    const second = keys.keyFor("s1", "create_task", { title: "a" });
    assert.notEqual(second.key, first.key, "answered: the same call again is a new write");
    first.answered(); // a late answer of the first write must not retire the second's key
    assert.equal(keys.keyFor("s1", "create_task", { title: "a" }).key, second.key, "the second, unanswered, keeps its key");
  });
});
