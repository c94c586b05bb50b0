import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { callJson, connect, connectStdioV1, FIXTURES, ROOT, writePlugin, type Connected, type Payload } from "./helpers.js";
import { callV2, connectStdioV2, v2Client } from "./v2-helpers.js";
import { until } from "./wait.js";

/** The bundled ccdd-gate plugin against the stdlib-only Python stand-in, through the facade. */

const PLUGIN = path.join(ROOT, "plugins", "agent-tools-plugin-ccdd-gate");
const SCRIPT = path.join(FIXTURES, "ccdd-gate", "server.py");
const env = { CCDD_GATE_SCRIPT: SCRIPT, CCDD_GATE_PYTHON: "python3" };

const CLEAN = [
  "def add(a: int, b: int) -> int:",
  "    return a + b",
  "",
].join("\n");

const MESSY = [
  "import os",
  "import requests",
  "def f(x, items=[]):",
  "    global counter",
  "    assert x",
  "    try:",
  "        if x == None:",
  "            os.system('ls')",
  "    except:",
  "        print(eval('1'))",
  "    return items",
  "",
].join("\n");

async function call(server: Connected, toolName: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return callJson(server.client, "agent_tools_ccdd_call", { toolName, arguments: args, ...extra });
}
// start-ephemeral-agent runs run_ephemeral_agent, which needs confirm; the read-only skills ignore it.
async function skill(server: Connected, name: string, args: Record<string, unknown>) {
  return callJson(server.client, "agent_tools_ccdd_run_skill", { skill: name, arguments: args, ...(name === "start-ephemeral-agent" ? { confirm: true } : {}) });
}
const result = (payload: Payload) => payload.result as Record<string, unknown>;

async function waitForJob(server: Connected, jobId: string): Promise<Record<string, unknown>> {
  let status: Record<string, unknown> = {};
  await until(async () => (status = result((await skill(server, "ephemeral-agent-status", { jobId })).payload)).state !== "running", `job ${jobId} to finish`, 60_000, 50);
  return status;
}

describe("ccdd-gate plugin", () => {
  let server: Connected;
  before(async () => {
    server = await connect(PLUGIN, env);
  });
  after(async () => server.close());

  it("discovers the nine checks as read-only and the three skills", async () => {
    const { payload } = await callJson(server.client, "agent_tools_ccdd_discover", { limit: 50 });
    const matches = payload.matches as Array<{ kind?: string; name: string; writes?: boolean }>;
    const tools = matches.filter((m) => m.kind === undefined).map((m) => m.name);
    for (const name of ["measure_complexity", "check_signature", "check_purity", "check_asserts", "check_bare_except", "check_mutable_defaults", "check_none_cmp", "scan_guardrails", "scan_dependencies", "run_ephemeral_agent"]) {
      assert.ok(tools.includes(name), `${name} is listed`);
    }
    for (const m of matches.filter((x) => x.kind === undefined && x.name !== "run_ephemeral_agent")) assert.equal(m.writes, undefined, `${m.name} needs no confirm`);
    assert.deepEqual(matches.filter((m) => m.kind === "skill").map((m) => m.name).sort(), ["ephemeral-agent-status", "quality-gate-check", "start-ephemeral-agent"]);
  });

  it("every check finds its problem in messy code and passes clean code", async () => {
    const expected: Record<string, RegExp> = {
      check_signature: /without a type annotation: x, items/,
      check_purity: /declares global counter/,
      check_asserts: /assert is stripped/,
      check_bare_except: /bare 'except:'/,
      check_mutable_defaults: /mutable default/,
      check_none_cmp: /use 'is None'/,
      scan_guardrails: /os\.system runs a shell/,
      scan_dependencies: /'requests', which is not in the allowed list/,
    };
    for (const [tool, pattern] of Object.entries(expected)) {
      const extra = tool === "scan_dependencies" ? { allowed: [] } : {};
      const messy = await call(server, tool, { code: MESSY, ...extra });
      assert.equal(messy.isError, false, `${tool}: ${JSON.stringify(messy.payload.error)}`);
      const report = result(messy.payload);
      assert.equal(report.passed, false, `${tool} fails messy code`);
      assert.match(JSON.stringify(report.findings), pattern, tool);
      const clean = await call(server, tool, { code: CLEAN, ...extra });
      assert.equal(result(clean.payload).passed, true, `${tool} passes clean code`);
    }
    const complexity = await call(server, "measure_complexity", { code: MESSY, max_complexity: 2 });
    const report = result(complexity.payload);
    assert.equal(report.passed, false);
    assert.deepEqual((report.functions as Array<{ name: string; complexity: number }>).map((f) => f.name), ["f"]);
    assert.ok((report.functions as Array<{ complexity: number }>)[0]!.complexity > 2);
    const deps = result((await call(server, "scan_dependencies", { code: MESSY })).payload);
    assert.deepEqual(deps.third_party, ["requests"]);
  });

  it("code that does not parse is an UPSTREAM_ERROR naming the line", async () => {
    const { payload, isError } = await call(server, "check_asserts", { code: "def f(:\n" });
    assert.equal(isError, true);
    assert.equal(payload.error?.code, "UPSTREAM_ERROR");
    assert.match(payload.error?.message ?? "", /does not parse.*line 1/);
  });

  it("quality-gate-check reports pass/fail per check", async () => {
    const { payload, isError } = await skill(server, "quality-gate-check", { code: MESSY });
    assert.equal(isError, false);
    const gate = result(payload);
    assert.equal(gate.passed, false);
    const checks = gate.checks as Array<{ check: string; status: string }>;
    assert.equal(checks.length, 9);
    assert.deepEqual(checks.filter((c) => c.status === "pass").map((c) => c.check), ["measure_complexity", "scan_dependencies"], "complexity under 10; no allowed list, so dependencies are only listed");
    const cleanGate = result((await skill(server, "quality-gate-check", { code: CLEAN })).payload);
    assert.equal(cleanGate.passed, true);
    assert.deepEqual(cleanGate.summary, { pass: 9, fail: 0, error: 0 });
  });

  it("quality-gate-check: a check that errors in the middle is reported and the others still run", async () => {
    const { payload } = await skill(server, "quality-gate-check", { code: CLEAN, options: { check_purity: { unknown_option: true }, check_signature: { max_params: 0 } } });
    const gate = result(payload);
    const checks = gate.checks as Array<{ check: string; status: string; error?: string }>;
    assert.equal(checks.length, 9);
    const failed = checks.find((c) => c.check === "check_signature");
    assert.equal(failed?.status, "error");
    assert.match(failed?.error ?? "", /max_params.*at least 1/);
    assert.equal(checks.indexOf(failed!), 1, "the second of nine");
    assert.deepEqual(gate.summary, { pass: 8, fail: 0, error: 1 });
    assert.equal(gate.passed, false, "an error is not a pass");
  });

  it("start-ephemeral-agent without confirm is refused at once, before any job starts", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_ccdd_run_skill", { skill: "start-ephemeral-agent", arguments: { task: "tidy" } });
    assert.equal(isError, true);
    assert.equal(payload.error?.code, "CONFIRM_REQUIRED");
    assert.match(payload.error?.message ?? "", /skill 'start-ephemeral-agent' calls 'run_ephemeral_agent', which changes data; it stopped before that step/);
    const listed = result((await skill(server, "ephemeral-agent-status", {})).payload) as { jobs: Array<{ id: string }> };
    assert.equal(listed.jobs.length, 0, "no job was started");
  });

  it("start-ephemeral-agent returns a job id at once; the job runs, succeeds, and is listed", async () => {
    const started = await skill(server, "start-ephemeral-agent", { task: "tidy the module", steps: 2, step_ms: 1500 });
    assert.equal(started.isError, false, JSON.stringify(started.payload.error));
    const { jobId, state } = result(started.payload) as { jobId: string; state: string };
    assert.match(jobId, /^job_/);
    assert.equal(state, "running");
    // The run takes 3 s; the status call right after the start lands well inside it.
    const early = result((await skill(server, "ephemeral-agent-status", { jobId })).payload);
    assert.equal(early.state, "running");
    assert.equal(early.kind, "run_ephemeral_agent");
    const done = await waitForJob(server, jobId);
    assert.equal(done.state, "succeeded");
    assert.ok(done.finishedAt);
    const answer = done.result as { summary: string; steps: string[] };
    assert.equal(answer.summary, "finished 'tidy the module' in 2 steps");
    assert.equal(answer.steps.length, 2);
    const listed = result((await skill(server, "ephemeral-agent-status", {})).payload) as { jobs: Array<{ id: string }> };
    assert.ok(listed.jobs.some((j) => j.id === jobId));
  });

  it("a failing agent run ends as a failed job with the server's message", async () => {
    const started = await skill(server, "start-ephemeral-agent", { task: "fail loudly", steps: 2, step_ms: 10 });
    const { jobId } = result(started.payload) as { jobId: string };
    const done = await waitForJob(server, jobId);
    assert.equal(done.state, "failed");
    const error = done.error as { code: string; message: string };
    assert.equal(error.code, "UPSTREAM_ERROR");
    assert.match(error.message, /gave up on 'fail loudly' after 2 steps/);
  });

  it("an unknown job id says why ids go missing", async () => {
    const { payload, isError } = await skill(server, "ephemeral-agent-status", { jobId: "job_nothere" });
    assert.equal(isError, true);
    assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.match(payload.error?.message ?? "", /memory only.*restart/);
  });

  it("run_ephemeral_agent called directly is not read-only and needs confirm (the checks need none)", async () => {
    const { payload } = await call(server, "run_ephemeral_agent", { task: "x", steps: 1, step_ms: 0 });
    assert.equal(payload.error?.code, "CONFIRM_REQUIRED");
    const confirmed = await call(server, "run_ephemeral_agent", { task: "x", steps: 1, step_ms: 0 }, { confirm: true });
    assert.equal(result(confirmed.payload).summary, "finished 'x' in 1 steps");
  });
});

describe("ccdd-gate plugin without its settings", () => {
  it("loads, help says to set CCDD_GATE_SCRIPT, calls answer NOT_CONFIGURED", async () => {
    const server = await connect(PLUGIN, {});
    try {
      const { payload } = await callJson(server.client, "agent_tools_help");
      const entry = (payload.plugins as Array<{ prefix: string; status: string }>).find((p) => p.prefix === "ccdd");
      assert.match(entry?.status ?? "", /not configured: set CCDD_GATE_SCRIPT/);
      const { payload: answer, isError } = await call(server, "check_asserts", { code: CLEAN });
      assert.equal(isError, true);
      assert.equal(answer.error?.code, "NOT_CONFIGURED");
      assert.deepEqual((answer.error?.details as { missing: string[] }).missing, ["CCDD_GATE_SCRIPT"]);
    } finally {
      await server.close();
    }
  });

  it("a CCDD_GATE_SCRIPT that does not exist: the error quotes the path (a path is no secret) and the hint names the variable", async () => {
    const missing = path.join(FIXTURES, "ccdd-gate", "no-such-server.py");
    const server = await connect(PLUGIN, { CCDD_GATE_SCRIPT: missing, CCDD_GATE_PYTHON: "python3" });
    try {
      const { payload, isError } = await call(server, "check_asserts", { code: CLEAN });
      assert.equal(isError, true);
      assert.ok(payload.error?.message.includes(`can't open file '${missing}'`), payload.error?.message);
      assert.match(payload.error?.hint ?? "", /CCDD_GATE_SCRIPT in the server's environment/);
      assert.doesNotMatch(payload.error?.hint ?? "", /adapter\.args/);
    } finally {
      await server.close();
    }
  });

  it("a list that a variable sets one entry of is not credited to it: the hint names adapter.args, not the variable", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-args-credit-"));
    const missing = path.join(dir, "no-such-server.mjs");
    writePlugin(path.join(dir, "agent-tools-plugin-argsmix"), {
      name: "argsmix",
      prefix: "argsmix",
      description: "A stdio server whose program is misspelt; one argument is a token.",
      adapter: { kind: "mcp", command: process.execPath, args: [missing, "--token", "${PROBE_TOKEN}"], timeoutMs: 30_000 },
    });
    const server = await connect(path.join(dir, "agent-tools-plugin-argsmix"), { PROBE_TOKEN: "probe-token-value-5521" });
    try {
      const { payload, isError } = await callJson(server.client, "agent_tools_argsmix_call", { toolName: "anything", arguments: {} });
      assert.equal(isError, true);
      const hint = payload.error?.hint ?? "";
      assert.match(hint, /adapter\.args/, hint);
      assert.doesNotMatch(hint, /PROBE_TOKEN/, hint);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a CCDD_GATE_PYTHON that does not exist is named in help", async () => {
    const server = await connect(PLUGIN, { CCDD_GATE_SCRIPT: SCRIPT, CCDD_GATE_PYTHON: "/nonexistent/python9" });
    try {
      const { payload } = await callJson(server.client, "agent_tools_help");
      const entry = (payload.plugins as Array<{ prefix: string; status: string }>).find((p) => p.prefix === "ccdd");
      assert.equal(entry?.status, "not configured: CCDD_GATE_PYTHON is set, but the program it names does not exist; set CCDD_GATE_PYTHON to the python3 program or unset it to use python3 from PATH");
      const { payload: answer } = await skill(server, "quality-gate-check", { code: CLEAN });
      assert.equal(answer.error?.code, "NOT_CONFIGURED");
      assert.deepEqual(answer.error?.details, { missing: ["CCDD_GATE_PYTHON"], bins: ["python3"] }, "by name, not the manifest's ${CCDD_GATE_PYTHON:-python3}");
    } finally {
      await server.close();
    }
  });
});

/**
 * A client that asks its user (the default `elicit` policy): the background write is put to the
 * user while start-ephemeral-agent's own call is open, in both eras, and the job runs only on a
 * yes. Before, the skill refused without the model's confirm and its job, run after the call had
 * returned, failed "waiting for the user to confirm" without anyone being asked.
 */
describe("ccdd-gate start-ephemeral-agent asks the user before its job starts", () => {
  type Decision = { action: "accept" | "decline"; content?: Record<string, boolean> };
  type Call = (name: string, args: Record<string, unknown>) => Promise<{ payload: Payload; isError: boolean }>;
  const ACCEPT: Decision = { action: "accept", content: { confirm: true } };

  async function asksOnceAndRunsOnYes(call: Call, asked: string[], answer: { next: Decision }, label: string): Promise<void> {
    answer.next = ACCEPT;
    const started = await call("agent_tools_ccdd_run_skill", { skill: "start-ephemeral-agent", arguments: { task: `${label} yes`, steps: 1, step_ms: 10 } });
    assert.equal(started.isError, false, `${label}: ${JSON.stringify(started.payload)}`);
    assert.equal(asked.length, 1, `${label}: asked once, before the job started`);
    assert.match(asked[0] ?? "", /run skill 'start-ephemeral-agent'[\s\S]*'run_ephemeral_agent'[\s\S]*yes/, label);
    const { jobId } = result(started.payload) as { jobId: string };
    let status: Record<string, unknown> = {};
    await until(
      async () => (status = result((await call("agent_tools_ccdd_run_skill", { skill: "ephemeral-agent-status", arguments: { jobId } })).payload)).state !== "running",
      `${label}: job ${jobId} to finish`,
      60_000,
      50,
    );
    assert.equal(status.state, "succeeded", `${label}: ${JSON.stringify(status)}`);
    assert.equal((status.result as { summary: string }).summary, `finished '${label} yes' in 1 steps`);
    assert.equal(asked.length, 1, `${label}: the job itself asked nothing more`);

    answer.next = { action: "decline" };
    const declined = await call("agent_tools_ccdd_run_skill", { skill: "start-ephemeral-agent", arguments: { task: `${label} no`, steps: 1, step_ms: 10 }, confirm: true });
    assert.equal(declined.isError, true, label);
    assert.equal(declined.payload.error?.code, "CONFIRM_DECLINED", `${label}: ${JSON.stringify(declined.payload)}`);
    assert.match(declined.payload.error?.message ?? "", /the agent's client declined skill 'start-ephemeral-agent' of plugin 'ccdd'/);
    assert.equal(asked.length, 2, `${label}: the model's confirm: true did not replace the question`);
    const listed = result((await call("agent_tools_ccdd_run_skill", { skill: "ephemeral-agent-status", arguments: {} })).payload) as { jobs: Array<{ id: string }> };
    assert.deepEqual(listed.jobs.map((j) => j.id), [jobId], `${label}: no job started on the decline`);
  }

  it("modern (pinned v2 client with form elicitation): asked through input_required", async () => {
    const asked: string[] = [];
    const answer = { next: ACCEPT };
    const client = v2Client("pin", { elicitation: { form: {} } });
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(request.params.message);
      return answer.next;
    });
    await connectStdioV2(client, { AGENT_TOOLS_PLUGINS_DIR: PLUGIN, ...env });
    try {
      await asksOnceAndRunsOnYes((name, args) => callV2(client, name, args), asked, answer, "modern");
    } finally {
      await client.close();
    }
  });

  it("legacy (v1 SDK client declaring elicitation): asked through elicitation/create", async () => {
    const asked: string[] = [];
    const answer = { next: ACCEPT };
    const client = new V1Client({ name: "legacy-asker", version: "0.0.0" }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return answer.next;
    });
    await connectStdioV1(client, { AGENT_TOOLS_PLUGINS_DIR: PLUGIN, ...env });
    try {
      await asksOnceAndRunsOnYes((name, args) => callJson(client, name, args), asked, answer, "legacy");
    } finally {
      await client.close();
    }
  });
});
