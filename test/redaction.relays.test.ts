import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CreateMessageRequestSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { connectStdioV1, ROOT, writePlugin } from "./helpers.js";
import { connectStdioV2, v2Client } from "./v2-helpers.js";

/**
 * What a downstream server sends during a call is masked like its result: a careless server
 * that says its own credential in a progress message, a question for the user (form or URL) or a
 * request for the client's model must not hand it to the agent's client (it once did: only log
 * messages were masked). Both eras of the agent's client: 2025 (real requests mid-call) and
 * 2026-07-28 (input_required rounds).
 */

const SECRET = "tk-teller-9f3a77c1e2";
const TELLER = path.join(ROOT, "test", "fixtures", "v2", "secret-teller.mjs");
const dir = mkdtempSync(path.join(tmpdir(), "redaction-relays-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const pluginsDir = path.join(dir, "plugins");
writePlugin(path.join(pluginsDir, "agent-tools-plugin-tl"), {
  name: "tl",
  prefix: "tl",
  description: "A downstream that says its credential mid-call.",
  adapter: { kind: "mcp", command: process.execPath, args: [TELLER], env: { TELLER_TOKEN: "${HOST_TELLER_TOKEN}" }, timeoutMs: 30_000 },
});
const env = { AGENT_TOOLS_PLUGINS_DIR: pluginsDir, HOST_TELLER_TOKEN: SECRET };
const call = (toolName: string) => ({ name: "agent_tools_tl_call", arguments: { toolName, arguments: {} } });
const TOOLS = ["tell_progress", "tell_question", "tell_url", "tell_sampling"];

/** Everything the agent's client was sent, as JSON. */
function recorder(): { seen: string[]; all: () => string } {
  const seen: string[] = [];
  return { seen, all: () => seen.join("\n") };
}

describe("a downstream's mid-call messages reach the agent's client masked", () => {
  it("a 2025-era client: progress, form and URL questions, sampling requests", async () => {
    const { seen, all } = recorder();
    const client = new V1Client({ name: "relay-redaction", version: "0" }, { capabilities: { elicitation: { form: {}, url: {} }, sampling: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => (seen.push(JSON.stringify(request.params)), { action: "decline" as const }));
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => (seen.push(JSON.stringify(request.params)), { role: "assistant" as const, content: { type: "text" as const, text: "ok" }, model: "m" }));
    await connectStdioV1(client, env);
    try {
      for (const tool of TOOLS) {
        const result = await client.callTool(call(tool), undefined, { onprogress: (p) => void seen.push(JSON.stringify(p)), timeout: 30_000 });
        seen.push(JSON.stringify(result));
      }
    } finally {
      await client.close();
    }
    assert.ok(all().includes("[redacted]"), all());
    assert.ok(!all().includes(SECRET), `the credential reached the client:\n${all()}`);
    assert.equal(seen.filter((s) => s.includes("[redacted]")).length >= 4, true, all());
  });

  it("a 2026-07-28 client: the same, as input_required rounds", async () => {
    const { seen, all } = recorder();
    const client = v2Client("pin", { elicitation: { form: {}, url: {} }, sampling: {} });
    client.setRequestHandler("elicitation/create", async (request) => (seen.push(JSON.stringify(request.params)), { action: "decline" as const }));
    client.setRequestHandler("sampling/createMessage", async (request) => (seen.push(JSON.stringify(request.params)), { role: "assistant" as const, content: { type: "text" as const, text: "ok" }, model: "m" }));
    await connectStdioV2(client, env);
    try {
      for (const tool of TOOLS) {
        const result = await client.callTool(call(tool), { onprogress: (p) => void seen.push(JSON.stringify(p)), timeout: 30_000 });
        seen.push(JSON.stringify(result));
      }
    } finally {
      await client.close();
    }
    assert.ok(all().includes("[redacted]"), all());
    assert.ok(!all().includes(SECRET), `the credential reached the client:\n${all()}`);
  });
});
