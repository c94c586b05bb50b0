import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { ROOT, writePlugin } from "./helpers.js";
import type { Client } from "@modelcontextprotocol/client";
import { callV2, connectStdioV2, v2Client } from "./v2-helpers.js";
import { until } from "./wait.js";

/**
 * A 2026-07-28 downstream's tool list changes are heard: such a server sends tools/list_changed
 * only on a `subscriptions/listen` stream its client opened, so the runtime opens one for a modern
 * server that advertises tools.listChanged, and the plugin is listed again when it fires. Real
 * processes: the built stdio server, a v2 client, a modern-only v2 downstream that adds a tool.
 */

const CHANGING = path.join(ROOT, "test", "fixtures", "v2", "changing-tools.mjs");
const LISTEN_ENDING = path.join(ROOT, "test", "fixtures", "v2", "listen-ending.mjs");
const TTL_TOOLS = path.join(ROOT, "test", "fixtures", "v2", "ttl-tools.mjs");
const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-list-changes-"));
writePlugin(path.join(dir, "agent-tools-plugin-dyn"), {
  name: "dyn",
  prefix: "dyn",
  description: "A downstream whose tools change.",
  adapter: { kind: "mcp", command: process.execPath, args: [CHANGING], timeoutMs: 30_000 },
});
writePlugin(path.join(dir, "agent-tools-plugin-ending"), {
  name: "ending",
  prefix: "ending",
  description: "A downstream that ends its listen stream.",
  adapter: { kind: "mcp", command: process.execPath, args: [LISTEN_ENDING], timeoutMs: 30_000 },
});
writePlugin(path.join(dir, "agent-tools-plugin-refusing"), {
  name: "refusing",
  prefix: "refusing",
  description: "A downstream that refuses every listen stream.",
  adapter: { kind: "mcp", command: process.execPath, args: [LISTEN_ENDING], env: { LISTEN_MODE: "refuse" }, timeoutMs: 30_000 },
});
writePlugin(path.join(dir, "agent-tools-plugin-ttl"), {
  name: "ttl",
  prefix: "ttl",
  description: "A downstream whose list result states a lifetime.",
  adapter: { kind: "mcp", command: process.execPath, args: [TTL_TOOLS], timeoutMs: 30_000 },
});

writePlugin(path.join(dir, "agent-tools-plugin-ttlzero"), {
  name: "ttlzero",
  prefix: "ttlzero",
  description: "A downstream whose list result states ttlMs 0, as the SDK writes when its author gave no cache hint.",
  adapter: { kind: "mcp", command: process.execPath, args: [TTL_TOOLS], env: { TTL_MS: "0" }, timeoutMs: 30_000 },
});
/** The tests of a 300 ms lifetime lower the minimum re-list interval (30 s by default) to see it run out. */
const SHORT_LIFETIMES = { AGENT_TOOLS_MIN_LIST_LIFETIME_MS: "1" };

const cacheDir = path.join(dir, "cache");
const addedFile = path.join(dir, "ttlkept-added");
writePlugin(path.join(dir, "agent-tools-plugin-ttlkept"), {
  name: "ttlkept",
  prefix: "ttlkept",
  description: "A downstream whose list lifetime must outlive a restart.",
  adapter: { kind: "mcp", command: process.execPath, args: [TTL_TOOLS], env: { ADDED_FILE: addedFile }, timeoutMs: 30_000 },
});

/** The tool names a plugin's discover finds for a query. */
async function discovered(client: Client, prefix: string, query: string): Promise<string[]> {
  const found = await callV2(client, `agent_tools_${prefix}_discover`, { query });
  return ((found.payload.matches as { name: string }[] | undefined) ?? []).map((m) => m.name);
}

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

  it("is heard again after the server ends the listen stream: it listens again and reads the list, so a change made in the gap is found", async () => {
    const { client } = await connectStdioV2(v2Client("pin"), { AGENT_TOOLS_PLUGINS_DIR: dir, AGENT_TOOLS_CATALOG_CACHE: "off" });
    try {
      assert.ok(!(await discovered(client, "ending", "fresh tool")).includes("fresh_tool"), "before: no fresh_tool");
      // The listen stream opens right after connecting, without being awaited: wait for the server to have it.
      await until(async () => (await callV2(client, "agent_tools_ending_call", { toolName: "listen_count", arguments: {} })).payload.result === 1, "the first subscriptions/listen to arrive", 20_000, 100);
      const ended = await callV2(client, "agent_tools_ending_call", { toolName: "end_listen_and_add", arguments: {} });
      assert.equal(ended.isError, false, JSON.stringify(ended.payload));
      await until(async () => (await discovered(client, "ending", "fresh tool")).includes("fresh_tool"), "discover to list fresh_tool after the stream was reopened", 20_000, 100);
      const count = await callV2(client, "agent_tools_ending_call", { toolName: "listen_count", arguments: {} });
      assert.equal(count.payload.result, 2, "one reopening");
      const fresh = await callV2(client, "agent_tools_ending_call", { toolName: "fresh_tool", arguments: {} });
      assert.equal(fresh.payload.result, "fresh!");
    } finally {
      await client.close();
    }
  });

  it("is given up after a bounded number of reopenings when the server refuses every listen, with one warning naming the server", async () => {
    const { client, stderr } = await connectStdioV2(v2Client("pin"), { AGENT_TOOLS_PLUGINS_DIR: dir, AGENT_TOOLS_CATALOG_CACHE: "off" });
    const warnings = (): string[] => stderr().split("\n").filter((line) => line.includes("MCP server 'refusing'") && line.includes("no longer heard"));
    try {
      await discovered(client, "refusing", "anything");
      // 1 listen and 5 reopenings, about 8 s of waits in all: generous on a loaded machine.
      await until(() => warnings().length > 0, "the warning that listening was given up", 60_000, 200);
      const count = async (): Promise<unknown> => (await callV2(client, "agent_tools_refusing_call", { toolName: "listen_count", arguments: {} })).payload.result;
      assert.equal(await count(), 6, "the first listen and 5 reopenings, no more");
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(await count(), 6, "nothing more is asked after giving up");
      assert.equal(warnings().length, 1, stderr());
      assert.match(warnings()[0] ?? "", /this server does not keep listen streams/);
    } finally {
      await client.close();
    }
  });

  it("a list result's ttlMs is kept in the catalog cache: after a restart the stored list is used, and past its lifetime listed again on first use", async () => {
    const env = { AGENT_TOOLS_PLUGINS_DIR: dir, AGENT_TOOLS_CACHE_DIR: cacheDir, AGENT_TOOLS_CATALOG_CACHE: "on", ...SHORT_LIFETIMES };
    const entries = (): string[] => (existsSync(cacheDir) ? readdirSync(cacheDir, { recursive: true }).map(String).filter((name) => name.endsWith(".json")) : []);
    const stored = (): Array<{ prefix?: string; expiresAt?: unknown }> => entries().map((name) => JSON.parse(readFileSync(path.join(cacheDir, name), "utf8")) as { prefix?: string; expiresAt?: unknown });
    const first = await connectStdioV2(v2Client("pin"), env);
    try {
      assert.ok(!(await discovered(first.client, "ttlkept", "fresh tool")).includes("fresh_tool"), "first run: no fresh_tool");
      await until(() => stored().some((entry) => entry.prefix === "ttlkept"), "the ttlkept catalog to be stored", 20_000, 100);
      const entry = stored().find((candidate) => candidate.prefix === "ttlkept");
      assert.equal(typeof entry?.expiresAt, "number", `the stored entry carries when it goes stale: ${JSON.stringify(entry)}`);
    } finally {
      await first.client.close();
    }
    // Between the runs the server's tools changed, with no notice (and the same name and version).
    writeFileSync(addedFile, "");
    const second = await connectStdioV2(v2Client("pin"), env);
    try {
      // The stored list is past its 300 ms lifetime: a use lists it again in the background.
      await until(async () => (await discovered(second.client, "ttlkept", "fresh tool")).includes("fresh_tool"), "discover to list fresh_tool once the stored list's lifetime ran out", 20_000, 200);
    } finally {
      await second.client.close();
    }
  });

  it("a list result's ttlMs: past it the list is read again on the next use, so a tool the server added without a notice is found", async () => {
    const { client } = await connectStdioV2(v2Client("pin"), { AGENT_TOOLS_PLUGINS_DIR: dir, AGENT_TOOLS_CATALOG_CACHE: "off", ...SHORT_LIFETIMES });
    try {
      assert.ok(!(await discovered(client, "ttl", "fresh tool")).includes("fresh_tool"), "before: no fresh_tool");
      const added = await callV2(client, "agent_tools_ttl_call", { toolName: "add_silently", arguments: {} });
      assert.equal(added.isError, false, JSON.stringify(added.payload));
      // The server sent no notice: only the 300 ms lifetime makes the runtime list again (in the background, on a use).
      await until(async () => (await discovered(client, "ttl", "fresh tool")).includes("fresh_tool"), "discover to list fresh_tool once the list's ttlMs ran out", 20_000, 200);
      const fresh = await callV2(client, "agent_tools_ttl_call", { toolName: "fresh_tool", arguments: {} });
      assert.equal(fresh.payload.result, "fresh!");
    } finally {
      await client.close();
    }
  });

  it("ttlMs 0 (what the SDK writes without a cache hint) counts as the 30 s minimum: 30 calls list the tools about once, not once per call", async () => {
    const { client } = await connectStdioV2(v2Client("pin"), { AGENT_TOOLS_PLUGINS_DIR: dir, AGENT_TOOLS_CATALOG_CACHE: "off" });
    try {
      let count: unknown;
      for (let i = 0; i < 30; i++) {
        const answer = await callV2(client, "agent_tools_ttlzero_call", { toolName: "list_count", arguments: {} });
        assert.equal(answer.isError, false, JSON.stringify(answer.payload));
        count = answer.payload.result;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.ok(Number(count) >= 1 && Number(count) <= 2, `tools/list requests for 30 calls: ${String(count)}`);
    } finally {
      await client.close();
    }
  });
});
