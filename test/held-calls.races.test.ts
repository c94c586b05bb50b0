import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { writePlugin } from "./helpers.js";
import { startHttp, type RunningHttp } from "./http-helpers.js";
import { MODERN, modernToolCalls, V2_DOWNSTREAM_ARGS } from "./v2-helpers.js";

/**
 * One answer is used once, even when the client sends it twice at the same moment (2026-07-28
 * input_required rounds, real HTTP, a real v2 downstream that writes a line per write_row):
 * - a confirmation's accept sent twice at once runs the write once; the other request is asked again;
 * - two requests answering one held downstream question: the first resumes the call, the other gets
 *   QUESTION_EXPIRED at once, and neither is left unanswered; the same for an agent_tools_exec
 *   command's confirmation, which waits in a held call too;
 * - a form answer that breaks the question's schema is refused as a 2025-era client's is.
 */

const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-held-races-"));
const pluginsDir = path.join(dir, "plugins");
const writes = path.join(dir, "writes.log");
writePlugin(path.join(pluginsDir, "agent-tools-plugin-db"), {
  name: "db",
  prefix: "db",
  description: "A table store for the race tests.",
  adapter: { kind: "mcp", command: process.execPath, args: [...V2_DOWNSTREAM_ARGS], env: { V2_WRITE_LOG: writes }, timeoutMs: 60_000 },
});

const written = (): string[] => {
  try {
    return readFileSync(writes, "utf8").trim().split("\n").filter(Boolean);
  } catch {
    return [];
  }
};

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "race-test", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
};

interface Answer {
  result?: { resultType?: string; inputRequests?: Record<string, { method: string; params: { message: string } }>; requestState?: string; content?: { type: string; text: string }[] };
  error?: { code: number; message: string };
}

/** What an answer says: the tool result's text, or the input_required it asks. */
const said = (answer: Answer): string => (answer.result?.resultType === "input_required" ? `input_required ${JSON.stringify(answer.result.inputRequests)}` : (answer.result?.content?.[0]?.text ?? JSON.stringify(answer)));

describe("held calls: an answer sent twice at once is used once", () => {
  let server: RunningHttp;
  const call = modernToolCalls<Answer>(() => server.url, ENVELOPE);
  /** The call's first round: its question's key and the requestState to answer it with. */
  const asked = async (name: string, args: Record<string, unknown>): Promise<{ key: string; requestState: string }> => {
    const first = await call(name, args);
    const [key] = Object.keys(first.result?.inputRequests ?? {});
    const requestState = first.result?.requestState;
    assert.ok(key && requestState, `the call asked: ${JSON.stringify(first)}`);
    return { key, requestState };
  };

  before(async () => {
    server = await startHttp({ AGENT_TOOLS_PLUGINS_DIR: pluginsDir }, [], 30_000);
  });
  after(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("a confirmation's accept sent twice at once writes once; the other request, and a later replay, are asked again", async () => {
    const args = { toolName: "write_row", arguments: { table: "t", value: "race" } };
    const { key, requestState } = await asked("agent_tools_db_call", args);
    assert.equal(key, "confirm");
    const before = written().length;
    const accept = { inputResponses: { confirm: { action: "accept", content: { confirm: true } } }, requestState };
    const both = await Promise.all([call("agent_tools_db_call", args, accept), call("agent_tools_db_call", args, accept)]);
    const ran = both.filter((a) => /"ok":true/.test(said(a)));
    const askedAgain = both.filter((a) => a.result?.resultType === "input_required");
    assert.equal(ran.length, 1, `one of the two ran: ${both.map(said).join(" | ")}`);
    assert.equal(askedAgain.length, 1, `the other was asked again: ${both.map(said).join(" | ")}`);
    assert.match(said(askedAgain[0] ?? {}), /Allow plugin 'db' to run 'write_row'/);
    assert.deepEqual(written().slice(before), [JSON.stringify({ table: "t", value: "race" })], "written exactly once");

    const replay = await call("agent_tools_db_call", args, accept);
    assert.equal(replay.result?.resultType, "input_required", `a replay after the run is asked again: ${said(replay)}`);
    assert.equal(written().length, before + 1, "the replay wrote nothing");
  });

  it("two requests answering one downstream question: the first gets the call's result, the other QUESTION_EXPIRED at once", async () => {
    const args = { toolName: "steps_around_question", arguments: { question: "Colour?" } };
    const { key, requestState } = await asked("agent_tools_db_call", args);
    const answer = (reply: string) => ({ inputResponses: { [key]: { action: "accept", content: { reply } } }, requestState });
    const started = Date.now();
    const [blue, red] = await Promise.all([call("agent_tools_db_call", args, answer("blue")), call("agent_tools_db_call", args, answer("red"))]);
    assert.ok(Date.now() - started < 30_000, "both requests were answered");
    const texts = [said(blue), said(red)];
    const resumed = texts.filter((t) => /the user said: (blue|red)/.test(t));
    const expired = texts.filter((t) => /"code":"QUESTION_EXPIRED"/.test(t));
    assert.equal(resumed.length, 1, texts.join(" | "));
    assert.equal(expired.length, 1, texts.join(" | "));
    assert.match(expired[0] ?? "", /this question was already answered \(by an earlier request with the same requestState.*this answer was not used/);
    // The refused request's answer was not used: the result is the one of the request that resumed.
    assert.match(resumed[0] ?? "", blue.result?.content?.[0]?.text === resumed[0] ? /blue/ : /red/);

    const late = await call("agent_tools_db_call", args, answer("green"));
    assert.match(said(late), /"code":"QUESTION_EXPIRED"/, "a replay after the call ended is refused too");
  });

  it("agent_tools_exec: a command's confirmation answered twice at once writes once, the other request gets QUESTION_EXPIRED", async () => {
    const args = { command: "db call write_row --table t --value exec-race" };
    const { key, requestState } = await asked("agent_tools_exec", args);
    const before = written().length;
    const accept = { inputResponses: { [key]: { action: "accept", content: { confirm: true } } }, requestState };
    const both = await Promise.all([call("agent_tools_exec", args, accept), call("agent_tools_exec", args, accept)]);
    const texts = both.map(said);
    assert.equal(texts.filter((t) => /"code":"QUESTION_EXPIRED"/.test(t)).length, 1, texts.join(" | "));
    assert.equal(texts.filter((t) => /wrote exec-race into t/.test(t)).length, 1, texts.join(" | "));
    assert.deepEqual(written().slice(before), [JSON.stringify({ table: "t", value: "exec-race" })], "written exactly once");
  });

  it("a form answer that breaks the question's schema is refused in the 2025 era's words; a good one goes through", async () => {
    const args = { toolName: "ask_user", arguments: { question: "How many?" } };
    const first = await asked("agent_tools_db_call", args);
    const wrong = await call("agent_tools_db_call", args, { inputResponses: { [first.key]: { action: "accept", content: { reply: 42 } } }, requestState: first.requestState });
    assert.match(said(wrong), /does not match requested schema: 'reply' must be a string/, said(wrong));
    assert.doesNotMatch(said(wrong), /the user said/);
    const second = await asked("agent_tools_db_call", args);
    const right = await call("agent_tools_db_call", args, { inputResponses: { [second.key]: { action: "accept", content: { reply: "three" } } }, requestState: second.requestState });
    assert.match(said(right), /the user said: three/);
  });
});
