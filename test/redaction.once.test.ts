import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, afterEach, describe, test } from "node:test";
import { trackedChildren, type McpAdapter } from "../src/adapters/mcp/index.js";
import { createRedactor } from "../src/adapters/shared/redact.js";
import type { CallContext } from "../src/adapters/types.js";
import { parseConfig } from "../src/config/config.js";
import { silentLogger } from "../src/log.js";
import { shapeResult } from "../src/runtime/result.js";
import { createRuntime } from "../src/runtime/runtime.js";
import { closeSession } from "../src/runtime/session.js";
import { fixtureAdapter, liveChildren, STDIO_FIXTURE, textOf } from "./fixtures/mcp/support.js";

/**
 * A plugin's tool result is masked once: the pipeline's shape step masks it with the fleet's
 * redactor, and an McpAdapter with that same redactor, told so (CallContext.resultRedactor),
 * leaves it to that step. Any other caller (a skill, a hand-written adapter, a test) and an
 * adapter with a redactor of its own still get results masked by the adapter itself.
 */

const SECRET = "s3cr3t-value-4711";
const OTHER_SECRET = "an0ther-secret-0815";
const opened: McpAdapter[] = [];
const dir = mkdtempSync(path.join(tmpdir(), "redaction-once-"));
after(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.all(opened.splice(0).map((a) => a.close()));
  assert.deepEqual(liveChildren(), [], "no child process left behind");
  assert.deepEqual(trackedChildren(), []);
});

describe("an MCP tool's result is masked once", () => {
  test("the adapter masks unless the caller masks with the adapter's own redactor", async () => {
    const redactor = createRedactor([SECRET]);
    const adapter = fixtureAdapter([], {}, { redactor });
    opened.push(adapter);
    const call = (extra: Partial<CallContext>) => adapter.call("echo", { text: `the key is ${SECRET}` }, { signal: new AbortController().signal, sessionId: "s", log: silentLogger, ...extra });
    assert.equal(textOf(await call({})), "the key is [redacted]", "no caller redactor: masked here");
    assert.equal(textOf(await call({ resultRedactor: createRedactor([SECRET]) })), "the key is [redacted]", "another redactor: masked here");
    assert.equal(textOf(await call({ resultRedactor: redactor })), `the key is ${SECRET}`, "the same redactor: left to the caller");
  });

  test("through the runtime, a tool's result still reaches the caller masked", async () => {
    const config = parseConfig(path.join(dir, "agent-tools.config.json"), {
      mcpServers: { fx: { command: process.execPath, args: [STDIO_FIXTURE], env: { FX_API_TOKEN: SECRET } } },
    });
    const runtime = await createRuntime({ config, pluginDirs: [], env: { PATH: process.env.PATH ?? "" }, log: silentLogger, catalogCache: false });
    const session = runtime.createSession("redaction-once");
    try {
      const answer = await runtime.call(session, "fx", { toolName: "echo", arguments: { text: `the key is ${SECRET}` } });
      assert.equal(answer.isError, false, JSON.stringify(answer.payload));
      assert.equal((answer.payload as { result?: unknown }).result, "the key is [redacted]");
      const json = JSON.stringify(await runtime.call(session, "fx", { toolName: "echo", arguments: { text: `{"nested":{"key":"${SECRET}"}}` } }));
      assert.ok(!json.includes(SECRET) && json.includes("[redacted]"), json);
    } finally {
      await closeSession(session);
      await runtime.close();
    }
  });
});

/**
 * A key is text like any value: the shape step masks after a JSON text result is parsed, so a
 * secret in a key position must be masked there too (it once leaked: `{"<secret>":"x"}`).
 */
describe("a secret in an object key is masked", () => {
  const config = parseConfig(path.join(dir, "agent-tools.config.json"), {
    mcpServers: Object.fromEntries(
      ["text", "structured", "error"].map((mode) => [`fx${mode}`, { command: process.execPath, args: [STDIO_FIXTURE, "--echo-as", mode], env: { FX_API_TOKEN: SECRET, FX_OTHER_SECRET: OTHER_SECRET } }]),
    ),
  });
  const echo = async (plugin: string, text: string) => {
    const runtime = await createRuntime({ config, pluginDirs: [], env: { PATH: process.env.PATH ?? "" }, log: silentLogger, catalogCache: false });
    const session = runtime.createSession("redaction-keys");
    try {
      const answer = await runtime.call(session, plugin, { toolName: "echo", arguments: { text } });
      const json = JSON.stringify(answer.payload);
      assert.ok(!json.includes(SECRET) && !json.includes(OTHER_SECRET), `a secret reached the caller: ${json}`);
      return answer as { isError: boolean; payload: { result?: unknown; error?: { code: string; message: string } } };
    } finally {
      await closeSession(session);
      await runtime.close();
    }
  };

  test("in a JSON text result: as a key, inside a key, as a nested key, in an array's object, as a credential shape", async () => {
    const sent = { [SECRET]: "x", [`id-${SECRET}-2`]: 1, a: { b: [{ [SECRET]: { deep: true } }] }, "Authorization: Bearer abcdefgh12345678": 2 };
    const answer = await echo("fxtext", JSON.stringify(sent));
    assert.equal(answer.isError, false, JSON.stringify(answer.payload));
    assert.deepEqual(answer.payload.result, { "[redacted]": "x", "id-[redacted]-2": 1, a: { b: [{ "[redacted]": { deep: true } }] }, "Authorization: Bearer [redacted]": 2 });
  });

  test("in structuredContent", async () => {
    const answer = await echo("fxstructured", JSON.stringify({ outer: { [SECRET]: "x" } }));
    assert.equal(answer.isError, false, JSON.stringify(answer.payload));
    assert.deepEqual(answer.payload.result, { outer: { "[redacted]": "x" } });
  });

  test("in a tool's error", async () => {
    const answer = await echo("fxerror", JSON.stringify({ [SECRET]: "x" }));
    assert.equal(answer.isError, true);
    assert.equal(answer.payload.error?.code, "UPSTREAM_ERROR");
    assert.match(answer.payload.error?.message ?? "", /the tool answered with an error: \{"\[redacted\]":"x"\}/);
  });

  test("in a tool's error longer than the message quotes: masked before it is split, each part sent once", async () => {
    // The secret straddles the message's cut at 2,000 characters; the text is 3,000 characters in all.
    const text = `${"a".repeat(1_990)}${SECRET}${"b".repeat(3_000 - 1_990 - SECRET.length)}`;
    const answer = (await echo("fxerror", text)) as { payload: { error?: { message: string; details?: { moreText?: string; content?: unknown } } } };
    const error = answer.payload.error!;
    const masked = text.replace(SECRET, "[redacted]");
    const quoted = masked.slice(0, 2_000);
    assert.equal(error.message, `the tool answered with an error: ${quoted}… (continued in \`details.moreText\`: ${masked.length - 2_000} more characters)`);
    assert.equal(error.details?.moreText, masked.slice(2_000));
    assert.equal(error.details?.content, undefined, "the text is not sent a second time");
  });

  test("a JSON text nested deeper than the stack allows is passed on as text, masked (it was 'Maximum call stack size exceeded')", async () => {
    const deep = `${"[".repeat(20_000)}"${SECRET}"${"]".repeat(20_000)}`;
    const answer = await echo("fxtext", deep);
    assert.equal(answer.isError, false, JSON.stringify(answer.payload).slice(0, 300));
    assert.equal(answer.payload.result, deep.replace(SECRET, "[redacted]"));
    // structuredContent has no text to fall back on: a clear error (built here: a downstream's SDK validates it for too long).
    let nested: unknown = SECRET;
    for (let i = 0; i < 200_000; i++) nested = [nested];
    const redactor = createRedactor([SECRET]);
    assert.throws(() => shapeResult({ content: [], structuredContent: { a: nested } }, (v) => redactor.redactValue(v), 1000), /nested too deeply.*flatter result/);
    // The tool is named as the pipeline names it ("tool 'raw/deep_struct'"), without a doubled apostrophe ("'raw/deep_struct''s").
    assert.throws(
      () => shapeResult({ content: [], structuredContent: { a: nested } }, (v) => redactor.redactValue(v), 1000, "tool 'raw/deep_struct'"),
      (error: Error) => error.message.startsWith("the result of tool 'raw/deep_struct' is nested too deeply (thousands of levels)") && !error.message.includes("''"),
    );
  });

  test("keys that mask to the same text are all kept, a masked one with a suffix", async () => {
    const answer = await echo("fxtext", JSON.stringify({ [SECRET]: 1, "[redacted]": 2, [OTHER_SECRET]: 3 }));
    assert.deepEqual(answer.payload.result, { "[redacted] (2)": 1, "[redacted]": 2, "[redacted] (3)": 3 });
    assert.deepEqual(Object.keys(answer.payload.result as object), ["[redacted] (2)", "[redacted]", "[redacted] (3)"], "the order is kept");
  });

  test("a value with nothing to mask comes back as it was, not copied; a __proto__ key stays a field", () => {
    const redactor = createRedactor([SECRET]);
    const clean = JSON.parse('{"id":1,"name":"a name with spaces","query":"?token","list":[{"k":"v"}]}') as unknown;
    assert.equal(redactor.redactValue(clean), clean);
    const masked = redactor.redactValue(JSON.parse(`{"__proto__":{"polluted":true},"${SECRET}":1}`) as Record<string, unknown>);
    assert.deepEqual(Object.keys(masked), ["__proto__", "[redacted]"]);
    assert.equal(Object.getPrototypeOf(masked), Object.prototype);
    assert.equal((masked as { polluted?: unknown }).polluted, undefined);
  });
});
