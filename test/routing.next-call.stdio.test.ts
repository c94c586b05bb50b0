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

describe("a tool's name sent to _run_skill, or a skill's to _call: next is the same call redirected", () => {
  const agent = stdioForSuite();

  it("keeps the caller's arguments and top-level confirm; following next runs the write", async () => {
    const { payload } = await callJson(agent.client, "agent_tools_notes_run_skill", { skill: "create_note", arguments: { title: "t", body: "b" }, confirm: true });
    assert.equal(payload.error?.code, "UNKNOWN_SKILL");
    assert.match(payload.error?.message ?? "", /'create_note' is a tool of this plugin: call agent_tools_notes_call with toolName 'create_note'/);
    const next = payload.error?.details?.next as Next;
    assert.deepEqual(next, { tool: "agent_tools_notes_call", arguments: { toolName: "create_note", arguments: { title: "t", body: "b" }, confirm: true } });
    const followed = await callJson(agent.client, next.tool, next.arguments);
    assert.equal(followed.isError, false, JSON.stringify(followed.payload));
    assert.match(JSON.stringify(followed.payload.result), /"id":"n\d+"/);
  });

  it("a confirm given to one plugin's call is not carried to another plugin's tool of that name", async () => {
    const { payload } = await callJson(agent.client, "agent_tools_tracker_call", { toolName: "create_note", arguments: { title: "t", body: "b" }, confirm: true });
    assert.equal(payload.error?.code, "UNKNOWN_TOOL", JSON.stringify(payload));
    const next = payload.error?.details?.next as Next;
    assert.deepEqual(next, { tool: "agent_tools_notes_call", arguments: { toolName: "create_note", arguments: { title: "t", body: "b" } } });
    // Followed, it asks for the confirmation the notes plugin's write needs; nothing was written.
    const followed = await callJson(agent.client, next.tool, next.arguments);
    assert.equal(followed.payload.error?.code, "CONFIRM_REQUIRED", JSON.stringify(followed.payload));
  });

  it("a confirm sent with a bare tool name as the facade tool is not carried to the plugin the catalogs found", async () => {
    // Looked up in catalogs in memory only: list notes' first.
    assert.equal((await callJson(agent.client, "agent_tools_notes_call", { toolName: "list_notes" })).isError, false);
    const { payload } = await callJson(agent.client, "create_note", { title: "bare", body: "b", confirm: true });
    assert.equal(payload.error?.code, "UNKNOWN_FACADE_TOOL", JSON.stringify(payload));
    assert.match(payload.error?.message ?? "", /'create_note' is a tool of plugin 'notes', not a facade tool/);
    const next = payload.error?.details?.next as Next;
    assert.deepEqual(next, { tool: "agent_tools_notes_call", arguments: { toolName: "create_note", arguments: { title: "bare", body: "b" } } });
    // Followed, it asks for the confirmation the notes plugin's write needs; nothing was written.
    const followed = await callJson(agent.client, next.tool, next.arguments);
    assert.equal(followed.payload.error?.code, "CONFIRM_REQUIRED", JSON.stringify(followed.payload));
    const listed = await callJson(agent.client, "agent_tools_notes_call", { toolName: "list_notes" });
    assert.ok(!JSON.stringify(listed.payload.result).includes("bare"));
  });

  it("carries flattened arguments, and adds no confirm the caller did not send", async () => {
    const { payload } = await callJson(agent.client, "agent_tools_notes_run_skill", { skill: "search_notes", text: "milk" });
    assert.equal(payload.error?.code, "UNKNOWN_SKILL");
    const next = payload.error?.details?.next as Next;
    assert.deepEqual(next, { tool: "agent_tools_notes_call", arguments: { toolName: "search_notes", arguments: { text: "milk" } } });
    const followed = await callJson(agent.client, next.tool, next.arguments);
    assert.equal(followed.isError, false, JSON.stringify(followed.payload));
  });

  it("a skill's name sent to _call leads to _run_skill with the arguments sent, and that call runs", async () => {
    const { payload } = await callJson(agent.client, "agent_tools_notes_call", { toolName: "count", arguments: { tag: "home" } });
    assert.equal(payload.error?.code, "UNKNOWN_TOOL");
    const next = payload.error?.details?.next as Next;
    assert.deepEqual(next, { tool: "agent_tools_notes_run_skill", arguments: { skill: "count", arguments: { tag: "home" } } });
    const followed = await callJson(agent.client, next.tool, next.arguments);
    assert.equal(followed.isError, false, JSON.stringify(followed.payload));
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

  it("a write sent so with confirm: true beside its arguments keeps the confirm in next, and the call runs", async () => {
    const { payload } = await callJson(agent.client, "agent_tools_jotter_run_skill", { skill: "create_note", arguments: { title: "jotted", body: "b" }, confirm: true });
    assert.equal(payload.error?.code, "UNKNOWN_FACADE_TOOL");
    const next = payload.error?.details?.next as Next;
    assert.deepEqual(next, { tool: "agent_tools_jotter_call", arguments: { toolName: "create_note", arguments: { title: "jotted", body: "b" }, confirm: true } });
    const followed = await callJson(agent.client, next.tool, next.arguments);
    assert.equal(followed.isError, false, JSON.stringify(followed.payload));
    assert.equal(followed.payload.toolName, "create_note");
  });
});

// The call's `confirm` stays where the facade reads it: a top-level one (flattened among the
// arguments or beside `arguments`) is the call's, and `next` keeps it at the top level; one inside
// `arguments` was never honoured, and `next` does not make it so. Before, `next` moved a flattened
// confirm into the tool's arguments and dropped one beside `arguments`: followed, CONFIRM_REQUIRED.
describe("details.next keeps a top-level confirm at the top level (client without elicitation)", () => {
  const agent = stdioForSuite();
  const created = async (title: string) => JSON.stringify((await callJson(agent.client, "agent_tools_notes_call", { toolName: "list_notes" })).payload.result).includes(title);

  it("a flattened write with confirm: true (agent_tools_notes_create_note) leads to the _call with confirm at the top level, which runs", async () => {
    const { payload } = await callJson(agent.client, "agent_tools_notes_create_note", { title: "flat", body: "b", confirm: true });
    assert.equal(payload.error?.code, "UNKNOWN_FACADE_TOOL");
    const next = payload.error?.details?.next as Next;
    assert.deepEqual(next, { tool: "agent_tools_notes_call", arguments: { toolName: "create_note", arguments: { title: "flat", body: "b" }, confirm: true } });
    const followed = await callJson(agent.client, next.tool, next.arguments);
    assert.equal(followed.isError, false, JSON.stringify(followed.payload));
    assert.equal(followed.payload.toolName, "create_note");
    assert.equal(followed.payload.repairs, undefined, "nothing to repair in the call next holds");
    assert.ok(await created("flat"));
  });

  it("arguments with confirm: true beside them keeps that confirm in next, and the call runs", async () => {
    const { payload } = await callJson(agent.client, "agent_tools_notes_create_note", { arguments: { title: "beside", body: "b" }, confirm: true });
    const next = payload.error?.details?.next as Next;
    assert.deepEqual(next, { tool: "agent_tools_notes_call", arguments: { toolName: "create_note", arguments: { title: "beside", body: "b" }, confirm: true } });
    const followed = await callJson(agent.client, next.tool, next.arguments);
    assert.equal(followed.isError, false, JSON.stringify(followed.payload));
    assert.ok(await created("beside"));
  });

  it("a confirm inside arguments stays there in next, and is not honoured when followed (as it would not have been)", async () => {
    const { payload } = await callJson(agent.client, "agent_tools_notes_create_note", { arguments: { title: "inner", body: "b", confirm: true } });
    const next = payload.error?.details?.next as Next;
    assert.deepEqual(next, { tool: "agent_tools_notes_call", arguments: { toolName: "create_note", arguments: { title: "inner", body: "b", confirm: true } } });
    const followed = await callJson(agent.client, next.tool, next.arguments);
    assert.equal(followed.payload.error?.code, "CONFIRM_REQUIRED");
    assert.match(followed.payload.error?.message ?? "", /arguments\.confirm was not honoured/);
    assert.equal(await created("inner"), false);
  });

  it("a confirm that is not true is carried as sent, and the call followed says it is not honoured", async () => {
    const { payload } = await callJson(agent.client, "agent_tools_notes_create_note", { title: "yes-word", body: "b", confirm: "yes" });
    const next = payload.error?.details?.next as Next;
    assert.deepEqual(next.arguments, { toolName: "create_note", arguments: { title: "yes-word", body: "b" }, confirm: "yes" });
    const followed = await callJson(agent.client, next.tool, next.arguments);
    assert.equal(followed.payload.error?.code, "CONFIRM_REQUIRED");
    assert.equal(await created("yes-word"), false);
  });
});

describe("details.next keeps confirm in compact mode", () => {
  const agent = stdioForSuite(undefined, { AGENT_TOOLS_FACADE: "compact" });

  it("agent_tools_notes_create_note with confirm: true leads to agent_tools_call with plugin, toolName and confirm, which runs", async () => {
    const { payload } = await callJson(agent.client, "agent_tools_notes_create_note", { title: "compact", body: "b", confirm: true });
    assert.equal(payload.error?.code, "UNKNOWN_FACADE_TOOL");
    const next = payload.error?.details?.next as Next;
    assert.deepEqual(next, { tool: "agent_tools_call", arguments: { plugin: "notes", toolName: "create_note", arguments: { title: "compact", body: "b" }, confirm: true } });
    const followed = await callJson(agent.client, next.tool, next.arguments);
    assert.equal(followed.isError, false, JSON.stringify(followed.payload));
    assert.equal(followed.payload.toolName, "create_note");
  });
});

describe("details.next names a long tool whole", () => {
  // 83 characters: over the 80 an answer quotes, under MCP's 128. 150: a real tool's name over 128.
  const LONG = "create_calendar_event_with_attendees_and_reminders_for_the_primary_calendar_of_user";
  const LONGER = `export_${"x".repeat(136)}_report`;
  let dir: string;
  let agent: Connected;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "routing-next-long-"));
    const adapter = `export class LongAdapter {
  async listTools() {
    return { tools: [${JSON.stringify(LONG)}, ${JSON.stringify(LONGER)}].map((name) => ({ name, description: "A tool with a long name.", inputSchema: { type: "object", properties: { title: { type: "string" } } } })) };
  }
  async call(name, args) { return { ran: name, args }; }
}
`;
    writePlugin(
      path.join(dir, "agent-tools-plugin-longs"),
      { name: "longs", prefix: "longs", description: "Tools with long names.", adapter: "./adapter.mjs", adapterExport: "LongAdapter", readonlyTools: [LONG, LONGER] },
      { "adapter.mjs": adapter },
    );
    agent = await connect(dir);
  });
  after(async () => {
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("an 83-character tool merged into the facade name: the message quotes it cut, next holds it whole, and the call runs", async () => {
    assert.equal(LONG.length, 83);
    const { payload } = await callJson(agent.client, `agent_tools_longs_${LONG}`, { arguments: { title: "t" } });
    assert.equal(payload.error?.code, "UNKNOWN_FACADE_TOOL");
    assert.ok((payload.error?.message ?? "").includes(`toolName '${LONG.slice(0, 80)}…'`));
    const next = payload.error?.details?.next as Next;
    assert.deepEqual(next, { tool: "agent_tools_longs_call", arguments: { toolName: LONG, arguments: { title: "t" } } });
    const followed = await callJson(agent.client, next.tool, next.arguments);
    assert.equal(followed.isError, false, JSON.stringify(followed.payload));
    assert.deepEqual(followed.payload.result, { ran: LONG, args: { title: "t" } });
  });

  it("a real tool of 150 characters named bare as the facade tool: next holds it whole, and the call runs", async () => {
    assert.equal(LONGER.length, 150);
    // Looked up in catalogs in memory only: list the plugin first.
    assert.equal((await callJson(agent.client, "agent_tools_longs_discover", {})).isError, false);
    const { payload } = await callJson(agent.client, LONGER, { title: "u" });
    assert.equal(payload.error?.code, "UNKNOWN_FACADE_TOOL");
    const next = payload.error?.details?.next as Next;
    assert.deepEqual(next, { tool: "agent_tools_longs_call", arguments: { toolName: LONGER, arguments: { title: "u" } } });
    const followed = await callJson(agent.client, next.tool, next.arguments);
    assert.equal(followed.isError, false, JSON.stringify(followed.payload));
    assert.equal((followed.payload.result as { ran: string }).ran, LONGER);
  });

  it("a name over MCP's 128 characters read from the facade name gets no next: the answer says no tool can have it", async () => {
    const sent = "y".repeat(129);
    const { payload } = await callJson(agent.client, `agent_tools_longs_${sent}`, { title: "t" });
    assert.equal(payload.error?.code, "UNKNOWN_FACADE_TOOL");
    assert.equal(payload.error?.details?.next, undefined);
    assert.match(payload.error?.message ?? "", /a tool name of 129 characters is longer than a tool's can be \(128\), so plugin 'longs' has no such tool/);
    assert.equal((payload.error?.details?.tools as string[])[0], "agent_tools_longs_call");
    assert.ok(!JSON.stringify(payload).includes("y".repeat(81)));
  });
});
