import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { formAnswerValidator } from "../src/facade/form-validator.js";
import { ROOT, writePlugin } from "./helpers.js";
import { connectHttpPreferringSse, httpForSuite } from "./http-helpers.js";

/**
 * A user's form answer to a downstream's question is checked against the form's schema by one
 * validator for the whole process (facade/form-validator.ts), not by an Ajv of each session's
 * own (issue #16: nothing per session that is the same for all). Over legacy HTTP sessions
 * answering on SSE, the one path where the SDK checks answers (its legacy elicitInput).
 */

const LEGACY_ASKER = path.join(ROOT, "test", "fixtures", "v2", "legacy-asker.mjs");
const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-form-answers-"));
writePlugin(path.join(dir, "agent-tools-plugin-ln"), { name: "ln", prefix: "ln", description: "A downstream that asks the user.", adapter: { kind: "mcp", command: process.execPath, args: [LEGACY_ASKER], timeoutMs: 60_000 } });

/** A 2025-era client whose session answers on SSE (so it can be asked mid-call) and whose user answers `reply`. */
async function asker(url: string, reply: unknown): Promise<V1Client> {
  const client = new V1Client({ name: "form-answers", version: "0" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { reply } as Record<string, string> }));
  await connectHttpPreferringSse(client, url);
  return client;
}

const ask = async (client: V1Client): Promise<string> => {
  const result = (await client.callTool({ name: "agent_tools_ln_call", arguments: { toolName: "ask_user", arguments: { question: "Colour?" } } }, undefined, { timeout: 60_000 })) as CallToolResult;
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
};

describe("form answers", () => {
  const http = httpForSuite({ AGENT_TOOLS_PLUGINS_DIR: dir });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("two sessions: an answer that breaks the form's schema is refused in words naming the field, a good one goes through", async () => {
    const wrong = await asker(http.url, 42);
    const right = await asker(http.url, "blue");
    try {
      const refused = await ask(wrong);
      // The wording is the shared validator's (the SDK's own Ajv would say "data/reply must be string").
      assert.match(refused, /does not match requested schema: 'reply' must be a string/, refused);
      assert.doesNotMatch(refused, /the user said/);
      assert.match(await ask(right), /the user said: blue/);
      // Refusing one answer left nothing behind that breaks the next one on the same session.
      assert.match(await ask(wrong), /'reply' must be a string/);
    } finally {
      await wrong.close();
      await right.close();
    }
  });

  it("checks what a form can ask: required fields, enums, formats, numbers' bounds", () => {
    const schema = {
      type: "object",
      properties: { email: { type: "string", format: "email" }, size: { type: "string", enum: ["s", "m"] }, count: { type: "integer", minimum: 1 } },
      required: ["email"],
    } as const;
    const validate = formAnswerValidator.getValidator<Record<string, unknown>>(schema);
    assert.deepEqual(validate({ email: "a@b.org", size: "m", count: 2 }), { valid: true, data: { email: "a@b.org", size: "m", count: 2 }, errorMessage: undefined });
    const bad = validate({ email: "nope", size: "xl", count: 0 });
    assert.equal(bad.valid, false);
    assert.match(bad.errorMessage ?? "", /'email' must match format "email"/);
    assert.match(bad.errorMessage ?? "", /'size' must be one of \["s","m"\]/);
    assert.match(bad.errorMessage ?? "", /'count' must be >= 1/);
    assert.match(validate({}).errorMessage ?? "", /missing required property 'email'/);
    assert.throws(() => formAnswerValidator.getValidator({ type: "object", properties: { x: { type: "no-such-type" } } } as never), /the form's schema does not compile/);
  });
});
