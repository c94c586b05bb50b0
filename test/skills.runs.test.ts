import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { callJson, connect, writePlugin, type Connected } from "./helpers.js";

/**
 * Running skills, and what becomes of their results, over stdio with the built server: a skill
 * that outlives its deadline sends nothing more, 0.2.7 skills that check `args.confirm`
 * themselves can be confirmed, and results that cannot become JSON (or are malformed) get
 * errors that name the skill or tool, what is wrong, where, and the fix.
 */

const DEADLINE_MS = 1500;
/** A credential in the server's environment (masked by its name): a skill returns it as bytes. */
const TOKEN = "runsSECRETtoken0123456789abcdefXYZ";

const ADAPTER = `
let writes = 0;
export default function createAdapter(options) {
  return {
    async listTools() {
      const names = ["write_b", "count", "ret_bigint", "malformed", "bare_error"];
      return { tools: names.map((name) => ({ name, description: "tool " + name, inputSchema: { type: "object" } })) };
    },
    async call(name, args) {
      switch (name) {
        case "write_b": writes++; options.log.info("WRITE_B #" + writes); return { wrote: writes };
        case "count": return { writes };
        case "ret_bigint": return { n: 10n };
        case "malformed": return { content: [{ type: "text", text: "a" }, null, 5] };
        case "bare_error": return { isError: true };
        default: throw new Error("no tool " + name);
      }
    },
  };
}
`;

const sleep = "const sleep = (ms) => new Promise((r) => setTimeout(r, ms));";

const SKILLS: Record<string, string> = {
  // Ignores its signal, and asks for a write after the deadline.
  "skills/late-write.mjs": `${sleep}\nexport const meta = { description: "sleeps past the deadline, then writes" };\nexport async function run(adapter) { await sleep(${DEADLINE_MS * 2}); return adapter.call("write_b", { late: true }); }`,
  // Writes first, then runs past the deadline.
  "skills/write-then-hang.mjs": `export const meta = { description: "writes, then never ends" };\nexport async function run(adapter) { await adapter.call("count", {}); await adapter.call("write_b", {}); return new Promise(() => {}); }`,
  // 0.2.7 skills that check args.confirm themselves: no meta.args, and a sentence that does not say "confirm".
  "skills/add-one.mjs": `export const meta = { description: "Add one item." };\nexport async function run(adapter, args) { if (!args.confirm) return { isError: true, error: "add-one changes data: pass confirm: true" }; await adapter.call("write_b", {}); return { added: 1 }; }`,
  "skills/add-many.mjs": `export const meta = { description: "Add several.", args: "names: list of item names" };\nexport async function run(adapter, args) { if (args.confirm !== true) return { isError: true, error: "add-many changes data: pass confirm: true" }; for (const _ of args.names ?? []) await adapter.call("write_b", {}); return { added: args.names }; }`,
  // 0.2.7's background-job skills: the write is started and not awaited; the skill answers at once.
  "skills/fire-and-forget.mjs": `export const meta = { description: "starts a write it does not wait for" };\nexport async function run(adapter) { const running = adapter.call("write_b", { background: true }); running.catch(() => {}); return { started: true }; }`,
  "skills/ret-bigint.mjs": `export const meta = { description: "returns a BigInt" };\nexport async function run() { return { total: { n: 12345678901234567890n } }; }`,
  "skills/ret-cycle.mjs": `export const meta = { description: "returns a cycle" };\nexport async function run() { const o = { a: 1, child: {} }; o.child.parent = o; return o; }`,
  "skills/ret-tojson-throws.mjs": `export const meta = { description: "toJSON throws" };\nexport async function run() { return { x: { toJSON() { throw new Error("toJSON boom"); } } }; }`,
  "skills/ret-getter-throws.mjs": `export const meta = { description: "a getter throws" };\nexport async function run() { return { get x() { throw new Error("getter boom"); } }; }`,
  "skills/ret-proxy.mjs": `export const meta = { description: "a Proxy whose fields cannot be listed" };\nexport async function run() { return new Proxy({}, { ownKeys() { throw new Error("proxy boom"); } }); }`,
  "skills/ret-deep.mjs": `export const meta = { description: "20,000 levels deep" };\nexport async function run() { const root = {}; let o = root; for (let i = 0; i < 20000; i++) { o.c = {}; o = o.c; } return root; }`,
  "skills/ret-function.mjs": `export const meta = { description: "returns a function" };\nexport async function run() { return () => 1; }`,
  "skills/ret-symbol.mjs": `export const meta = { description: "returns a Symbol" };\nexport async function run() { return Symbol("s"); }`,
  "skills/ret-nothing.mjs": `export const meta = { description: "returns undefined" };\nexport async function run() {}`,
  "skills/ret-bytes.mjs": `export const meta = { description: "returns the token as bytes" };\nexport async function run() { const t = process.env.RUNS_API_TOKEN; return { buffer: Buffer.from(t), typed: new Uint16Array([1, 2]), raw: new TextEncoder().encode(t).buffer, view: new DataView(new ArrayBuffer(3)), text: "ok" }; }`,
  "skills/throw-getter-message.mjs": `export const meta = { description: "throws an object whose message getter throws" };\nexport async function run() { const e = {}; Object.defineProperty(e, "message", { get() { throw new Error("getter boom"); } }); throw e; }`,
  "skills/throw-odd-details.mjs": `import { skillError } from "agent-tools-runtime/plugin";\nexport const meta = { description: "throws errors whose details cannot become JSON", args: { kind: "which" } };\nexport async function run(adapter, args) {\n  const cyclic = { name: "c" }; cyclic.self = cyclic;\n  if (args.kind === "kit") throw skillError("ARG_VALIDATION_FAILED", "bad arg", { hint: "fix it", details: { n: 2n, kept: "yes" } });\n  if (args.kind === "write") { await adapter.call("write_b", {}); const e = new Error("half way"); e.code = "UPSTREAM_ERROR"; e.details = { count: 3n }; throw e; }\n  const e = new Error("odd details"); e.code = "UPSTREAM_ERROR"; e.details = { n: 10n, cyclic, bytes: Buffer.from(process.env.RUNS_API_TOKEN), kept: "yes" }; throw e;\n}`,
  "skills/answer-odd-error.mjs": `export const meta = { description: "answers isError with a BigInt and a cycle" };\nexport async function run() { const o = { isError: true, message: "it failed", n: 1n }; o.o = o; return o; }`,
  "skills/schema-args.mjs": `export const meta = { description: "arguments as a JSON Schema", args: { type: "object", properties: { kind: { type: "string" }, n: { type: "integer" } }, required: ["kind"] } };\nexport async function run(adapter, args) { return args; }`,
  "skills/start-bigint-job.mjs": `export const meta = { description: "starts a job whose result is a BigInt" };\nexport async function run(adapter, args, context) { return { id: await context.jobs.start(async () => ({ n: 1n }), { kind: "big" }) }; }`,
  "skills/job-status.mjs": `export const meta = { description: "a job's status", args: { id: "the job id" } };\nexport async function run(adapter, args, context) { return context.jobs.status(args.id); }`,
};

let dir: string;
let conn: Connected;

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-skill-runs-"));
  writePlugin(path.join(dir, "agent-tools-plugin-runs"), { name: "runs", prefix: "runs", adapter: "./adapter.mjs", readonlyTools: ["count", "ret_bigint", "malformed", "bare_error"] }, { "adapter.mjs": ADAPTER, ...SKILLS });
  conn = await connect(dir, { AGENT_TOOLS_CALL_TIMEOUT_MS: String(DEADLINE_MS), RUNS_API_TOKEN: TOKEN });
});
after(async () => {
  await conn?.close();
  rmSync(dir, { recursive: true, force: true });
});

const writes = async (): Promise<number> => ((await callJson(conn.client, "agent_tools_runs_call", { toolName: "count", arguments: {} })).payload.result as { writes: number }).writes;

async function waitFor(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

type ErrorPayload = { code: string; message: string; hint: string; details?: Record<string, unknown> };
const errorOf = (payload: Record<string, unknown>): ErrorPayload => payload.error as ErrorPayload;

describe("a skill run the runtime stopped sends nothing more", () => {
  it("a step asked for after the deadline is refused (the write never happens), and the hint says no write was sent", async () => {
    const before = await writes();
    const { payload, isError } = await callJson(conn.client, "agent_tools_runs_run_skill", { skill: "late-write", arguments: {}, confirm: true });
    assert.equal(isError, true);
    const error = errorOf(payload);
    assert.equal(error.code, "UPSTREAM_TIMEOUT");
    assert.match(error.hint, /stopped before it sent any step that changes data/);
    assert.match(error.hint, /Nothing more of it is sent after the stop/);
    assert.deepEqual(error.details?.writesSent, []);
    // The skill wakes after the deadline and asks for its write: the gate refuses it, and says so in the log.
    await waitFor(() => /runs:late-write asked for step 'write_b' after its run was stopped; it was not sent/.test(conn.stderr()), "the refused late step");
    assert.equal(await writes(), before, "no write after the answer");
    assert.doesNotMatch(conn.stderr(), /WRITE_B .*late/);
  });

  it("a skill that wrote before the deadline: the hint names the write and says to look before running it again, not to retry", async () => {
    const { payload } = await callJson(conn.client, "agent_tools_runs_run_skill", { skill: "write-then-hang", arguments: {}, confirm: true });
    const error = errorOf(payload);
    assert.equal(error.code, "UPSTREAM_TIMEOUT");
    assert.deepEqual(error.details?.writesSent, ["write_b"]);
    assert.equal(error.details?.stepsSent, 2);
    assert.match(error.hint, /had already sent steps that change data \('write_b'\)/);
    assert.match(error.hint, /Do not simply run it again: look at the data first/);
    assert.doesNotMatch(error.hint, /Retry once/);
  });
});

describe("0.2.7 skills that check args.confirm themselves", () => {
  for (const [skill, args] of [["add-one", {}], ["add-many", { names: ["x", "y"] }]] as const) {
    it(`${skill}: confirm beside 'arguments' reaches args.confirm, and confirm inside them counts as the run's confirm`, async () => {
      const top = await callJson(conn.client, "agent_tools_runs_run_skill", { skill, arguments: args, confirm: true });
      assert.equal(top.isError, false, JSON.stringify(top.payload));
      const inside = await callJson(conn.client, "agent_tools_runs_run_skill", { skill, arguments: { ...args, confirm: true } });
      assert.equal(inside.isError, false, JSON.stringify(inside.payload));
      assert.match((inside.payload.repairs ?? []).join(" "), /'confirm' was inside 'arguments'; it was read as the run's confirm \(this skill has no schema/);
      // Without confirm the skill's own refusal stands, said once (no doubled "skill … failed:").
      const without = await callJson(conn.client, "agent_tools_runs_run_skill", { skill, arguments: args });
      assert.equal(without.isError, true);
      assert.equal(errorOf(without.payload).message, `skill 'runs:${skill}' failed: ${skill} changes data: pass confirm: true`);
    });
  }
});

describe("a step the skill started and did not wait for", () => {
  it("is decided before the run answers: unconfirmed, the run answers CONFIRM_REQUIRED and nothing is written; confirmed, the write is made", async () => {
    const before = await writes();
    const refused = await callJson(conn.client, "agent_tools_runs_run_skill", { skill: "fire-and-forget", arguments: {} });
    assert.equal(refused.isError, true, JSON.stringify(refused.payload));
    assert.equal(errorOf(refused.payload).code, "CONFIRM_REQUIRED");
    assert.deepEqual(errorOf(refused.payload).details?.skillResult, { started: true });
    assert.equal(await writes(), before, "the refused write was not made");
    const confirmed = await callJson(conn.client, "agent_tools_runs_run_skill", { skill: "fire-and-forget", arguments: {}, confirm: true });
    assert.equal(confirmed.isError, false, JSON.stringify(confirmed.payload));
    await waitFor(async () => (await writes()) === before + 1, "the confirmed background write");
  });
});

describe("results that cannot become JSON, and malformed results", () => {
  const cases: Array<[string, RegExp, string]> = [
    ["ret-bigint", /skill 'runs:ret-bigint' returned a result that cannot be sent as JSON: a BigInt at result\.total\.n\. The plugin's author should convert BigInt values to strings/, "bigint"],
    ["ret-cycle", /skill 'runs:ret-cycle' returned a result that cannot be sent as JSON: a circular reference at result\.child\.parent, which points back to result\. The plugin's author should return data without the cycle/, "cycle"],
    ["ret-tojson-throws", /skill 'runs:ret-tojson-throws' .*: the toJSON\(\) of the value at result\.x threw: toJSON boom/, "toJSON"],
    ["ret-getter-throws", /skill 'runs:ret-getter-throws' .*: reading result\.x threw: getter boom \(a getter\)/, "getter"],
    ["ret-proxy", /skill 'runs:ret-proxy' .*: listing the fields of result threw: proxy boom \(a Proxy/, "unreadable"],
    ["ret-function", /skill 'runs:ret-function' returned a result that cannot be sent as JSON: result is a function, not data/, "function"],
    ["ret-symbol", /skill 'runs:ret-symbol' returned a result that cannot be sent as JSON: result is a Symbol, not data/, "symbol"],
  ];
  for (const [skill, message, problem] of cases) {
    it(`${skill}: the error names the skill, what could not be serialised and where, and the fix; the hint blames the plugin's code`, async () => {
      const { payload, isError } = await callJson(conn.client, "agent_tools_runs_run_skill", { skill, arguments: {} });
      assert.equal(isError, true);
      const error = errorOf(payload);
      assert.match(error.message, message);
      assert.equal(error.details?.problem, problem);
      assert.match(error.hint, /fault in the plugin's code, not in your call/);
      assert.doesNotMatch(error.hint, /The service behind this plugin failed/);
    });
  }

  it("a result nested too deeply: the message says so, and the hint blames the plugin's code", async () => {
    const { payload, isError } = await callJson(conn.client, "agent_tools_runs_run_skill", { skill: "ret-deep", arguments: {} });
    assert.equal(isError, true);
    assert.match(errorOf(payload).message, /^the result of skill 'runs:ret-deep' is nested too deeply/);
    assert.match(errorOf(payload).hint, /fault in the plugin's code, not in your call/);
  });

  it("a skill that returns nothing answers result: null", async () => {
    const { payload, isError } = await callJson(conn.client, "agent_tools_runs_run_skill", { skill: "ret-nothing", arguments: {} });
    assert.equal(isError, false);
    assert.equal(payload.result, null);
  });

  it("bytes (a Buffer, typed arrays, an ArrayBuffer, a DataView) are answered as a descriptor, never their bytes: a credential in them does not pass", async () => {
    const { payload, isError } = await callJson(conn.client, "agent_tools_runs_run_skill", { skill: "ret-bytes", arguments: {} });
    assert.equal(isError, false, JSON.stringify(payload));
    const result = payload.result as Record<string, { binary: boolean; contentType: null; bytes: number; hint: string }>;
    assert.deepEqual(Object.keys(result), ["buffer", "typed", "raw", "view", "text"]);
    assert.deepEqual([result.buffer?.binary, result.buffer?.contentType, result.buffer?.bytes], [true, null, TOKEN.length]);
    assert.match(result.buffer?.hint ?? "", /raw bytes \(a Buffer\), which are not passed on/);
    assert.deepEqual([result.typed?.bytes, result.raw?.bytes, result.view?.bytes], [4, TOKEN.length, 3]);
    assert.match(result.typed?.hint ?? "", /a Uint16Array/);
    const text = JSON.stringify(payload);
    assert.doesNotMatch(text, /"data":\[/);
    assert.ok(!text.includes(String(TOKEN.charCodeAt(0)) + "," + String(TOKEN.charCodeAt(1))), "no byte run of the token");
  });

  it("a thrown object whose message getter throws: the error names the skill, and the hint blames the plugin's code", async () => {
    const { payload, isError } = await callJson(conn.client, "agent_tools_runs_run_skill", { skill: "throw-getter-message", arguments: {} });
    assert.equal(isError, true);
    assert.equal(errorOf(payload).message, "skill 'runs:throw-getter-message' failed: it threw a value that could not be read (reading it threw: getter boom)");
    assert.match(errorOf(payload).hint, /a fault in the plugin, not in your arguments/);
  });

  it("an error whose details hold a BigInt, a cycle or bytes keeps its code, message and hint; those parts are described with their path", async () => {
    const { payload, isError } = await callJson(conn.client, "agent_tools_runs_run_skill", { skill: "throw-odd-details", arguments: { kind: "all" } });
    assert.equal(isError, true);
    const error = errorOf(payload);
    assert.equal(error.code, "UPSTREAM_ERROR");
    assert.equal(error.message, "skill 'runs:throw-odd-details' failed: odd details");
    const details = error.details as { n: string; cyclic: { name: string; self: string }; bytes: { binary: boolean; bytes: number }; kept: string };
    assert.equal(details.n, "[not JSON: a BigInt (10) at details.n; the plugin should send it as a string or a number]");
    assert.equal(details.cyclic.name, "c");
    assert.match(details.cyclic.self, /^\[not JSON: a circular reference at details\.cyclic\.self;/);
    assert.deepEqual([details.bytes.binary, details.bytes.bytes], [true, TOKEN.length]);
    assert.equal(details.kept, "yes");
  });

  it("the kit's skillError with a BigInt in its details keeps its code and hint", async () => {
    const { payload } = await callJson(conn.client, "agent_tools_runs_run_skill", { skill: "throw-odd-details", arguments: { kind: "kit" } });
    const error = errorOf(payload);
    assert.deepEqual([error.code, error.hint], ["ARG_VALIDATION_FAILED", "fix it"]);
    assert.deepEqual(error.details, { n: "[not JSON: a BigInt (2) at details.n; the plugin should send it as a string or a number]", kept: "yes" });
  });

  it("a run that wrote and then threw details with a BigInt still says which writes were sent, with the look-first hint", async () => {
    const { payload } = await callJson(conn.client, "agent_tools_runs_run_skill", { skill: "throw-odd-details", arguments: { kind: "write" }, confirm: true });
    const error = errorOf(payload);
    assert.equal(error.code, "UPSTREAM_ERROR");
    assert.deepEqual(error.details?.writesSent, ["write_b"]);
    assert.match(error.details?.count as string, /^\[not JSON: a BigInt \(3\) at details\.count/);
    assert.match(error.hint, /look at the data first/);
  });

  it("an {isError: true} answer holding a BigInt and a cycle is still the skill's error, the parts described in details.skillResult", async () => {
    const { payload, isError } = await callJson(conn.client, "agent_tools_runs_run_skill", { skill: "answer-odd-error", arguments: {} });
    assert.equal(isError, true);
    const error = errorOf(payload);
    assert.equal(error.message, "skill 'runs:answer-odd-error' failed: it failed");
    const answer = error.details?.skillResult as { n: string; o: { o: string } };
    assert.match(answer.n, /^\[not JSON: a BigInt \(1\) at details\.skillResult\.n/);
    assert.match(answer.o.o, /^\[not JSON: a circular reference at details\.skillResult\.o\.o/);
  });

  it("a tool's BigInt result names the tool", async () => {
    const { payload } = await callJson(conn.client, "agent_tools_runs_call", { toolName: "ret_bigint", arguments: {} });
    assert.match(errorOf(payload).message, /^tool 'runs\/ret_bigint' returned a result that cannot be sent as JSON: a BigInt at result\.n/);
  });

  it("a job whose result cannot become JSON fails, saying why, and later status calls still answer", async () => {
    const started = await callJson(conn.client, "agent_tools_runs_run_skill", { skill: "start-bigint-job", arguments: {} });
    const id = (started.payload.result as { id: string }).id;
    let status: Record<string, unknown> = {};
    await waitFor(async () => {
      const answer = await callJson(conn.client, "agent_tools_runs_run_skill", { skill: "job-status", arguments: { id } });
      assert.equal(answer.isError, false, JSON.stringify(answer.payload));
      status = answer.payload.result as Record<string, unknown>;
      return status.state !== "running";
    }, "the job to end");
    assert.equal(status.state, "failed");
    assert.match((status.error as ErrorPayload).message, new RegExp(`^job '${id}' \\(big\\) returned a result that cannot be sent as JSON: a BigInt at result\\.n`));
    const again = await callJson(conn.client, "agent_tools_runs_run_skill", { skill: "job-status", arguments: { id } });
    assert.equal(again.isError, false);
  });

  it("content items that are not objects with a type: the error names the tool and the item", async () => {
    const { payload, isError } = await callJson(conn.client, "agent_tools_runs_call", { toolName: "malformed", arguments: {} });
    assert.equal(isError, true);
    assert.match(errorOf(payload).message, /^tool 'runs\/malformed' answered a malformed result: content\[1\] is null; each item of `content` must be an object with a string `type`/);
  });

  it("{isError: true} without content is an error, not a success", async () => {
    const { payload, isError } = await callJson(conn.client, "agent_tools_runs_call", { toolName: "bare_error", arguments: {} });
    assert.equal(isError, true);
    assert.equal(errorOf(payload).code, "UPSTREAM_ERROR");
    assert.match(errorOf(payload).message, /^tool 'runs\/bare_error' answered with an error \(isError: true, with no content saying why\)/);
  });

  it("a 'skill' that is not a string is said to be one, not missing", async () => {
    const { payload } = await callJson(conn.client, "agent_tools_runs_run_skill", { skill: 5, arguments: {} });
    assert.equal(errorOf(payload).message, "'skill' must be the skill's name as a non-empty string, not 5");
  });
});

describe("agent_tools_help of one plugin", () => {
  it("gives a skill whose arguments are a JSON Schema the same short params text discover shows", async () => {
    const { payload } = await callJson(conn.client, "agent_tools_help", { plugin: "runs" });
    const skills = (payload.plugin as { skills: { name: string; params?: string }[] }).skills;
    const fromHelp = skills.find((skill) => skill.name === "schema-args")?.params;
    const { payload: found } = await callJson(conn.client, "agent_tools_runs_discover", { query: "schema-args" });
    const fromDiscover = (found.matches as { name: string; params?: string }[]).find((match) => match.name === "schema-args")?.params;
    assert.ok(fromHelp, JSON.stringify(skills));
    assert.equal(fromHelp, fromDiscover);
    assert.match(fromHelp, /kind.*n/);
    // A skill without arguments has no params field.
    assert.equal(skills.find((skill) => skill.name === "ret-bigint")?.params, undefined);
  });
});
