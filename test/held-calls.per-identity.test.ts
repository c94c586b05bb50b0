import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { hashToken } from "../src/gateway/identities.js";
import { ROOT, writePlugin } from "./helpers.js";
import { raw, startHttp, type RunningHttp } from "./http-helpers.js";
import { MODERN } from "./v2-helpers.js";

/**
 * Calls held open for the user's answer (2026-07-28 input_required rounds) are counted per
 * caller identity: over a real team gateway (real HTTP, real downstream servers that ask their
 * user), one identity filling its share gets TOO_MANY_QUESTIONS naming the limit and what
 * to do, while another identity's question is still held and answered; answering one of the
 * first identity's questions frees its share again.
 */

const TOKENS = { alice: "alice-token-0123456789abcdef", bob: "bob-token-0123456789abcdef0" };
const SHARE = 2;
const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-held-"));
const pluginsDir = path.join(dir, "plugins");
// One downstream per call held at once: a 2025-era server asks on its connection, and the
// runtime tells whose question it is only while one call is in flight there (McpConnection.relayFor).
const LEGACY_ASKER = path.join(ROOT, "test", "fixtures", "v2", "legacy-asker.mjs");
const PLUGINS = ["a1", "a2", "a3", "b1"] as const;
for (const prefix of PLUGINS) {
  writePlugin(path.join(pluginsDir, `agent-tools-plugin-${prefix}`), {
    name: prefix,
    prefix,
    description: `A downstream that asks its user (${prefix}).`,
    adapter: { kind: "mcp", command: process.execPath, args: [LEGACY_ASKER], timeoutMs: 60_000 },
  });
}
const config = path.join(dir, "team.json");
writeFileSync(
  config,
  JSON.stringify({
    team: {
      identities: [
        { name: "alice", tokenSha256: hashToken(TOKENS.alice), plugins: ["*"], write: true },
        { name: "bob", tokenSha256: hashToken(TOKENS.bob), plugins: ["*"], write: true },
      ],
    },
  }),
);

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "held-test", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
};

interface Answer {
  result?: { resultType?: string; inputRequests?: Record<string, { method: string; params: { message: string } }>; requestState?: string; content?: { type: string; text: string }[]; isError?: boolean };
  error?: { code: number; message: string };
}

describe("held calls: each caller identity has its own share", () => {
  let server: RunningHttp;
  let id = 0;
  /** One 2026-07-28 tools/call over real HTTP as `who`: JSON or the SSE event carrying the response. */
  const call = async (who: keyof typeof TOKENS, plugin: (typeof PLUGINS)[number], question: string, answer?: { inputResponses: Record<string, unknown>; requestState: string }): Promise<Answer> => {
    const rpcId = ++id;
    const params = { name: `agent_tools_${plugin}_call`, arguments: { toolName: "ask_user", arguments: { question } }, ...(answer ?? {}), _meta: ENVELOPE };
    const response = await raw(server.url, {
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${TOKENS[who]}`,
        "mcp-protocol-version": MODERN,
        "mcp-method": "tools/call",
        "mcp-name": params.name,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: rpcId, method: "tools/call", params }),
    });
    assert.equal(response.status, 200, response.body);
    const text = response.body;
    const json = text.trimStart().startsWith("{") ? text : (text.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).find((l) => l.includes(`"id":${rpcId}`)) ?? "{}");
    return JSON.parse(json) as Answer;
  };
  /** Ask, and expect the question to come back held (input_required), its key and state. */
  const held = async (who: keyof typeof TOKENS, plugin: (typeof PLUGINS)[number], question: string): Promise<{ plugin: (typeof PLUGINS)[number]; key: string; requestState: string }> => {
    const first = await call(who, plugin, question);
    const [key, request] = Object.entries(first.result?.inputRequests ?? {})[0] ?? [];
    assert.ok(key && request && first.result?.requestState, `${who}'s question was held: ${JSON.stringify(first)}`);
    assert.equal(request.params.message, `Plugin '${plugin}' asks: ${question}`);
    return { plugin, key, requestState: first.result.requestState };
  };
  const answer = (who: keyof typeof TOKENS, question: string, asked: { plugin: (typeof PLUGINS)[number]; key: string; requestState: string }, reply: string): Promise<Answer> =>
    call(who, asked.plugin, question, { inputResponses: { [asked.key]: { action: "accept", content: { reply } } }, requestState: asked.requestState });
  const payloadOf = (answered: Answer): { ok?: boolean; error?: { code: string; message: string; hint: string; details?: Record<string, unknown> } } =>
    JSON.parse(answered.result?.content?.[0]?.text ?? "{}") as never;

  before(async () => {
    server = await startHttp({ AGENT_TOOLS_PLUGINS_DIR: pluginsDir, AGENT_TOOLS_HELD_CALLS_PER_CALLER: String(SHARE) }, ["--config", config], 30_000);
  });
  after(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("alice filling her share is refused in words; bob's question is still held and answered; an answer frees alice's share", async () => {
    const alices = [await held("alice", "a1", "Alice one?"), await held("alice", "a2", "Alice two?")];

    const refused = await call("alice", "a3", "Alice three?");
    assert.equal(refused.result?.isError, true, JSON.stringify(refused));
    const error = payloadOf(refused).error;
    assert.equal(error?.code, "TOO_MANY_QUESTIONS");
    assert.match(error?.message ?? "", /identity 'alice' already has 2 calls waiting for answers to their questions, the most one caller may have \(2; AGENT_TOOLS_HELD_CALLS_PER_CALLER\)/);
    assert.match(error?.hint ?? "", /answer or cancel the questions already open/);
    assert.deepEqual(error?.details, { pending: 2, limit: 2, per: "caller" });

    // Another identity is not blocked by alice's unanswered questions.
    const bobs = await held("bob", "b1", "Bob one?");
    const bobDone = await answer("bob", "Bob one?", bobs, "green");
    assert.match(JSON.stringify(bobDone.result), /the user said: green/);

    // Answering one of alice's questions resumes that call and frees a place in her share.
    const aliceDone = await answer("alice", "Alice one?", alices[0]!, "blue");
    assert.match(JSON.stringify(aliceDone.result), /the user said: blue/);
    const again = await held("alice", "a1", "Alice three, again?");
    for (const [asked, question] of [[alices[1]!, "Alice two?"], [again, "Alice three, again?"]] as const) {
      assert.match(JSON.stringify((await answer("alice", question, asked, "red")).result), /the user said: red/);
    }
  });
});
