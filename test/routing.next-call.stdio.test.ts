import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { callJson, connect, PLUGINS, stdioForSuite, writePlugin, type Connected } from "./helpers.js";

// A plugin's tool named where a facade tool goes, or a tool sent to `_run_skill` of a plugin
// without skills: UNKNOWN_FACADE_TOOL says the one call to make, and `details.next`, made as it
// is, runs. Before, `details.tools` led first to other plugins' `_run_skill` tools.

type Next = { tool: string; arguments: Record<string, unknown> };

describe("UNKNOWN_FACADE_TOOL leads to the call that runs the tool", () => {
  const agent = stdioForSuite();

  it("agent_tools_notes_get_note (plugin and tool merged) names agent_tools_notes_call with toolName filled in, and that call runs", async () => {
    const { payload } = await callJson(agent.client, "agent_tools_notes_get_note", { id: "n1" });
    assert.equal(payload.error?.code, "UNKNOWN_FACADE_TOOL");
    assert.match(payload.error?.message ?? "", /To run tool 'get_note' of plugin 'notes', call agent_tools_notes_call with toolName 'get_note'/);
    const next = payload.error?.details?.next as Next;
    assert.deepEqual(next, { tool: "agent_tools_notes_call", arguments: { toolName: "get_note", arguments: { id: "n1" } } });
    assert.equal((payload.error?.details?.tools as string[])[0], "agent_tools_notes_call");
    const followed = await callJson(agent.client, next.tool, next.arguments);
    assert.equal(followed.isError, false, JSON.stringify(followed.payload));
    assert.equal((followed.payload.result as { id: string }).id, "n1");
  });

  it("a plugin's tool named bare as the facade tool (get_note) names the plugin that has it and the call, which runs", async () => {
    // Looked up in catalogs in memory only: a call lists notes' first.
    assert.equal((await callJson(agent.client, "agent_tools_notes_call", { toolName: "list_notes" })).isError, false);
    const { payload } = await callJson(agent.client, "get_note", { id: "n1" });
    assert.equal(payload.error?.code, "UNKNOWN_FACADE_TOOL");
    assert.match(payload.error?.message ?? "", /^this server has no tool 'get_note' \('get_note' is a tool of plugin 'notes', not a facade tool\); nothing was run\. To run tool 'get_note' of plugin 'notes', call agent_tools_notes_call with toolName 'get_note'/);
    const next = payload.error?.details?.next as Next;
    assert.deepEqual(next, { tool: "agent_tools_notes_call", arguments: { toolName: "get_note", arguments: { id: "n1" } } });
    const followed = await callJson(agent.client, next.tool, next.arguments);
    assert.equal(followed.isError, false, JSON.stringify(followed.payload));
    assert.equal((followed.payload.result as { id: string }).id, "n1");
    // A name no plugin's tool has keeps the nearest facade names only.
    const none = await callJson(agent.client, "get_widget", { id: "n1" });
    assert.equal(none.payload.error?.code, "UNKNOWN_FACADE_TOOL");
    assert.equal(none.payload.error?.details?.next, undefined);
  });

  it("arguments sent inside `arguments` are carried into next as they are", async () => {
    const { payload } = await callJson(agent.client, "notes_search_notes", { arguments: { text: "milk" } });
    assert.deepEqual(payload.error?.details?.next, { tool: "agent_tools_notes_call", arguments: { toolName: "search_notes", arguments: { text: "milk" } } });
  });
});

describe("a tool sent to _run_skill of a plugin without skills", () => {
  let dir: string;
  let agent: Connected;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "routing-next-"));
    const notes = path.join(PLUGINS, "agent-tools-plugin-notes");
    const manifest = JSON.parse(readFileSync(path.join(notes, "plugin.json"), "utf8")) as Record<string, unknown>;
    delete manifest.skills;
    writePlugin(path.join(dir, "agent-tools-plugin-jotter"), { ...manifest, name: "jotter", prefix: "jotter" }, { "adapter.mjs": readFileSync(path.join(notes, "adapter.mjs"), "utf8") });
    agent = await connect(dir);
  });
  after(async () => {
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("points at that plugin's _call first, with toolName filled in, and the call runs", async () => {
    const { payload } = await callJson(agent.client, "agent_tools_jotter_run_skill", { skill: "get_note", arguments: { id: "n2" } });
    assert.equal(payload.error?.code, "UNKNOWN_FACADE_TOOL");
    assert.match(payload.error?.message ?? "", /\(plugin 'jotter' has no skills\); nothing was run\. To run tool 'get_note' of plugin 'jotter', call agent_tools_jotter_call/);
    assert.equal((payload.error?.details?.tools as string[])[0], "agent_tools_jotter_call");
    const next = payload.error?.details?.next as Next;
    const followed = await callJson(agent.client, next.tool, next.arguments);
    assert.equal(followed.isError, false, JSON.stringify(followed.payload));
    assert.equal((followed.payload.result as { id: string }).id, "n2");
  });
});
