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
