import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Client as V2Client } from "@modelcontextprotocol/client";
import { connectStdioV1, writePlugin } from "./helpers.js";
import { connectStdioV2, firstText, v2Client, V2_DOWNSTREAM_ARGS } from "./v2-helpers.js";
import { progressFields, tapProgress } from "./wire-progress.js";

/**
 * Progress around a downstream's question: a 2026-07-28 downstream reports a step before its
 * question (input_required) and one after the answer; both reach the agent's client as progress.
 * What does not: the SDK's own round bookkeeping ("Fulfilling input required by 'tools/call'
 * (round N)"), which its input_required driver reports on the call's progress callback every
 * round. It is not the downstream's progress, counts rounds rather than work (a step back
 * after the downstream's own), and the agent's client makes its own when it answers rounds.
 * Both eras of the agent's client, real processes over stdio; progress is read off the wire.
 */

const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-progress-rounds-"));
const pluginsDir = path.join(dir, "plugins");
writePlugin(path.join(pluginsDir, "agent-tools-plugin-dn"), {
  name: "dn",
  prefix: "dn",
  description: "A 2026-07-28 downstream.",
  adapter: { kind: "mcp", command: process.execPath, args: [...V2_DOWNSTREAM_ARGS], timeoutMs: 60_000 },
});
const env = { AGENT_TOOLS_PLUGINS_DIR: pluginsDir };

type Progress = { progress: number; total?: number; message?: string };
const ROUND_BOOKKEEPING = /Fulfilling input required/;
const call = (question: string) => ({ name: "agent_tools_dn_call", arguments: { toolName: "steps_around_question", arguments: { question } } });

/** What each caller's client was sent as progress during its call. */
function assertOnlyDownstreamProgress(seen: Progress[], answer: string): void {
  assert.match(answer, /the user said: blue/, answer);
  const messages = seen.map((p) => p.message ?? "");
  assert.deepEqual(
    messages.filter((m) => ROUND_BOOKKEEPING.test(m)),
    [],
    `the SDK's round bookkeeping is not relayed as progress (sent: ${JSON.stringify(seen)})`,
  );
  assert.deepEqual(messages, ["before the question", "after the answer"], `the downstream's own steps are (sent: ${JSON.stringify(seen)})`);
  assert.deepEqual(
    seen.map((p) => [p.progress, p.total]),
    [
      [1, 2],
      [2, 2],
    ],
  );
}

describe("progress around a downstream's question", () => {
  describe("a 2026-07-28 caller (the call is held across its input_required rounds)", () => {
    let client: V2Client;
    /** Progress notifications as they came over the wire (the client's own driver reports rounds on `onprogress` too). */
    const wire: Progress[] = [];
    before(async () => {
      client = v2Client("pin", { elicitation: { form: {} } });
      client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { reply: "blue" } }));
      await connectStdioV2(client, env);
      assert.equal(client.getProtocolEra(), "modern");
      tapProgress(client.transport, (p) => void wire.push(progressFields(p)));
    });
    after(async () => {
      await client.close();
    });

    it("the downstream's steps before and after its question are relayed, the SDK's round message is not", async () => {
      const result = await client.callTool(call("Favourite colour?"), { onprogress: () => undefined, timeout: 60_000 });
      assertOnlyDownstreamProgress(wire, firstText(result));
    });
  });

  describe("a 2025 caller (the question is a request to it mid-call)", () => {
    let client: V1Client;
    /** Progress as it came over the wire (see wire-progress.ts: onprogress can lose a step read with the answer). */
    const wire: Progress[] = [];
    before(async () => {
      client = new V1Client({ name: "progress-rounds-legacy", version: "0" }, { capabilities: { elicitation: {} } });
      client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { reply: "blue" } }));
      await connectStdioV1(client, env);
      tapProgress(client.transport, (p) => void wire.push(progressFields(p)));
    });
    after(async () => {
      await client.close();
    });

    it("the downstream's steps before and after its question are relayed, the SDK's round message is not", async () => {
      // A 2025-era client has no input_required driver: what was sent is what it would see.
      const result = await client.callTool(call("Favourite colour?"), undefined, { onprogress: () => undefined, timeout: 60_000 });
      assertOnlyDownstreamProgress(wire, firstText(result));
    });
  });
});
