import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { callJson, connect, writePlugin, type Connected } from "./helpers.js";

/**
 * How a skill run that fails is answered, over stdio with the built server: a run that had sent
 * writes says which (and not to simply run it again), whatever way it failed; a skill's own
 * failure text is split as an MCP error result's is; thrown values that are not Errors are said
 * as what they are, and blamed on the skill's code.
 */

const ADAPTER = `
let writes = 0;
export default function createAdapter() {
  return {
    async listTools() {
      const names = ["read_a", "write_x", "fail_x", "count"];
      return { tools: names.map((name) => ({ name, description: "tool " + name, inputSchema: { type: "object" } })) };
    },
    async call(name) {
      switch (name) {
        case "read_a": return { a: 1 };
        case "write_x": writes++; return { wrote: writes };
        case "fail_x": throw new Error("backend exploded");
        case "count": return { writes };
        default: throw new Error("no tool " + name);
      }
    },
  };
}
`;

/** Thrown values that are not Errors and carry no message, and what the error says each is. */
const THROWN: Record<string, string> = { null: "null", undefined: "undefined", number: "42", symbol: 'Symbol("s")', promise: "Promise.resolve(1)", array: "[1, 2]", empty: "{}" };
const SAID: Record<string, string> = {
  null: "null",
  undefined: "undefined",
  number: "the number 42",
  symbol: "a Symbol (Symbol(s))",
  promise: "a Promise (code awaits a promise; it does not throw it)",
  array: "an array with no message ([1,2])",
  empty: "an object with no message",
};

const skill = (description: string, body: string, args?: unknown): string =>
  `export const meta = ${JSON.stringify({ description, ...(args === undefined ? {} : { args }) })};\nexport async function run(adapter, args) { ${body} }`;

const SKILLS: Record<string, string> = {
  "skills/seq-fail.mjs": skill("read, write twice, then a failing read", `await adapter.call("read_a", {}); await adapter.call("write_x", {}); await adapter.call("write_x", {}); await adapter.call("fail_x", {}); return { done: true };`),
  "skills/read-fail.mjs": skill("read, then a failing read", `await adapter.call("read_a", {}); await adapter.call("fail_x", {}); return { done: true };`),
  "skills/write-then-iserr.mjs": skill("writes, then reports isError", `await adapter.call("write_x", {}); return { isError: true, error: "second part failed" };`),
  "skills/write-then-throw.mjs": skill("writes, then throws", `await adapter.call("write_x", {}); throw new Error("gave up halfway");`),
  "skills/args-anyof.mjs": skill("args anyOf at top", `return { got: args };`, { anyOf: [{ type: "object", properties: { id: { type: "string" } }, required: ["id"] }, { type: "object", properties: { name: { type: "string" } }, required: ["name"] }] }),
  "skills/args-toplevel-ref.mjs": skill("args $ref at top", `return { got: args };`, { $ref: "#/$defs/q", $defs: { q: { type: "object", properties: { q: { type: "string", minLength: 3 } }, required: ["q"] } } }),
  // A name map whose argument names are schema keywords, each with a description: not a schema.
  "skills/args-keyword-names.mjs": skill("a name map with keyword names", `return { got: args };`, { if: "the condition", not: "what to leave out" }),
  "skills/args-bad-anyof.mjs": skill("a top-level anyOf that does not compile", `return {};`, { anyOf: [{ type: "object", properties: { a: { type: "nope" } } }] }),
  // 3,014 characters, in lines: the first 2,000 go in the message, the rest in details.moreText.
  "skills/iserr-long.mjs": skill("isError with a long message", `return { isError: true, error: Array.from({ length: 201 }, (_, i) => String(i).padStart(14, "L")).join("\\n"), step: "export" };`),
  "skills/iserr-huge.mjs": skill("isError with a huge answer", `return { isError: true, error: "short failure", rows: Array.from({ length: 20000 }, (_, i) => ({ i, v: "row " + i })) };`),
  ...Object.fromEntries(
    Object.entries(THROWN).map(([name, expression]) => [`skills/throw-${name}.mjs`, skill(`throws ${name}`, `throw ${expression};`)]),
  ),
  "skills/throw-object.mjs": skill("throws a plain object with message, hint and details", `throw { message: "obj msg", hint: "do the other thing", details: { k: 1 } };`),
  "skills/throw-coded-object.mjs": skill("throws a plain object with a known code", `throw { code: "NOT_CONFIGURED", message: "PK_URL is not set" };`),
};

let dir: string;
let conn: Connected;

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-skill-failures-"));
  writePlugin(path.join(dir, "agent-tools-plugin-sf"), { name: "sf", prefix: "sf", adapter: "./adapter.mjs", readonlyTools: ["read_a", "fail_x", "count"] }, { "adapter.mjs": ADAPTER, ...SKILLS });
  conn = await connect(dir);
});
after(async () => {
  await conn?.close();
  rmSync(dir, { recursive: true, force: true });
});

type ErrorPayload = { code: string; message: string; hint: string; details?: Record<string, unknown> };
const runSkill = async (name: string, extra: Record<string, unknown> = {}): Promise<{ error: ErrorPayload; isError: boolean }> => {
  const { payload, isError } = await callJson(conn.client, "agent_tools_sf_run_skill", { skill: name, arguments: {}, ...extra });
  return { error: payload.error as ErrorPayload, isError };
};
const writes = async (): Promise<number> => ((await callJson(conn.client, "agent_tools_sf_call", { toolName: "count", arguments: {} })).payload.result as { writes: number }).writes;

describe("a skill run that fails after sending writes says which, and not to simply run it again", () => {
  it("a step that throws after two writes: the error keeps the failure's words and adds writesSent, stepsSent and the look-first hint", async () => {
    const before = await writes();
    const { error, isError } = await runSkill("seq-fail", { confirm: true });
    assert.equal(isError, true);
    assert.equal(await writes(), before + 2, "both writes were made");
    assert.equal(error.code, "UPSTREAM_ERROR");
    assert.match(error.message, /skill 'sf:seq-fail' failed: .*backend exploded/);
    assert.deepEqual(error.details?.writesSent, ["write_x"]);
    assert.equal(error.details?.stepsSent, 4);
    assert.match(error.hint, /had already sent steps that change data \('write_x'\) before it failed, and they may have taken effect/);
    assert.match(error.hint, /Do not simply run it again: look at the data first/);
    assert.doesNotMatch(error.hint, /try a different tool|fix the arguments/i);
  });

  it("a skill that writes, then answers {isError: true}: the same, with its answer kept", async () => {
    const { error } = await runSkill("write-then-iserr", { confirm: true });
    assert.match(error.message, /skill 'sf:write-then-iserr' failed: second part failed/);
    assert.deepEqual(error.details?.writesSent, ["write_x"]);
    assert.equal(error.details?.stepsSent, 1);
    assert.deepEqual(error.details?.skillResult, { isError: true }, "the rest of its answer: its words are in the message");
    assert.match(error.hint, /Do not simply run it again: look at the data first/);
    assert.doesNotMatch(error.hint, /run the skill again/);
  });

  it("a skill that writes, then throws an Error of its own: the same", async () => {
    const { error } = await runSkill("write-then-throw", { confirm: true });
    assert.match(error.message, /gave up halfway/);
    assert.deepEqual(error.details?.writesSent, ["write_x"]);
    assert.match(error.hint, /before it failed/);
  });

  it("a run that sent only reads keeps its failure's own hint, without writesSent", async () => {
    const { error } = await runSkill("read-fail");
    assert.match(error.message, /backend exploded/);
    assert.equal(error.details?.writesSent, undefined);
    assert.doesNotMatch(error.hint, /Do not simply run it again/);
  });
});

describe("a meta.args schema with a top-level anyOf or $ref is a schema: validated, and its names shown", () => {
  it("anyOf: arguments that match no branch are refused, ones that match one run", async () => {
    const { error, isError } = await runSkill("args-anyof", { arguments: { nothing: 1 } });
    assert.equal(isError, true);
    assert.equal(error.code, "ARG_VALIDATION_FAILED");
    assert.match(error.message, /missing required property 'id'/);
    const { payload } = await callJson(conn.client, "agent_tools_sf_run_skill", { skill: "args-anyof", arguments: { name: "x" } });
    assert.deepEqual(payload.result, { got: { name: "x" } });
  });

  it("a top-level $ref to $defs: the model it names is checked", async () => {
    const { error } = await runSkill("args-toplevel-ref", { arguments: { q: "x" } });
    assert.equal(error.code, "ARG_VALIDATION_FAILED");
    assert.match(error.message, /\/q: 'q' must NOT have fewer than 3 characters/);
    const { payload } = await callJson(conn.client, "agent_tools_sf_run_skill", { skill: "args-toplevel-ref", arguments: { q: "xyz" } });
    assert.deepEqual(payload.result, { got: { q: "xyz" } });
  });

  it("discover shows the schema's declared names (required ones starred), not its keywords; help shows no params for them", async () => {
    const { payload } = await callJson(conn.client, "agent_tools_sf_discover", { limit: 50 });
    const entries = JSON.stringify(payload);
    const params = (name: string) => (payload.matches as { name: string; params?: string }[]).find((m) => m.name === name)?.params;
    assert.equal(params("args-anyof"), "id, name");
    assert.equal(params("args-toplevel-ref"), "q*");
    assert.equal(params("args-keyword-names"), "if, not");
    assert.doesNotMatch(entries, /"params":"(anyOf|\$ref)/);
    const help = JSON.stringify((await callJson(conn.client, "agent_tools_help", { plugin: "sf" })).payload);
    assert.doesNotMatch(help, /"params":"(anyOf|\$ref)/);
  });

  it("a name map whose names are schema keywords (with descriptions) stays a name map: not validated", async () => {
    const { payload } = await callJson(conn.client, "agent_tools_sf_run_skill", { skill: "args-keyword-names", arguments: { if: 1 } });
    assert.deepEqual(payload.result, { got: { if: 1 } });
  });

  it("a top-level anyOf that does not compile fails its skill at load, with Ajv's reason", async () => {
    const help = JSON.stringify((await callJson(conn.client, "agent_tools_help", { plugin: "sf" })).payload);
    assert.match(help, /args-bad-anyof[^"]*\.mjs[^"]*meta\.args is not a valid JSON Schema/);
  });
});

describe("a skill's own failure text is sent once, split as a tool's error text is", () => {
  it("a 3,014-character message: its first 2,000 characters (newlines kept) in the message, the rest in details.moreText, not again in skillResult", async () => {
    const text = Array.from({ length: 201 }, (_, i) => String(i).padStart(14, "L")).join("\n");
    assert.equal(text.length, 3014);
    const { error } = await runSkill("iserr-long");
    const quoted = text.slice(0, 2000);
    assert.equal(error.message, `skill 'sf:iserr-long' failed: ${quoted}… (continued in \`details.moreText\`: 1014 more characters)`);
    assert.equal(error.details?.moreText, text.slice(2000));
    assert.deepEqual(error.details?.skillResult, { isError: true, step: "export" }, "the rest of the answer, without the text");
    assert.match(error.hint, /details\.moreText/);
  });

  it("an answer too large to send: the hint does not send the reader to the skillResult that was left out", async () => {
    const { error } = await runSkill("iserr-huge");
    assert.match(error.message, /failed: short failure$/);
    assert.match(String(error.details?.skillResult), /^\(left out: \d+ characters of JSON\)$/);
    assert.match(error.hint, /`details\.skillResult` \(\d+ characters of JSON\) was too large to send and is left out of this answer: it is not there to read/);
  });
});

describe("a skill that throws something other than an Error", () => {
  for (const name of Object.keys(THROWN)) {
    it(`${name}: the message says what it threw, and the hint blames the plugin's code, not the arguments`, async () => {
      const { error } = await runSkill(`throw-${name}`);
      assert.equal(error.code, "UPSTREAM_ERROR");
      assert.equal(error.message, `skill 'sf:throw-${name}' failed: it threw ${SAID[name]} instead of an Error`);
      assert.match(error.hint, /a fault in the plugin, not in your arguments/);
      assert.doesNotMatch(error.hint, /fix the arguments|service behind this plugin/);
    });
  }

  it("a plain object with message, hint and details: its message is the message, its hint and details kept, nothing repeated", async () => {
    const { error } = await runSkill("throw-object");
    assert.equal(error.message, "skill 'sf:throw-object' failed: obj msg");
    assert.equal(error.hint, "do the other thing");
    assert.deepEqual(error.details, { k: 1 });
  });

  it("a plain object with a known code and a message: that code, and its message", async () => {
    const { error } = await runSkill("throw-coded-object");
    assert.equal(error.code, "NOT_CONFIGURED");
    assert.equal(error.message, "skill 'sf:throw-coded-object' failed: PK_URL is not set");
  });
});
