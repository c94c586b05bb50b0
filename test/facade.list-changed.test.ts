import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { callJson, connect, type Connected, type Payload } from "./helpers.js";
import { httpClient, startHttp, type RunningHttp } from "./http-helpers.js";
import { STDIO_FIXTURE } from "./fixtures/mcp/support.js";
import { callV2, connectHttpV2, connectStdioV2, v2Client } from "./v2-helpers.js";
import { until } from "./wait.js";

/**
 * `notifications/tools/list_changed` says that *this server's* tools/list changed (MCP), so a
 * client lists again for it. The facade's list shows a plugin's _discover/_call, not its tools:
 * a downstream that changes its tools changes the facade's list only where a description says
 * something of them (an mcpServers entry without a description is described from its tools: "7
 * tools on …"). Real processes: the built server over stdio and HTTP, in both eras, with two
 * fixture downstreams that add a tool on `add_tool` (and announce it): `plain`, described in the
 * config (its facade tools never change), and `counted`, undescribed (its _discover description
 * counts its tools).
 */

function fleetConfig(dir: string): string {
  const config = path.join(dir, "agent-tools.config.json");
  const server = { command: process.execPath, args: [STDIO_FIXTURE], readonlyTools: ["add_tool"] };
  writeFileSync(config, JSON.stringify({ mcpServers: { plain: { ...server, description: "A fixture server whose tools change at run time." }, counted: server } }));
  return config;
}

/** One client of the facade, whatever its transport and era. */
interface Observer {
  where: string;
  /** The tools/list answer, as JSON text. */
  list(): Promise<string>;
  call(tool: string, args: Record<string, unknown>): Promise<Payload>;
  /** How many tools/list_changed notices it has received. */
  notices(): number;
}

/** A notice that should not come would come within this (a check for absence can only pass wrongly, never flake). */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 750));

/** Add a tool to plugin `prefix`'s downstream and wait until the runtime has its new list (search finds the tool). */
async function addTool(client: Observer, prefix: string, name: string): Promise<void> {
  const added = await client.call(`agent_tools_${prefix}_call`, { toolName: "add_tool", arguments: { name } });
  assert.match(String(added.result), new RegExp(`added ${name}`), `${client.where}: ${JSON.stringify(added)}`);
  await until(async () => {
    const found = await client.call("agent_tools_search", { query: name, plugin: prefix });
    return ((found.hits ?? []) as Array<{ name: string }>).some((hit) => hit.name === name);
  }, `${client.where}: search to find ${name} once ${prefix} is listed again`);
}

const countedDescription = (listed: string): string => (JSON.parse(listed) as Array<{ name: string; description: string }>).find((t) => t.name === "agent_tools_counted_discover")?.description ?? "";

/**
 * The scenario every client goes through: downstream changes behind a plugin whose facade tools
 * stay the same tell it nothing; a change that rewrites a listed description tells it once.
 * `clients` are all connected to the same server; the first one makes the calls.
 */
async function changesReachOnlyWhenTheListChanges(clients: Observer[], stderr: () => string): Promise<void> {
  const first = await Promise.all(clients.map((c) => c.list()));
  const [caller] = clients as [Observer];
  assert.match(countedDescription(first[0]!), /\b7 tools\b/, `counted is described from its 7 tools: ${countedDescription(first[0]!)}`);
  for (let i = 1; i <= 4; i++) await addTool(caller, "plain", `quiet_tool_${i}`);
  await settle();
  for (const [n, client] of clients.entries()) {
    assert.equal(client.notices(), 0, `${client.where}: no tools/list_changed for downstream changes that leave the facade's list as it was`);
    assert.equal(await client.list(), first[n], `${client.where}: the facade's tools/list is unchanged`);
  }
  // The runtime still says the plugin's list changed, once: the three after it, within the minute, are counted.
  assert.equal(stderr().match(/plugin 'plain' changed its tool list/g)?.length, 1, stderr());

  await addTool(caller, "counted", "loud_tool");
  for (const client of clients) await until(() => client.notices() > 0, `${client.where}: the notice of counted's new description`);
  await settle();
  for (const [n, client] of clients.entries()) {
    assert.equal(client.notices(), 1, `${client.where}: one tools/list_changed for one change of its list`);
    const now = await client.list();
    assert.notEqual(now, first[n], `${client.where}: the list it is told of did change`);
    assert.match(countedDescription(now), /\b8 tools\b/, `${client.where}: ${countedDescription(now)}`);
  }
}

describe("tools/list_changed over stdio: only when the client's own list changed", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-list-changed-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("a 2025-era connection", async () => {
    const server: Connected = await connect(dir, { AGENT_TOOLS_CONFIG: fleetConfig(dir), AGENT_TOOLS_SEARCH_ENGINE: "bm25f" });
    try {
      let notices = 0;
      server.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (notices += 1));
      const client: Observer = {
        where: "stdio 2025",
        list: async () => JSON.stringify((await server.client.listTools()).tools),
        call: async (tool, args) => (await callJson(server.client, tool, args)).payload,
        notices: () => notices,
      };
      await changesReachOnlyWhenTheListChanges([client], server.stderr);
    } finally {
      await server.close();
    }
  });

  it("a 2026-07-28 connection listening on subscriptions/listen", async () => {
    const { client: v2, stderr } = await connectStdioV2(v2Client("pin"), { AGENT_TOOLS_PLUGINS_DIR: dir, AGENT_TOOLS_CONFIG: fleetConfig(dir), AGENT_TOOLS_SEARCH_ENGINE: "bm25f" }, dir);
    try {
      let notices = 0;
      v2.setNotificationHandler("notifications/tools/list_changed", () => void (notices += 1));
      const listening = await v2.listen({ toolsListChanged: true });
      assert.equal(listening.honoredFilter.toolsListChanged, true);
      const client: Observer = {
        where: "stdio 2026-07-28",
        list: async () => JSON.stringify((await v2.listTools(undefined, { cacheMode: "bypass" })).tools),
        call: async (tool, args) => (await callV2(v2, tool, args)).payload,
        notices: () => notices,
      };
      await changesReachOnlyWhenTheListChanges([client], stderr);
      await listening.close();
    } finally {
      await v2.close();
    }
  });
});

describe("tools/list_changed over HTTP: only when the client's own list changed", () => {
  let dir: string;
  let http: RunningHttp;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-list-changed-http-"));
    http = await startHttp({ AGENT_TOOLS_CONFIG: fleetConfig(dir), AGENT_TOOLS_PLUGINS_DIR: dir, AGENT_TOOLS_SEARCH_ENGINE: "bm25f" });
  });
  after(async () => {
    await http.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a 2025-era session and a 2026-07-28 caller listening, both told once, of the change that rewrote a description", async () => {
    const legacy = (await httpClient(http.url)).client;
    const modern = await connectHttpV2(v2Client("pin"), http.url);
    try {
      let legacyNotices = 0;
      let modernNotices = 0;
      legacy.setNotificationHandler(ToolListChangedNotificationSchema, () => void (legacyNotices += 1));
      modern.setNotificationHandler("notifications/tools/list_changed", () => void (modernNotices += 1));
      // The modern caller lists before it listens, as a client does: the list it listens for changes of.
      const modernClient: Observer = {
        where: "HTTP 2026-07-28",
        list: async () => JSON.stringify((await modern.listTools(undefined, { cacheMode: "bypass" })).tools),
        call: async (tool, args) => (await callV2(modern, tool, args)).payload,
        notices: () => modernNotices,
      };
      const legacyClient: Observer = {
        where: "HTTP 2025 session",
        list: async () => JSON.stringify((await legacy.listTools()).tools),
        call: async (tool, args) => (await callJson(legacy, tool, args)).payload,
        notices: () => legacyNotices,
      };
      await modernClient.list();
      const listening = await modern.listen({ toolsListChanged: true });
      assert.equal(listening.honoredFilter.toolsListChanged, true);
      await changesReachOnlyWhenTheListChanges([legacyClient, modernClient], http.stderr);
      await listening.close();
    } finally {
      await legacy.close();
      await modern.close();
    }
  });
});
