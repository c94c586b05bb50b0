import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { ROOT, writePlugin } from "./helpers.js";
import { startHttp, type RunningHttp } from "./http-helpers.js";
import { MODERN, modernToolCalls } from "./v2-helpers.js";

/**
 * A call held open for the user's answer (2026-07-28 input_required rounds) is resumed only by the
 * request that started it: its requestState sent with another facade tool, or with other
 * arguments, is refused with -32602 naming the mismatch, nothing runs, and the held call still
 * takes its real answer afterwards. Real HTTP, real downstream servers that ask their user.
 */

const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-held-same-"));
const pluginsDir = path.join(dir, "plugins");
const LEGACY_ASKER = path.join(ROOT, "test", "fixtures", "v2", "legacy-asker.mjs");
for (const prefix of ["a1", "a2"]) {
  writePlugin(path.join(pluginsDir, `agent-tools-plugin-${prefix}`), {
    name: prefix,
    prefix,
    description: `A downstream that asks its user (${prefix}).`,
    adapter: { kind: "mcp", command: process.execPath, args: [LEGACY_ASKER], timeoutMs: 60_000 },
  });
}

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "held-test", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
};

interface Answer {
  result?: { inputRequests?: Record<string, { method: string; params: { message: string } }>; requestState?: string; content?: { type: string; text: string }[] };
  error?: { code: number; message: string };
}

describe("held calls: answers resume only the request that asked", () => {
  let server: RunningHttp;
  const call = modernToolCalls<Answer>(() => server.url, ENVELOPE);

  before(async () => {
    server = await startHttp({ AGENT_TOOLS_PLUGINS_DIR: pluginsDir }, [], 30_000);
  });
  after(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("refuses the requestState sent with another tool or other arguments, then resumes the call with its own", async () => {
    const asked = { toolName: "ask_user", arguments: { question: "Colour?" } };
    const first = await call("agent_tools_a1_call", asked);
    const [key] = Object.keys(first.result?.inputRequests ?? {});
    const requestState = first.result?.requestState;
    assert.ok(key && requestState, `the question was held: ${JSON.stringify(first)}`);
    const retry = { inputResponses: { [key]: { action: "accept", content: { reply: "blue" } } }, requestState };

    const otherTool = await call("agent_tools_a2_call", asked, retry);
    assert.equal(otherTool.error?.code, -32602, JSON.stringify(otherTool));
    assert.match(otherTool.error?.message ?? "", /this requestState answers a call of 'agent_tools_a1_call', not 'agent_tools_a2_call'.*nothing was run/);
    assert.equal(otherTool.result, undefined);

    const otherArgs = await call("agent_tools_a1_call", { toolName: "ask_user", arguments: { question: "Size?" } }, retry);
    assert.equal(otherArgs.error?.code, -32602, JSON.stringify(otherArgs));
    assert.match(otherArgs.error?.message ?? "", /answers a call of 'agent_tools_a1_call' with other arguments than these/);

    // The held call was left waiting: its own retry gets the user's answer.
    const resumed = await call("agent_tools_a1_call", asked, retry);
    assert.match(JSON.stringify(resumed.result), /the user said: blue/);
  });
});
