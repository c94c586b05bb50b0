import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { callJson, connect, ROOT, type Connected, type Payload } from "./helpers.js";
import { startProxy as startProxyTo, startTasksApi as startTasksApiWithKey, type TasksProxy, type TasksApi } from "./tasks-api-helpers.js";

/**
 * The bundled tasks plugin end to end: the SDK client over stdio → the facade → the rest adapter
 * → the reference tasks API (examples/tasks-api/server.mjs) running as its own process with a
 * SQLite file. A small pass-through proxy between them can make one read fail or alter it, to
 * show the skill reports what went wrong.
 */

const PLUGIN = path.join(ROOT, "plugins", "agent-tools-plugin-tasks");
const KEY = `tasks-key-${randomBytes(12).toString("hex")}`;
const startTasksApi = (dbFile: string) => startTasksApiWithKey(dbFile, KEY);

/** What the proxy does to the next matching request. */
type Fault = { kind: "fail"; method: string; path: RegExp; status: number } | { kind: "alter"; method: string; path: RegExp; change: (body: Record<string, unknown>) => void };

/** The tasks API behind a proxy that applies each fault pushed onto `faults` to the next matching request. */
async function startProxy(target: () => string): Promise<TasksProxy & { faults: Fault[] }> {
  const faults: Fault[] = [];
  const pending = new WeakMap<IncomingMessage, Fault>();
  const proxy = await startProxyTo(target, {
    request(req, res) {
      const pathOnly = (req.url ?? "/").split("?")[0]!;
      const at = faults.findIndex((f) => f.method === req.method && f.path.test(pathOnly));
      const fault = at >= 0 ? faults.splice(at, 1)[0] : undefined;
      if (fault?.kind !== "fail") {
        if (fault) pending.set(req, fault);
        return false;
      }
      res.writeHead(fault.status, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: "internal", message: "internal server error" } }));
      return true;
    },
    answer(req, res, upstream, raw) {
      const fault = pending.get(req);
      let body = raw.toString("utf8");
      if (fault?.kind === "alter") {
        const parsed = JSON.parse(body) as Record<string, unknown>;
        fault.change(parsed);
        body = JSON.stringify(parsed);
      }
      res.writeHead(upstream.statusCode ?? 502, { "content-type": upstream.headers["content-type"] ?? "application/json" });
      res.end(body);
      return true;
    },
  });
  return { ...proxy, faults };
}

const call = (c: Connected, toolName: string, args: Record<string, unknown>, confirm?: boolean) =>
  callJson(c.client, "agent_tools_tasks_call", { toolName, arguments: args, ...(confirm === undefined ? {} : { confirm }) });
// The skill creates a task, so it runs under the same confirm gate as create_task.
const skill = (c: Connected, args: Record<string, unknown>, confirm = true) =>
  callJson(c.client, "agent_tools_tasks_run_skill", { skill: "insert-and-verify-task", arguments: args, ...(confirm ? { confirm } : {}) });
const resultOf = (p: Payload) => p.result as { status: number; data: Record<string, unknown> };
/** get_task, create_task and update_task answer `{task}` (the original tasks plugin's contract). */
const taskIn = (p: Payload) => (resultOf(p).data as { task: Record<string, unknown> }).task;

describe("tasks plugin against the reference tasks API", () => {
  let dir: string;
  let dbFile: string;
  let api: TasksApi;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let agent: Connected;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "tasks-api-"));
    dbFile = path.join(dir, "data", "tasks.sqlite");
    api = await startTasksApi(dbFile);
    proxy = await startProxy(() => api.url);
    agent = await connect(PLUGIN, { TASKS_API_BASE: proxy.url, TASKS_API_KEY: KEY, AGENT_TOOLS_LOG: "debug" });
  });
  after(async () => {
    await agent?.close();
    await proxy?.close();
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("is listed as ready, and discover shows the five tools and the skill", async () => {
    const { payload: help } = await callJson(agent.client, "agent_tools_help");
    assert.match(JSON.stringify(help), /"prefix":"tasks"/);
    assert.match(JSON.stringify(help), /"status":"(ready|configured, not checked)"/);
    const { payload } = await callJson(agent.client, "agent_tools_tasks_discover", { limit: 50 });
    const names = (payload.matches as { name: string }[]).map((m) => m.name).sort();
    assert.deepEqual(names, ["create_task", "delete_task", "get_task", "insert-and-verify-task", "list_tasks", "update_task"]);
  });

  it("create, get, list with a text filter, update, delete; the mutating ones need confirm", async () => {
    const refused = await call(agent, "create_task", { title: "Buy milk" });
    assert.equal(refused.isError, true);
    assert.equal(refused.payload.error?.code, "CONFIRM_REQUIRED");
    const none = await call(agent, "list_tasks", { text: "milk" });
    assert.equal(resultOf(none.payload).data.count, 0, "nothing was created by the refused call");

    const created = await call(agent, "create_task", { title: "Buy milk", description: "2 litres, semi-skimmed", due: "2026-12-24" }, true);
    assert.equal(created.isError, false, JSON.stringify(created.payload));
    const task = taskIn(created.payload);
    assert.equal(resultOf(created.payload).status, 201);
    assert.equal(task.status, "todo");
    assert.equal(task.done, false);
    assert.equal(typeof task.id, "number");
    await call(agent, "create_task", { title: "Call the plumber", status: "doing" }, true);

    const got = await call(agent, "get_task", { id: task.id });
    assert.deepEqual(taskIn(got.payload), task);

    const listed = resultOf((await call(agent, "list_tasks", { text: "MILK" })).payload).data as { tasks: { title: string }[]; count: number };
    assert.deepEqual(listed.tasks.map((t) => t.title), ["Buy milk"], "the text filter is case-insensitive and matches only that task");
    const doing = resultOf((await call(agent, "list_tasks", { status: "doing" })).payload).data as { tasks: { title: string }[] };
    assert.deepEqual(doing.tasks.map((t) => t.title), ["Call the plumber"]);

    assert.equal((await call(agent, "update_task", { id: task.id, status: "done" })).payload.error?.code, "CONFIRM_REQUIRED");
    const updated = await call(agent, "update_task", { id: task.id, status: "done", due: null }, true);
    assert.equal(taskIn(updated.payload).status, "done");
    assert.equal(taskIn(updated.payload).done, true);
    assert.equal(taskIn(updated.payload).due, null);
    assert.equal(taskIn(updated.payload).title, "Buy milk", "fields not sent stay as they were");

    assert.equal((await call(agent, "delete_task", { id: task.id })).payload.error?.code, "CONFIRM_REQUIRED");
    assert.equal(resultOf((await call(agent, "get_task", { id: task.id })).payload).status, 200, "the refused delete left it in place");
    const deleted = await call(agent, "delete_task", { id: task.id }, true);
    assert.equal((resultOf(deleted.payload).data as { deleted: boolean }).deleted, true);
    const gone = await call(agent, "get_task", { id: task.id });
    assert.equal(gone.isError, true);
    assert.equal(gone.payload.error?.code, "UPSTREAM_ERROR");
    assert.match(gone.payload.error?.message ?? "", /HTTP 404: .*task \d+ does not exist/);
  });

  it("the API's validation errors come back naming the field", async () => {
    const badDate = await call(agent, "create_task", { title: "Taxes", due: "2026-02-30" }, true);
    assert.equal(badDate.isError, true);
    assert.match(badDate.payload.error?.message ?? "", /HTTP 422: .*field 'due' must be a date YYYY-MM-DD/);
    // The facade's own schema check catches a wrong status before the API is asked.
    const badStatus = await call(agent, "create_task", { title: "Taxes", status: "later" }, true);
    assert.equal(badStatus.payload.error?.code, "ARG_VALIDATION_FAILED");
  });

  it("insert-and-verify-task without confirm is refused before anything is created", async () => {
    const before = resultOf((await call(agent, "list_tasks", {})).payload);
    const refused = await skill(agent, { title: "never created" }, false);
    assert.equal(refused.isError, true);
    assert.equal(refused.payload.error?.code, "CONFIRM_REQUIRED");
    assert.match(refused.payload.error?.message ?? "", /skill 'insert-and-verify-task' calls 'create_task'/);
    // The refused step's tool where a skill's refusal names it (details.tool), not nested under the create's details.
    assert.equal(refused.payload.error?.details?.tool, "create_task");
    assert.equal(refused.payload.error?.details?.upstream, undefined);
    const after = resultOf((await call(agent, "list_tasks", {})).payload);
    assert.deepEqual(after.data, before.data, "nothing was written");
  });

  it("insert-and-verify-task: created, read back, every field matches", async () => {
    const { payload, isError } = await skill(agent, { title: "Renew passport", description: "before March", status: "doing", due: "2027-01-15" });
    assert.equal(isError, false, JSON.stringify(payload));
    const report = payload.result as { verified: boolean; id: number; checks: { field: string; match: boolean }[]; task: { title: string } };
    assert.equal(report.verified, true);
    assert.ok(report.checks.every((c) => c.match));
    assert.deepEqual(report.checks.map((c) => c.field), ["title", "description", "status", "due"]);
    assert.equal(report.task.title, "Renew passport");
    const stored = taskIn((await call(agent, "get_task", { id: report.id })).payload);
    assert.equal(stored.due, "2027-01-15");
  });

  it("a title that quotes the API's own address is stored, listed and verified as written", async () => {
    // TASKS_API_BASE is an address, not a credential: masking it would corrupt the title.
    const title = `check ${proxy.url}/health is up`;
    const { payload, isError } = await skill(agent, { title });
    assert.equal(isError, false, JSON.stringify(payload));
    assert.equal((payload.result as { verified: boolean }).verified, true);
    const listed = resultOf((await call(agent, "list_tasks", { text: "health is up" })).payload).data as { tasks: { title: string }[] };
    assert.deepEqual(listed.tasks.map((t) => t.title), [title]);
  });

  it("insert-and-verify-task: a read-back answering 500 is an error naming the new id, not hidden", async () => {
    proxy.faults.push({ kind: "fail", method: "GET", path: /^\/tasks\/\d+$/, status: 500 });
    const { payload, isError } = await skill(agent, { title: "Water the plants" });
    assert.equal(isError, true);
    assert.equal(payload.error?.code, "UPSTREAM_ERROR");
    assert.match(payload.error?.message ?? "", /task \d+ was created, but reading it back failed: .*HTTP 500/);
    assert.match(payload.error?.hint ?? "", /exists with id \d+/);
    const details = payload.error?.details as { stage: string; id: number };
    assert.equal(details.stage, "read-back");
    const stored = taskIn((await call(agent, "get_task", { id: details.id })).payload);
    assert.equal(stored.title, "Water the plants", "the task exists; the report said which one");
  });

  it("insert-and-verify-task: a read-back that differs is a mismatch naming the field", async () => {
    proxy.faults.push({ kind: "alter", method: "GET", path: /^\/tasks\/\d+$/, change: (body) => void ((body.task as Record<string, unknown>).title = "Water the plans") });
    const { payload, isError } = await skill(agent, { title: "Water the garden" });
    assert.equal(isError, true);
    assert.match(payload.error?.message ?? "", /task \d+ was created, but what was stored differs from what was sent: title \(sent "Water the garden", stored "Water the plans"\)/);
    const details = payload.error?.details as { stage: string; checks: { field: string; expected: unknown; stored: unknown; match: boolean }[] };
    assert.equal(details.stage, "compare");
    assert.deepEqual(details.checks.find((c) => c.field === "title"), { field: "title", expected: "Water the garden", stored: "Water the plans", present: true, match: false });
  });

  it("a failed create is an error of the skill (nothing to verify); a 5xx may have taken effect, so the hint says to look first", async () => {
    proxy.faults.push({ kind: "fail", method: "POST", path: /^\/tasks$/, status: 500 });
    const { payload, isError } = await skill(agent, { title: "Never stored" });
    assert.equal(isError, true);
    assert.match(payload.error?.message ?? "", /creating the task failed, so there is nothing to verify: .*HTTP 500/);
    assert.match(payload.error?.hint ?? "", /may have taken effect.*look at the data first/);
    assert.deepEqual(payload.error?.details?.writesSent, ["create_task"]);
  });

  it("a create the API refuses (HTTP 422) says nothing was created and to fix the argument, not to look at the data first", async () => {
    const before = resultOf((await call(agent, "list_tasks", {})).payload).data;
    const { payload, isError } = await skill(agent, { title: "Impossible date", due: "2026-02-30" });
    assert.equal(isError, true);
    assert.equal(payload.error?.code, "UPSTREAM_ERROR");
    assert.match(payload.error?.message ?? "", /creating the task failed, so there is nothing to verify: .*HTTP 422: .*field 'due' must be a date/);
    assert.match(payload.error?.hint ?? "", /^The service refused to create the task \(HTTP 422\), so nothing was created\. Fix what `message` names/);
    assert.doesNotMatch(payload.error?.hint ?? "", /may have taken effect|look at the data first/);
    assert.equal(payload.error?.details?.stage, "create");
    assert.equal(payload.error?.details?.status, 422);
    assert.deepEqual(resultOf((await call(agent, "list_tasks", {})).payload).data, before, "nothing was created");
  });

  it("the data survives a restart of the API: the SQLite file was written after each change", async () => {
    const before = resultOf((await call(agent, "list_tasks", {})).payload).data as { tasks: unknown[] };
    assert.ok(before.tasks.length >= 4);
    await api.stop();
    assert.ok(existsSync(dbFile));
    assert.deepEqual(readdirSync(path.dirname(dbFile)).filter((n) => n.endsWith(".tmp")), [], "no temporary file left behind");
    api = await startTasksApi(dbFile); // a new process on a new port, the same file
    const afterRestart = resultOf((await call(agent, "list_tasks", {})).payload).data as { tasks: unknown[] };
    assert.deepEqual(afterRestart.tasks, before.tasks);
  });

  it("never shows the API key: not in results, errors, or the server's stderr", async () => {
    await call(agent, "get_task", { id: 999999 });
    assert.match(agent.stderr(), /rest: GET \/tasks/, "the debug log was on, so there was something to leak into");
    assert.ok(!agent.stderr().includes(KEY), "stderr holds the key");
    const { payload } = await call(agent, "list_tasks", {});
    assert.ok(!JSON.stringify(payload).includes(KEY));
  });
});

describe("tasks plugin: configuration problems", () => {
  it("not configured: loads, help says what to set, a call answers NOT_CONFIGURED", async () => {
    const agent = await connect(PLUGIN, { TASKS_API_BASE: "", TASKS_API_KEY: "" });
    try {
      const { payload: help } = await callJson(agent.client, "agent_tools_help");
      assert.match(JSON.stringify(help), /not configured: set TASKS_API_BASE, TASKS_API_KEY/);
      const { payload, isError } = await call(agent, "list_tasks", {});
      assert.equal(isError, true);
      assert.equal(payload.error?.code, "NOT_CONFIGURED");
      assert.deepEqual((payload.error?.details as { missing: string[] }).missing, ["TASKS_API_BASE", "TASKS_API_KEY"]);
      const ran = await skill(agent, { title: "x" });
      assert.equal(ran.payload.error?.code, "NOT_CONFIGURED");
    } finally {
      await agent.close();
    }
  });

  it("a wrong key is a clear 401 that shows neither key", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tasks-api-"));
    const api = await startTasksApi(path.join(dir, "t.sqlite"));
    const wrong = `wrong-${randomBytes(8).toString("hex")}`;
    const agent = await connect(PLUGIN, { TASKS_API_BASE: api.url, TASKS_API_KEY: wrong });
    try {
      const { payload, isError } = await call(agent, "list_tasks", {});
      assert.equal(isError, true);
      assert.equal(payload.error?.code, "UPSTREAM_ERROR");
      assert.match(payload.error?.message ?? "", /GET \/tasks answered HTTP 401: .*missing or wrong x-api-key header/);
      // The fix is the server's environment, named: not the generic "fix the arguments" hint.
      assert.match(payload.error?.hint ?? "", /TASKS_API_KEY, which this plugin's auth reads/);
      const everything = JSON.stringify(payload) + agent.stderr() + api.stderr();
      assert.ok(!everything.includes(wrong) && !everything.includes(KEY));
    } finally {
      await agent.close();
      await api.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
