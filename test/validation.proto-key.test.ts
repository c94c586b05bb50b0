import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { callJson, stdioForSuite } from "./helpers.js";

/**
 * A `__proto__` key in the arguments of `_call`. JSON.parse makes it an own property (it does not
 * set the object's prototype), and every step must keep it so: copied by assignment anywhere on
 * the way (a repair, a default), it would become the prototype, its fields would pass `required`
 * as inherited ones, and `additionalProperties: false` would no longer see it. The built server
 * over stdio with the SDK client (which sends the own key as JSON), against the notes fixture's
 * create_note (required title and body, additionalProperties false).
 */

/** Each form smuggles another title: the loop breaker would stop the same failing call sent again. */
const smuggled = (n: number): string => `{"__proto__": {"title": "Smuggled ${n}", "body": "via the prototype"}}`;

interface Refusal {
  ok: boolean;
  error: { code: string; message: string; details?: { errors?: Array<{ path: string; message: string }> } };
}

describe("_call: a __proto__ key in the arguments", () => {
  const server = stdioForSuite();

  async function notes(): Promise<string> {
    const listed = await callJson(server.client, "agent_tools_notes_call", { toolName: "list_notes" });
    return JSON.stringify(listed.payload);
  }

  it("is validated as the own property it is: refused naming the key, and it satisfies no required field", { timeout: 60_000 }, async () => {
    const before = await notes();
    // The arguments as an object (the own key survives JSON.stringify), as a JSON string, nested
    // one level too deep, and under the `args` alias: every repair path keeps it an own key.
    const forms: Array<[string, Record<string, unknown>]> = [
      ["object", { arguments: JSON.parse(smuggled(1)) as unknown }],
      ["JSON string", { arguments: smuggled(2) }],
      ["nested", { arguments: JSON.parse(`{"arguments": ${smuggled(3)}}`) as unknown }],
      ["args alias", { args: JSON.parse(smuggled(4)) as unknown }],
    ];
    for (const [form, extra] of forms) {
      const { payload, isError } = await callJson(server.client, "agent_tools_notes_call", { toolName: "create_note", confirm: true, ...extra });
      const refusal = payload as unknown as Refusal;
      assert.equal(isError, true, form);
      assert.equal(refusal.error.code, "ARG_VALIDATION_FAILED", `${form}: ${JSON.stringify(payload)}`);
      assert.match(refusal.error.message, /\/__proto__: unknown property '__proto__' is not allowed/, form);
      assert.match(refusal.error.message, /missing required property 'title'.*missing required property 'body'/, `${form}: the fields inside __proto__ do not count as given`);
    }
    // With the real fields given too, the key alone is refused.
    const mixed = await callJson(server.client, "agent_tools_notes_call", { toolName: "create_note", confirm: true, arguments: JSON.parse('{"title": "T", "body": "B", "__proto__": {"x": 1}}') as unknown });
    const paths = ((mixed.payload as unknown as Refusal).error.details?.errors ?? []).map((e) => e.path);
    assert.deepEqual(paths, ["/__proto__"]);
    assert.equal(await notes(), before, "no note was created");
  });

  it("at the top of the request it is no way to pass arguments or confirm", { timeout: 60_000 }, async () => {
    const before = await notes();
    const sent = await server.client.callTool({ name: "agent_tools_notes_call", arguments: JSON.parse('{"toolName": "create_note", "__proto__": {"arguments": {"title": "T", "body": "B"}, "confirm": true}}') as Record<string, unknown> });
    const text = (sent.content as Array<{ text: string }>)[0]?.text ?? "";
    assert.equal(sent.isError, true, text);
    assert.doesNotMatch(text, /"ok":true/);
    assert.equal(await notes(), before, "no note was created");
  });
});
