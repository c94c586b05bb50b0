import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { ROOT, writePlugin } from "./helpers.js";
import { callV2, connectStdioV2, v2Client } from "./v2-helpers.js";
import { until } from "./wait.js";

/**
 * A 2026-07-28 downstream's tool list changes are heard: such a server sends tools/list_changed
 * only on a `subscriptions/listen` stream its client opened, so the runtime opens one for a modern
 * server that advertises tools.listChanged, and the plugin is listed again when it fires. Real
 * processes: the built stdio server, a v2 client, a modern-only v2 downstream that adds a tool.
 */

const CHANGING = path.join(ROOT, "test", "fixtures", "v2", "changing-tools.mjs");
const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-list-changes-"));
writePlugin(path.join(dir, "agent-tools-plugin-dyn"), {
  name: "dyn",
  prefix: "dyn",
  description: "A downstream whose tools change.",
  adapter: { kind: "mcp", command: process.execPath, args: [CHANGING], timeoutMs: 30_000 },
});

describe("a 2026-07-28 downstream's tools/list_changed", () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("reaches the runtime over subscriptions/listen: the added tool is found and called without a restart", async () => {
    const { client } = await connectStdioV2(v2Client("pin"), { AGENT_TOOLS_PLUGINS_DIR: dir, AGENT_TOOLS_CATALOG_CACHE: "off" });
    try {
      const names = async (): Promise<string[]> => {
        const found = await callV2(client, "agent_tools_dyn_discover", { query: "fresh tool" });
        return ((found.payload.matches as { name: string }[] | undefined) ?? []).map((m) => m.name);
      };
      assert.deepEqual(await names(), ["add_tool"], "before: one tool");
      const added = await callV2(client, "agent_tools_dyn_call", { toolName: "add_tool", arguments: {} });
      assert.equal(added.isError, false, JSON.stringify(added.payload));
      await until(async () => (await names()).includes("fresh_tool"), "discover to list fresh_tool after the downstream's list_changed", 20_000, 100);
      const fresh = await callV2(client, "agent_tools_dyn_call", { toolName: "fresh_tool", arguments: {} });
      assert.equal(fresh.isError, false, JSON.stringify(fresh.payload));
      assert.equal(fresh.payload.result, "fresh!");
    } finally {
      await client.close();
    }
  });
});
