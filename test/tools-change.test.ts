import assert from "node:assert/strict";
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { callJson, connect, type Connected, type Payload } from "./helpers.js";
import { STDIO_FIXTURE } from "./fixtures/mcp/support.js";
import { until } from "./wait.js";

/**
 * src/runtime/tools-change.ts over real processes: the runtime's stdio server, an SDK client, and
 * the fixture MCP server as the downstream, which (with --notice-tools) can announce tools/list_changed without changing
 * anything (`announce`), add a tool (`add_tool`), count the listings it answered (`lists`), and
 * hold its listings until a file exists (`--hold-list`).
 */

interface Hit {
  name: string;
  plugin: string;
}

describe("a downstream's tools/list_changed", () => {
  let dir: string;
  let gate: string;
  let server: Connected;
  let notices = 0;
  /** A notice that should not come would come within this (a check for absence can only pass wrongly, never flake). */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-tools-change-"));
    gate = path.join(dir, "listings-may-answer");
    writeFileSync(gate, "");
    const config = path.join(dir, "agent-tools.config.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [STDIO_FIXTURE, "--notice-tools", "--hold-list", gate], readonlyTools: ["announce", "add_tool"] } } }));
    server = await connect(dir, { AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_LOG: "debug", AGENT_TOOLS_SEARCH_ENGINE: "bm25f" });
    server.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (notices += 1));
    // The client's first tools/list waits for this server (an mcpServers entry without a
    // description) to be listed and describes it from what it learnt: a list that already has
    // it, so no tools/list_changed follows.
    const { tools } = await server.client.listTools();
    assert.match(tools.find((t) => t.name === "agent_tools_fx_discover")?.description ?? "", /9 tools/, "described from its listing");
    await callJson(server.client, "agent_tools_fx_call", { toolName: "lists", arguments: {} });
    await settle();
    assert.equal(notices, 0, "nothing to correct in a list the client has just been given");
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (toolName: string, args: Record<string, unknown> = {}): Promise<Payload> => {
    const { payload, isError } = await callJson(server.client, "agent_tools_fx_call", { toolName, arguments: args });
    assert.equal(isError, false, JSON.stringify(payload));
    return payload;
  };
  const listings = async (): Promise<number> => Number((await call("lists")).result);
  const relistsDone = (): number => (server.stderr().match(/listed again after tools\/list_changed|changed its tool list/g) ?? []).length;

  it("a burst of notices that changes nothing: one listing more (two at most), and the client is not told", async () => {
    const before = await listings();
    const done = relistsDone();
    const told = notices;
    assert.match(String((await call("announce", { times: 5 })).result), /announced 5 times/);
    await until(() => relistsDone() > done, "the relisting's end on stderr");
    assert.match(server.stderr(), /plugin 'fx': listed again after tools\/list_changed; the same \d+ tools/);
    const after = await listings();
    await settle();
    // The first notice starts a listing; the others, arriving while it runs, ask for one more after it.
    assert.ok(after - before >= 1 && after - before <= 2, `listings for a burst of 5 notices: ${after - before}`);
    assert.equal(notices, told, `no tools/list_changed to the client for a list that did not change:\n${server.stderr()}`);
    assert.doesNotMatch(server.stderr(), /changed its tool list/);
  });

  it("search keeps a plugin's tools while its new list is being read; calls wait for it", async () => {
    const hits = async (query: string): Promise<Hit[]> => (await callJson(server.client, "agent_tools_search", { query })).payload.hits as Hit[];
    assert.ok((await hits("echo the text back")).some((h) => h.plugin === "fx" && h.name === "echo"));
    unlinkSync(gate); // listings now hang until the file is back
    const done = relistsDone();
    const told = notices;
    await call("add_tool", { name: "walrus_meter" });
    await until(() => /its server says its tool list changed/.test(server.stderr()), "the notice on stderr");
    // The relisting hangs: search answers from the entries it had.
    assert.ok((await hits("echo the text back")).some((h) => h.plugin === "fx" && h.name === "echo"), "the old entries are still found");
    // A call waits for the new list (it may name the tool just added) and goes through once it is in.
    const waiting = callJson(server.client, "agent_tools_fx_call", { toolName: "walrus_meter", arguments: {} });
    writeFileSync(gate, "");
    const answered = await waiting;
    assert.doesNotMatch(JSON.stringify(answered.payload), /UNKNOWN_TOOL/, "the added tool is known to the call");
    await until(() => relistsDone() > done && notices > told, "the change announced");
    await settle();
    assert.equal(notices, told + 1, "one tools/list_changed for one change (the new tool and the description it changes)");
    assert.ok((await hits("walrus meter")).some((h) => h.name === "walrus_meter"), "search has the new list when the client is told");
  });
});
