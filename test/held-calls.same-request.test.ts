import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { FIXTURES, ROOT, writePlugin } from "./helpers.js";
import { startHttp, type RunningHttp } from "./http-helpers.js";
import { MODERN, modernToolCalls } from "./v2-helpers.js";

/**
 * A call held open for the user's answer (2026-07-28 input_required rounds) is resumed only by the
 * request that started it: its requestState sent with another facade tool, or with other
 * arguments, is refused with -32602 naming the mismatch, nothing runs, and the held call still
 * takes its real answer afterwards; so are answers that do not fit the round. An answer after the
 * requestState's 10 minutes (the server's clock moved by a preload, not waited for) gets
 * QUESTION_EXPIRED. Real HTTP, real downstream servers that ask their user.
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

  it("refuses it with help, search and discover too (every facade tool passes the same check): nothing runs, the call still takes its answer", async () => {
    const asked = { toolName: "ask_user", arguments: { question: "Shape?" } };
    const first = await call("agent_tools_a1_call", asked);
    const [key] = Object.keys(first.result?.inputRequests ?? {});
    const requestState = first.result?.requestState;
    assert.ok(key && requestState, `the question was held: ${JSON.stringify(first)}`);
    const retry = { inputResponses: { [key]: { action: "accept", content: { reply: "round" } } }, requestState };
    for (const [tool, args] of [["agent_tools_help", {}], ["agent_tools_search", { query: "ask" }], ["agent_tools_a1_discover", { query: "ask" }]] as const) {
      const other = await call(tool, args, retry);
      assert.equal(other.error?.code, -32602, `${tool}: ${JSON.stringify(other)}`);
      assert.match(other.error?.message ?? "", new RegExp(`answers a call of 'agent_tools_a1_call', not '${tool}'.*nothing was run`));
      assert.equal(other.result, undefined, `${tool} did not run`);
    }
    const resumed = await call("agent_tools_a1_call", asked, retry);
    assert.match(JSON.stringify(resumed.result), /the user said: round/);
  });

  it("refuses answers that do not fit the round, naming what is wrong, and keeps the round open for the right one", async () => {
    const asked = { toolName: "ask_user", arguments: { question: "Size?" } };
    const first = await call("agent_tools_a1_call", asked);
    const [key] = Object.keys(first.result?.inputRequests ?? {});
    const requestState = first.result?.requestState;
    assert.ok(key && requestState, `the question was held: ${JSON.stringify(first)}`);
    const wrong: [Record<string, unknown> | undefined, RegExp][] = [
      [{ wrongkey: { action: "accept", content: { reply: "x" } } }, new RegExp(`inputResponses has 'wrongkey', which this round did not ask; it asked '${key}'`)],
      [{ [key]: { action: "maybe" } }, new RegExp(`inputResponses\\.${key} answers an elicitation/create question.*got action "maybe"`)],
      // The SDK sets aside an entry that is not a bare answer object: named as such, not as no answer.
      [{ [key]: "just text" }, new RegExp(`inputResponses\\.${key} is not the answer itself: an entry wrapped as \\{"method", "result"\\} \\(or one that is no object\\) is set aside unread`)],
      [{ [key]: { method: "elicitation/create", result: { action: "accept", content: { reply: "x" } } } }, new RegExp(`inputResponses\\.${key} is not the answer itself: .*Send the bare answer there: an object \\{"action"`)],
      [{}, new RegExp(`no answer \\(an object\\) under '${key}'`)],
      [undefined, /inputResponses must be an object .*got none/],
    ];
    for (const [inputResponses, said] of wrong) {
      const answer = await call("agent_tools_a1_call", asked, { requestState, ...(inputResponses ? { inputResponses } : {}) } as never);
      assert.equal(answer.error?.code, -32602, JSON.stringify(answer));
      assert.match(answer.error?.message ?? "", said);
      assert.match(answer.error?.message ?? "", /Nothing was run, and the call still waits for the answers with this requestState/);
    }
    // Nothing was taken as the answer: the same requestState, answered right, resumes the call.
    const resumed = await call("agent_tools_a1_call", asked, { inputResponses: { [key]: { action: "accept", content: { reply: "large" } } }, requestState });
    assert.match(JSON.stringify(resumed.result), /the user said: large/);
  });
});

describe("held calls: an answer after the requestState's 10 minutes", () => {
  let server: RunningHttp;
  const clockFile = path.join(dir, "clock-shift");
  const call = modernToolCalls<Answer>(() => server.url, ENVELOPE);

  before(async () => {
    // The server's wall clock runs ahead by what the test writes to clockFile (shifted-clock.mjs).
    const preload = pathToFileURL(path.join(FIXTURES, "shifted-clock.mjs")).href;
    server = await startHttp({ AGENT_TOOLS_PLUGINS_DIR: pluginsDir, SHIFTED_CLOCK_FILE: clockFile, NODE_OPTIONS: `--import ${preload}` }, [], 30_000);
  });
  after(async () => {
    await server?.stop();
  });

  it("gets QUESTION_EXPIRED in the facade's shape, saying the time was up; a tampered state stays the SDK's -32602", async () => {
    writeFileSync(clockFile, "0");
    const asked = { toolName: "ask_user", arguments: { question: "Late?" } };
    const first = await call("agent_tools_a1_call", asked);
    const [key] = Object.keys(first.result?.inputRequests ?? {});
    const requestState = first.result?.requestState;
    assert.ok(key && requestState, `the question was held: ${JSON.stringify(first)}`);
    const inputResponses = { [key]: { action: "accept", content: { reply: "late" } } };

    const tampered = await call("agent_tools_a1_call", asked, { inputResponses, requestState: `${requestState.slice(0, -4)}AAAA` });
    assert.equal(tampered.error?.code, -32602, JSON.stringify(tampered));

    writeFileSync(clockFile, "601");
    const late = await call("agent_tools_a1_call", asked, { inputResponses, requestState });
    assert.equal(late.error, undefined, JSON.stringify(late));
    const payload = JSON.parse(late.result?.content?.[0]?.text ?? "{}") as { ok: boolean; error?: { code: string; message: string; hint: string } };
    assert.equal(payload.ok, false);
    assert.equal(payload.error?.code, "QUESTION_EXPIRED");
    assert.match(payload.error?.message ?? "", /after the question's 10 minutes were up \(its requestState expired\).*nothing was run/);
    assert.match(payload.error?.hint ?? "", /Call the tool again \(without the old answer\)/);
  });
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});
