import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { callJson, PLUGINS, stdioForSuite } from "./helpers.js";

// Facade routing errors (a wrong facade name, a `plugin` that names no plugin, a plugin's tool
// named as a facade tool) quote what the caller sent and carry its arguments in `details.next`.
// They leave through the fleet's redactor like every other error, and a sent name is masked before
// it is cut at 80 characters: cut first, the part of a token left before the cut was too short for
// the redactor to know, and the answer showed it.

const SECRET = `rtk_${randomBytes(18).toString("hex")}`;

/** Whether `text` holds any 6 characters of SECRET in a row. */
function showsPartOfSecret(text: string): boolean {
  for (let i = 0; i + 6 <= SECRET.length; i++) if (text.includes(SECRET.slice(i, i + 6))) return true;
  return false;
}

describe("routing errors show no part of a credential the caller sent", () => {
  // A host variable whose name says it is a credential: the redactor knows its value.
  const agent = stdioForSuite(PLUGINS, { ROUTING_TEST_API_TOKEN: SECRET });

  it("a facade name with a token across the 80-character cut: UNKNOWN_FACADE_TOOL quotes it masked", async () => {
    const sent = `${"w".repeat(70)}${SECRET}`;
    const { payload, isError } = await callJson(agent.client, sent, {});
    assert.equal(isError, true);
    assert.equal(payload.error?.code, "UNKNOWN_FACADE_TOOL", JSON.stringify(payload));
    const text = JSON.stringify(payload);
    assert.ok(!showsPartOfSecret(text), text);
    assert.match(payload.error?.message ?? "", /\[redacted\]/);
  });

  it("a `plugin` holding a token on a per-plugin tool: the refusal quotes it masked", async () => {
    const { payload } = await callJson(agent.client, "agent_tools_notes_call", { plugin: `${"p".repeat(74)}${SECRET}`, toolName: "list_notes" });
    assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED", JSON.stringify(payload));
    const text = JSON.stringify(payload);
    assert.ok(!showsPartOfSecret(text), text);
  });

  it("a plugin's tool named as a facade tool with a token in its arguments: details.next is left out, the message still names the call", async () => {
    const { payload } = await callJson(agent.client, "agent_tools_notes_create_note", { title: SECRET, body: "b" });
    assert.equal(payload.error?.code, "UNKNOWN_FACADE_TOOL", JSON.stringify(payload));
    const text = JSON.stringify(payload);
    assert.ok(!showsPartOfSecret(text), text);
    assert.match(String(payload.error?.details?.next), /^\(left out: /);
    assert.match(payload.error?.message ?? "", /call agent_tools_notes_call with toolName 'create_note'/);
  });

  it("a tool name with a token sent to a plugin's _call: the error's target and message show none of it", async () => {
    const { payload } = await callJson(agent.client, "agent_tools_notes_call", { toolName: `${"t".repeat(72)}${SECRET}` });
    assert.equal(payload.error?.code, "UNKNOWN_TOOL", JSON.stringify(payload));
    const text = JSON.stringify(payload);
    assert.ok(!showsPartOfSecret(text), text);
  });
});
