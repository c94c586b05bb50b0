import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { callJson, connectStdioV1, writePlugin } from "./helpers.js";

/**
 * A skill's `context.confirmed` (and the kit's `kit.confirmed`) says whether writes may run, over
 * stdio with the built server: the model's `confirm: true`, or a client that asks its user at the
 * first write (the model's confirm is not looked at then), so a skill that skips its writes unless
 * confirmed writes for such a client once the user says yes, and for no one else.
 */

const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-skill-confirmed-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const ADAPTER = `
let writes = 0;
export default function createAdapter() {
  return {
    async listTools() {
      return { tools: ["write_it", "count"].map((name) => ({ name, description: "tool " + name, inputSchema: { type: "object" } })) };
    },
    async call(name) {
      if (name === "write_it") return { wrote: ++writes };
      return { writes };
    },
  };
}
`;

// Skips its write unless the run may write; says what it saw before and after.
const SKILL = `import { skillContext } from "agent-tools-runtime/plugin";
export const meta = { description: "writes only when confirmed" };
export async function run(adapter, args, context) {
  const kit = skillContext(adapter, context);
  const before = { kit: kit.confirmed, context: context.confirmed };
  if (!kit.confirmed) return { skipped: true, before };
  const wrote = await kit.call("write_it", {});
  return { wrote, before, after: { kit: kit.confirmed, context: context.confirmed } };
}`;

const pluginsDir = path.join(dir, "plugins");
writePlugin(path.join(pluginsDir, "agent-tools-plugin-cf"), { name: "cf", prefix: "cf", description: "Confirmed skills.", adapter: "./adapter.mjs", readonlyTools: ["count"] }, { "adapter.mjs": ADAPTER, "skills/careful.mjs": SKILL });

const run = (client: V1Client, confirm?: boolean) => callJson(client, "agent_tools_cf_run_skill", { skill: "careful", arguments: {}, ...(confirm ? { confirm } : {}) });

describe("context.confirmed and kit.confirmed", () => {
  it("a client that cannot ask: false without confirm (the skill skips its write), true with confirm: true", async () => {
    const client = new V1Client({ name: "no-forms", version: "0.0.0" });
    await connectStdioV1(client, { AGENT_TOOLS_PLUGINS_DIR: pluginsDir });
    try {
      const skipped = await run(client);
      assert.equal(skipped.isError, false, JSON.stringify(skipped.payload));
      assert.deepEqual(skipped.payload.result, { skipped: true, before: { kit: false, context: false } });
      const confirmed = await run(client, true);
      assert.equal(confirmed.isError, false, JSON.stringify(confirmed.payload));
      assert.deepEqual(confirmed.payload.result, { wrote: { wrote: 1 }, before: { kit: true, context: true }, after: { kit: true, context: true } });
    } finally {
      await client.close();
    }
  });

  it("a client that asks its user: true from the start, the user is asked at the write, and the write is made once they accept", async () => {
    const client = new V1Client({ name: "forms", version: "0.0.0" }, { capabilities: { elicitation: {} } });
    let asked = 0;
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked++;
      return { action: "accept" as const, content: { confirm: true } };
    });
    await connectStdioV1(client, { AGENT_TOOLS_PLUGINS_DIR: pluginsDir });
    try {
      const answered = await run(client);
      assert.equal(answered.isError, false, JSON.stringify(answered.payload));
      assert.deepEqual(answered.payload.result, { wrote: { wrote: 1 }, before: { kit: true, context: true }, after: { kit: true, context: true } });
      assert.equal(asked, 1, "the user was asked once, at the write");
    } finally {
      await client.close();
    }
  });

  it("a client whose user declines: the skill's write is refused (CONFIRM_DECLINED) and nothing is written", async () => {
    const client = new V1Client({ name: "forms-no", version: "0.0.0" }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "decline" as const }));
    await connectStdioV1(client, { AGENT_TOOLS_PLUGINS_DIR: pluginsDir });
    try {
      const declined = await run(client);
      assert.equal(declined.isError, true);
      assert.equal(declined.payload.error?.code, "CONFIRM_DECLINED");
      const count = await callJson(client, "agent_tools_cf_call", { toolName: "count", arguments: {} });
      assert.deepEqual(count.payload.result, { writes: 0 });
    } finally {
      await client.close();
    }
  });
});
