import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { callJson, connectStdioV1, ROOT, writePlugin } from "./helpers.js";
import { startTasksApi, type TasksApi } from "./tasks-api-helpers.js";
import { callV2, connectStdioV2, v2Client, V2_DOWNSTREAM_ARGS } from "./v2-helpers.js";

/**
 * A skill that catches the error of its write is still asked about, in both eras. To ask, the
 * runtime stops the run at its first write with a "waiting for the user" error; a skill that
 * caught it and threw an error of its own (createAndVerify did: "creating the task failed …:
 * waiting for the user to confirm 'create_task'") answered UPSTREAM_ERROR, nobody was asked and
 * nothing was created. Now the kit's helpers rethrow it untouched, and the runtime lets the
 * question win over a run that fails after asking (a third-party skill that wraps every error).
 *
 * Real processes: the SDK client (declaring form elicitation) against the built stdio server,
 * the bundled tasks plugin against the reference tasks API (examples/tasks-api/server.mjs), and
 * a plugin of the test's own over the v2 downstream fixture, which logs each write_row.
 */

type Decision = { action: "accept" | "decline" | "cancel"; content?: Record<string, boolean> };
type Call = (name: string, args: Record<string, unknown>) => Promise<{ payload: Record<string, unknown> & { error?: { code: string; message: string; hint: string; details?: Record<string, unknown> } }; isError: boolean }>;

const ACCEPT: Decision = { action: "accept", content: { confirm: true } };
const KEY = `tasks-key-${randomBytes(12).toString("hex")}`;
const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-skill-question-"));
const writes = path.join(dir, "writes.log");
const pluginsDir = path.join(dir, "plugins");

// The bundled tasks plugin as it ships (its skill uses the kit's createAndVerify)…
cpSync(path.join(ROOT, "plugins", "agent-tools-plugin-tasks"), path.join(pluginsDir, "agent-tools-plugin-tasks"), { recursive: true });
// …and a third-party skill that wraps whatever its write throws in an error of its own.
writePlugin(
  path.join(pluginsDir, "agent-tools-plugin-rows"),
  {
    name: "rows",
    prefix: "rows",
    description: "A table store whose skill wraps its write's errors.",
    adapter: { kind: "mcp", command: process.execPath, args: [...V2_DOWNSTREAM_ARGS], env: { V2_WRITE_LOG: writes }, timeoutMs: 30_000 },
  },
  {
    "skills/save-row.mjs": `export const meta = { description: "Save one row; any failure is said as the skill's own." };
export async function run(adapter, args) {
  try {
    await adapter.call("write_row", { table: "saved", value: args.value });
  } catch (error) {
    throw Object.assign(new Error("saving the row failed: " + error.message), { code: "UPSTREAM_ERROR" });
  }
  return { saved: args.value };
}
`,
  },
);

const written = (): string[] => {
  try {
    return readFileSync(writes, "utf8").trim().split("\n").filter(Boolean);
  } catch {
    return [];
  }
};

let api: TasksApi;
let env: Record<string, string>;
before(async () => {
  api = await startTasksApi(path.join(dir, "tasks.sqlite"), KEY);
  env = { AGENT_TOOLS_PLUGINS_DIR: pluginsDir, TASKS_API_BASE: api.url, TASKS_API_KEY: KEY };
});
after(async () => {
  await api?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The tasks whose title holds `text`, read with the plugin's read-only list_tasks (nobody is asked). */
async function tasksTitled(call: Call, text: string): Promise<Array<{ id: number; title: string }>> {
  const listed = await call("agent_tools_tasks_call", { toolName: "list_tasks", arguments: { text } });
  assert.equal(listed.isError, false, JSON.stringify(listed.payload));
  return (listed.payload as { result: { data: { tasks: Array<{ id: number; title: string }> } } }).result.data.tasks;
}

/**
 * The checks each era gets: insert-and-verify-task asks once and creates and verifies the task
 * once; declined, it answers CONFIRM_DECLINED and creates nothing; the wrapping skill asks once
 * and writes its row once.
 */
async function skillsAsk(call: Call, asked: string[], answer: { next: Decision }, label: string): Promise<void> {
  const title = `${label} verify me`;
  answer.next = ACCEPT;
  let before = asked.length;
  const done = await call("agent_tools_tasks_run_skill", { skill: "insert-and-verify-task", arguments: { title }, confirm: true });
  assert.equal(done.isError, false, `${label}: ${JSON.stringify(done.payload)}`);
  assert.equal(asked.length - before, 1, `${label}: the user was asked once`);
  assert.match(asked.at(-1) ?? "", /Allow plugin 'tasks' to run skill 'insert-and-verify-task'\? It changes data, first with 'create_task'/, label);
  const result = done.payload.result as { verified: boolean; id: number; task: { title: string } };
  assert.equal(result.verified, true, label);
  assert.equal(result.task.title, title, label);
  assert.deepEqual((await tasksTitled(call, title)).map((t) => [t.id, t.title]), [[result.id, title]], `${label}: created exactly once`);

  const declinedTitle = `${label} decline me`;
  answer.next = { action: "decline" };
  before = asked.length;
  const declined = await call("agent_tools_tasks_run_skill", { skill: "insert-and-verify-task", arguments: { title: declinedTitle }, confirm: true });
  assert.equal(declined.isError, true, label);
  assert.equal(asked.length - before, 1, `${label}: the user was asked once`);
  assert.equal(declined.payload.error?.code, "CONFIRM_DECLINED", `${label}: ${JSON.stringify(declined.payload)}`);
  assert.match(declined.payload.error?.message ?? "", /the agent's client declined skill 'insert-and-verify-task' of plugin 'tasks' when asked to confirm it; nothing was changed/, label);
  assert.match(declined.payload.error?.hint ?? "", /Do not retry/, label);
  assert.equal(declined.payload.error?.details?.decision, "decline", label);
  assert.deepEqual(await tasksTitled(call, declinedTitle), [], `${label}: a declined skill created nothing`);

  // A third-party skill's own error around the stop does not stand in for the question.
  answer.next = ACCEPT;
  before = asked.length;
  const rowsBefore = written().length;
  const saved = await call("agent_tools_rows_run_skill", { skill: "save-row", arguments: { value: `${label}-row` } });
  assert.equal(saved.isError, false, `${label}: ${JSON.stringify(saved.payload)}`);
  assert.deepEqual(saved.payload.result, { saved: `${label}-row` }, label);
  assert.equal(asked.length - before, 1, `${label}: the user was asked once`);
  assert.match(asked.at(-1) ?? "", /Allow plugin 'rows' to run skill 'save-row'\?/, label);
  assert.deepEqual(written().slice(rowsBefore), [JSON.stringify({ table: "saved", value: `${label}-row` })], `${label}: written exactly once`);
}

describe("a skill that catches its write's error is still asked about (client with form elicitation)", () => {
  it("2026-07-28 (v2 client pinned to the modern era): the question goes out as an input_required round", async () => {
    const asked: string[] = [];
    const answer: { next: Decision } = { next: ACCEPT };
    const client = v2Client("pin", { elicitation: { form: {} } });
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(request.params.message);
      return answer.next;
    });
    await connectStdioV2(client, env);
    try {
      await skillsAsk((name, args) => callV2(client, name, args), asked, answer, "modern");
    } finally {
      await client.close();
    }
  });

  it("2025-era (v1 client, as Codex): the question goes out as elicitation/create while the call waits", async () => {
    const asked: string[] = [];
    const answer: { next: Decision } = { next: ACCEPT };
    const client = new V1Client({ name: "legacy-asker", version: "0.0.0" }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return answer.next;
    });
    await connectStdioV1(client, env);
    try {
      await skillsAsk((name, args) => callJson(client, name, args), asked, answer, "legacy");
    } finally {
      await client.close();
    }
  });
});
