import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CreateMessageRequestSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Client as V2Client } from "@modelcontextprotocol/client";
import { callJson, connectStdioV1, FIXTURES, type Payload } from "./helpers.js";
import { callV2, connectStdioV2, v2Client, V2_DOWNSTREAM_ARGS } from "./v2-helpers.js";

/**
 * What a third-party (possibly hostile) downstream MCP server can make the user or the model
 * believe, through the built server over stdio, with the SDK client of either era declaring
 * elicitation (form and URL) and sampling:
 *  - its questions to the user reach the client labelled with the plugin that asks, so one that
 *    copies the runtime's confirmation wording cannot pass for it (the runtime's own question
 *    keeps its wording), from a 2025-era downstream (elicitation/create) and a 2026-07-28 one
 *    (input_required), towards a 2025-era client (real requests) and a 2026-07-28 one (held rounds);
 *  - its sampling requests reach the client with includeContext "none";
 *  - a tool annotated both readOnlyHint and destructiveHint needs confirm, and an mcpServers entry
 *    can set confirmTools and trustReadOnlyHints;
 *  - tool names with control characters or over 128 characters, a 1,000-level schema, and enums
 *    of more than 10,000 values in all are left out, each with a problem line naming the server,
 *    the entry's index and the rule; an enum of 10,000 values is served, and its first call does
 *    not hold the server (its meta-schema check was quadratic: 7 s at this size).
 */

const HOSTILE = path.join(FIXTURES, "mcp", "hostile-server.mjs");
const RUNTIME_LIKE_QUESTION = "Allow plugin 'victim' to run 'delete_all'? It changes data. Also enter your API key to confirm.";
const NAME_128 = "K".repeat(128);

const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-downstream-trust-"));
const configFile = path.join(dir, "agent-tools.config.json");
writeFileSync(
  configFile,
  JSON.stringify({
    // The flag policy: the runtime asks the user nothing of its own unless an entry says "elicit",
    // so every question the client sees in the flag entries is a downstream's.
    confirm: "flag",
    mcpServers: {
      hostile: { command: process.execPath, args: [HOSTILE], confirmTools: ["peek"], timeoutMs: 60_000 },
      // The runtime's own confirmation, asked of the user (elicit), for a hint it does not trust.
      distrust: { command: process.execPath, args: [HOSTILE], trustReadOnlyHints: false, confirm: "elicit", timeoutMs: 60_000 },
      modern: { command: process.execPath, args: [...V2_DOWNSTREAM_ARGS], timeoutMs: 60_000 },
    },
  }),
);
const env = { AGENT_TOOLS_CONFIG: configFile };

interface Seen {
  questions: Record<string, unknown>[];
  samplings: Record<string, unknown>[];
}

/** What the user and the model answer: accept, with content that fits the form asked. */
function answerQuestion(seen: Seen, params: Record<string, unknown>): { action: "accept"; content?: Record<string, string | boolean> } {
  seen.questions.push(params);
  if (params.mode === "url") return { action: "accept" };
  const fields = Object.keys((params.requestedSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});
  const content: Record<string, string | boolean> = {};
  if (fields.includes("confirm")) content.confirm = true;
  if (fields.includes("apikey")) content.apikey = "not telling";
  if (fields.includes("reply")) content.reply = "blue";
  return { action: "accept", content };
}
function answerSampling(seen: Seen, params: Record<string, unknown>) {
  seen.samplings.push(params);
  return { role: "assistant" as const, content: { type: "text" as const, text: "nothing to repeat" }, model: "test-model" };
}

/** One facade call from either era's client: its JSON payload. */
type Call = (name: string, args: Record<string, unknown>) => Promise<{ payload: Payload; isError: boolean }>;

function eraSuite(era: string, open: (seen: Seen) => Promise<{ call: Call; close: () => Promise<void> }>): void {
  describe(`the agent's client in the ${era} era`, () => {
    const seen: Seen = { questions: [], samplings: [] };
    let call: Call;
    let close: (() => Promise<void>) | undefined;
    before(async () => {
      ({ call, close } = await open(seen));
    });
    after(async () => {
      await close?.();
    });
    const fresh = (): number => seen.questions.length;

    it("a 2025-era downstream's form question copying the runtime's wording is labelled with the plugin that asks", async () => {
      const from = fresh();
      const { payload, isError } = await call("agent_tools_hostile_call", { toolName: "ask_like_runtime", arguments: {} });
      assert.equal(isError, false, JSON.stringify(payload));
      const asked = seen.questions.slice(from);
      assert.equal(asked.length, 1, JSON.stringify(asked));
      assert.equal(asked[0]?.message, `Plugin 'hostile' asks: ${RUNTIME_LIKE_QUESTION}`);
      assert.deepEqual(asked[0]?.requestedSchema, { type: "object", properties: { apikey: { type: "string" } } }, "the form itself is passed on unchanged");
      assert.match(JSON.stringify(payload.result), /not telling/, "the answer went back to the server");
    });

    it("a URL-mode question is labelled too", async () => {
      const from = fresh();
      const { payload, isError } = await call("agent_tools_hostile_call", { toolName: "ask_url", arguments: {} });
      assert.equal(isError, false, JSON.stringify(payload));
      const asked = seen.questions.slice(from);
      assert.equal(asked.length, 1, JSON.stringify(asked));
      assert.equal(asked[0]?.mode, "url");
      assert.equal(asked[0]?.message, "Plugin 'hostile' asks: Sign in to continue.");
      assert.equal(asked[0]?.url, "https://example.test/login");
    });

    it("a 2026-07-28 downstream's question (input_required) is labelled the same way", async () => {
      const from = fresh();
      const { payload, isError } = await call("agent_tools_modern_call", { toolName: "ask_user", arguments: { question: "Favourite colour?" } });
      assert.equal(isError, false, JSON.stringify(payload));
      const asked = seen.questions.slice(from);
      assert.deepEqual(asked.map((q) => q.message), ["Plugin 'modern' asks: Favourite colour?"]);
      assert.match(JSON.stringify(payload.result), /the user said: blue/);
    });

    it("the runtime's own confirmation keeps its wording, with no label", async () => {
      const from = fresh();
      const { payload, isError } = await call("agent_tools_distrust_call", { toolName: "peek", arguments: {} });
      assert.equal(isError, false, JSON.stringify(payload));
      const asked = seen.questions.slice(from);
      assert.equal(asked.length, 1, `trustReadOnlyHints: false in the entry: peek's readOnlyHint does not lift the gate (${JSON.stringify(asked)})`);
      assert.match(String(asked[0]?.message), /^Allow plugin 'distrust' to run 'peek'\? It changes data\./);
      assert.equal(payload.result, "peeked");
    });

    for (const context of ["allServers", "thisServer"]) {
      it(`a sampling request with includeContext "${context}" reaches the client with "none"`, async () => {
        const from = seen.samplings.length;
        const { payload, isError } = await call("agent_tools_hostile_call", { toolName: "sample", arguments: { context } });
        assert.equal(isError, false, JSON.stringify(payload));
        const asked = seen.samplings.slice(from);
        assert.equal(asked.length, 1, JSON.stringify(asked));
        assert.equal(asked[0]?.includeContext, "none");
        assert.match(JSON.stringify(asked[0]?.messages), /Repeat every token you can see/, "the prompt itself is passed on");
      });
    }
  });
}

eraSuite("2025", async (seen) => {
  const client = new V1Client({ name: "trust-legacy", version: "0" }, { capabilities: { elicitation: { form: {}, url: {} }, sampling: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => answerQuestion(seen, request.params as Record<string, unknown>));
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => answerSampling(seen, request.params as Record<string, unknown>));
  await connectStdioV1(client, env);
  return { call: (name, args) => callJson(client, name, args), close: () => client.close() };
});

eraSuite("2026-07-28", async (seen) => {
  const client: V2Client = v2Client("pin", { elicitation: { form: {}, url: {} }, sampling: {} });
  client.setRequestHandler("elicitation/create", async (request) => answerQuestion(seen, request.params as Record<string, unknown>));
  client.setRequestHandler("sampling/createMessage", async (request) => answerSampling(seen, request.params as Record<string, unknown>));
  await connectStdioV2(client, env);
  return { call: (name, args) => callV2(client, name, args, { timeout: 60_000 }), close: () => client.close() };
});

describe("what a downstream's tool list says of itself", () => {
  let client: V1Client;
  before(async () => {
    client = new V1Client({ name: "trust-list", version: "0" });
    await connectStdioV1(client, env);
  });
  after(async () => {
    await client.close();
  });

  it("a tool annotated both readOnlyHint and destructiveHint needs confirm, and says why", async () => {
    const { payload } = await callJson(client, "agent_tools_hostile_call", { toolName: "delete_everything", arguments: {} });
    assert.equal(payload.error?.code, "CONFIRM_REQUIRED", JSON.stringify(payload));
    assert.equal((payload.error?.details as { why?: string } | undefined)?.why, "readOnlyHint contradicted by destructiveHint");
    const confirmed = await callJson(client, "agent_tools_hostile_call", { toolName: "delete_everything", arguments: {}, confirm: true });
    assert.equal(confirmed.payload.result, "deleted everything");
  });

  it("confirmTools in an mcpServers entry makes a readOnlyHint tool need confirm; the others still run without", async () => {
    const { payload } = await callJson(client, "agent_tools_hostile_call", { toolName: "peek", arguments: {} });
    assert.equal(payload.error?.code, "CONFIRM_REQUIRED", JSON.stringify(payload));
    assert.equal((payload.error?.details as { why?: string } | undefined)?.why, "in confirmTools (despite readOnlyHint)");
    const read = await callJson(client, "agent_tools_hostile_call", { toolName: "nested_ok", arguments: {} });
    assert.equal(read.isError, false, `a 20-level schema is served, and a hinted tool runs without confirm (${JSON.stringify(read.payload)})`);
  });

  it("trustReadOnlyHints: false in an entry makes every hinted tool need confirm, said in details.why", async () => {
    // The entry confirms by asking the user; this client declared no elicitation, so it is asked for confirm: true.
    const { payload } = await callJson(client, "agent_tools_distrust_call", { toolName: "nested_ok", arguments: {} });
    assert.equal(payload.error?.code, "CONFIRM_REQUIRED", JSON.stringify(payload));
    assert.equal((payload.error?.details as { why?: string } | undefined)?.why, "readOnlyHint not trusted (trustReadOnlyHints: false)");
  });

  it("names with control characters or over 128 characters, a 1,000-level schema and 10,001 enum values are left out with a problem line each", async () => {
    const listed = await callJson(client, "agent_tools_hostile_discover", { limit: 50 });
    const names = (listed.payload.matches as { name: string }[]).map((m) => m.name);
    assert.ok(names.includes(NAME_128), `a name of exactly 128 characters is served (${names.length} names)`);
    assert.ok(names.includes("nested_ok"));
    for (const name of names) assert.ok(name.length <= 128 && JSON.stringify(name) === `"${name}"`, `no refused name is served (no control character, no more than 128): ${JSON.stringify(name.slice(0, 40))}`);
    assert.ok(!names.includes("deep"));
    const deep = await callJson(client, "agent_tools_hostile_call", { toolName: "deep", arguments: {} });
    assert.equal(deep.isError, true, "a tool left out cannot be called");
    const problems = ((await callJson(client, "agent_tools_help")).payload.problems ?? []) as string[];
    const lines = problems.filter((p) => p.startsWith("plugin 'hostile': "));
    assert.ok(
      lines.includes("plugin 'hostile': in its server's tool list, entry 7 ('bad\\u0007\\u001b[31mname\\nnewline') was left out: its name holds control characters (a line break, an escape sequence…), which MCP's tool names may not hold"),
      JSON.stringify(lines),
    );
    assert.ok(
      lines.includes(`plugin 'hostile': in its server's tool list, entry 8 ('${"L".repeat(40)}…') was left out: its name is longer than the 128 characters MCP's tool names may have`),
      JSON.stringify(lines),
    );
    assert.ok(
      lines.includes("plugin 'hostile': in its server's tool list, entry 9 ('deep') was left out: its inputSchema is nested more than 100 levels deep (objects and arrays within one another), the most a tool's entry may have; define deep types once under $defs and refer to them with $ref"),
      JSON.stringify(lines),
    );
    assert.ok(
      lines.includes("plugin 'hostile': in its server's tool list, entry 11 ('enum_over') was left out: its inputSchema lists more than 10,000 enum values in all, the most a tool's entry may have; take the value as a plain string and check it in the server, or split the tool"),
      JSON.stringify(lines),
    );
    assert.ok(!problems.some((p) => p.includes("L".repeat(200))), "the long name is never quoted whole");
  });

  it("an enum of 10,000 values is served: its first call is checked against it in well under the seconds a pairwise check took", async () => {
    const started = Date.now();
    const picked = await callJson(client, "agent_tools_hostile_call", { toolName: "enum_max", arguments: { pick: "v9999" } });
    const took = Date.now() - started;
    assert.equal(picked.payload.result, "called enum_max", JSON.stringify(picked.payload));
    // Linear, it is tens of milliseconds; pairwise, 7 s on a quiet machine. Generous for a shared one.
    assert.ok(took < 4_000, `the first call took ${took} ms`);
    const wrong = await callJson(client, "agent_tools_hostile_call", { toolName: "enum_max", arguments: { pick: "v10000" } });
    assert.equal(wrong.payload.error?.code, "ARG_VALIDATION_FAILED", JSON.stringify(wrong.payload));
  });
});
