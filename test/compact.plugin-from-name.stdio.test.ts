import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { callJson, connect, type Connected } from "./helpers.js";

/**
 * Compact mode, `plugin` left out of agent_tools_call / agent_tools_run_skill (over stdio with
 * the SDK client). A name that says its plugin (`notes_get_note`, `notes.get_note`,
 * `notes/get_note`) and whose rest is one of that plugin's tools is the call the model meant: it
 * runs, said in `repairs`, and a write still needs its confirm. A bare tool name answers
 * UNKNOWN_PLUGIN saying where it is, with the call that reaches it in `details.next` (followed here
 * as it is) and said nowhere else, and
 * `details.plugins` names only the plugins a call can use (before: every plugin, unconfigured
 * ones too, and no word of where the tool is).
 */

type Next = { tool: string; arguments: Record<string, unknown> };

describe("compact agent_tools_call without plugin", () => {
  let server: Connected;
  before(async () => {
    server = await connect(undefined, { AGENT_TOOLS_SEARCH_ENGINE: "bm25f", AGENT_TOOLS_FACADE: "compact" });
  });
  after(() => server.close());

  it("a toolName that says its plugin runs that plugin's tool, and says so", async () => {
    for (const toolName of ["notes_get_note", "notes.get_note", "notes/get_note", "Notes_get_note"]) {
      const { payload, isError } = await callJson(server.client, "agent_tools_call", { toolName, arguments: { id: "n1" } });
      assert.equal(isError, false, `${toolName}: ${JSON.stringify(payload)}`);
      assert.equal(payload.plugin, "notes");
      assert.equal(payload.toolName, "get_note");
      assert.equal((payload.result as { id: string }).id, "n1");
      assert.deepEqual(payload.repairs, [`'plugin' was missing: toolName '${toolName}' was read as tool 'get_note' of plugin 'notes'`]);
    }
  });

  it("a write read so still needs its confirm, and runs with it", async () => {
    const args = { toolName: "notes_create_note", arguments: { title: "from-name", body: "b" } };
    const first = await callJson(server.client, "agent_tools_call", args);
    assert.equal(first.isError, true);
    assert.equal(first.payload.error?.code, "CONFIRM_REQUIRED", JSON.stringify(first.payload));
    const listed = await callJson(server.client, "agent_tools_call", { plugin: "notes", toolName: "list_notes" });
    assert.doesNotMatch(JSON.stringify(listed.payload.result), /from-name/, "nothing was created unconfirmed");
    const confirmed = await callJson(server.client, "agent_tools_call", { ...args, confirm: true });
    assert.equal(confirmed.isError, false, JSON.stringify(confirmed.payload));
    assert.equal(confirmed.payload.plugin, "notes");
    assert.equal(confirmed.payload.toolName, "create_note");
  });

  it("a bare tool name answers where it is, with the call in details.next, which runs", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_call", { toolName: "get_note", arguments: { id: "n2" } });
    assert.equal(isError, true);
    assert.equal(payload.error?.code, "UNKNOWN_PLUGIN");
    // Each fact once: where in the message, the call in details.next, the hint only points there.
    assert.equal(payload.error?.message, "'plugin' is missing; nothing was run. 'get_note' is a tool of plugin 'notes'");
    assert.equal(payload.error?.hint, "Make the call in `details.next`: yours with `plugin` added.");
    assert.equal(payload.error?.details?.elsewhere, undefined, "details.next already names the plugin and the tool");
    const next = payload.error?.details?.next as Next;
    assert.deepEqual(next, { tool: "agent_tools_call", arguments: { plugin: "notes", toolName: "get_note", arguments: { id: "n2" } } });
    const followed = await callJson(server.client, next.tool, next.arguments);
    assert.equal(followed.isError, false, JSON.stringify(followed.payload));
    assert.equal((followed.payload.result as { id: string }).id, "n2");
  });

  it("a prefix that is no plugin, followed by a real tool's name, is led to that tool", async () => {
    const { payload } = await callJson(server.client, "agent_tools_call", { toolName: "memo_get_note", arguments: { id: "n1" } });
    assert.equal(payload.error?.code, "UNKNOWN_PLUGIN");
    assert.deepEqual(payload.error?.details?.next, { tool: "agent_tools_call", arguments: { plugin: "notes", toolName: "get_note", arguments: { id: "n1" } } });
  });

  it("details.plugins names only configured plugins; a name found nowhere gets no next", async () => {
    const { payload } = await callJson(server.client, "agent_tools_call", { toolName: "no_such_tool_anywhere" });
    assert.equal(payload.error?.code, "UNKNOWN_PLUGIN");
    assert.match(payload.error?.message ?? "", /^'plugin' is missing: name the plugin's prefix/);
    assert.equal(payload.error?.details?.next, undefined);
    const plugins = payload.error?.details?.plugins as string[];
    assert.ok(plugins.includes("notes") && plugins.includes("tracker"), JSON.stringify(plugins));
    assert.ok(!plugins.includes("vault"), `vault is not configured: ${JSON.stringify(plugins)}`);
    const noName = await callJson(server.client, "agent_tools_call", { arguments: {} });
    assert.equal(noName.payload.error?.code, "UNKNOWN_PLUGIN");
    assert.ok(!(noName.payload.error?.details?.plugins as string[]).includes("vault"), JSON.stringify(noName.payload));
  });

  it("a tool named bare as the facade tool answers the agent_tools_call to make, which runs", async () => {
    assert.equal((await callJson(server.client, "agent_tools_call", { plugin: "notes", toolName: "list_notes" })).isError, false);
    const { payload } = await callJson(server.client, "get_note", { arguments: { id: "n1" } });
    assert.equal(payload.error?.code, "UNKNOWN_FACADE_TOOL");
    assert.match(payload.error?.message ?? "", /call agent_tools_call with plugin 'notes' and toolName 'get_note'/);
    const next = payload.error?.details?.next as Next;
    assert.deepEqual(next, { tool: "agent_tools_call", arguments: { plugin: "notes", toolName: "get_note", arguments: { id: "n1" } } });
    const followed = await callJson(server.client, next.tool, next.arguments);
    assert.equal(followed.isError, false, JSON.stringify(followed.payload));
  });

  it("a wrong plugin with a tool found in exactly one plugin is led there, nothing run; the start of one prefix is its 'did you mean'", async () => {
    for (const plugin of ["stock", "not"]) {
      const { payload, isError } = await callJson(server.client, "agent_tools_call", { plugin, toolName: "create_note", arguments: { title: "wrong", body: "b" }, confirm: true });
      assert.equal(isError, true);
      assert.equal(payload.error?.code, "UNKNOWN_PLUGIN");
      assert.equal(payload.error?.message, `no plugin has prefix '${plugin}'; nothing was run. 'create_note' is a tool of plugin 'notes'`);
      assert.equal(payload.error?.hint, "Make the call in `details.next`: yours with `plugin` put right.");
      // The call as sent, to the plugin that has the tool, but not its confirm: that was given for another plugin's write.
      assert.deepEqual(payload.error?.details?.next, { tool: "agent_tools_call", arguments: { plugin: "notes", toolName: "create_note", arguments: { title: "wrong", body: "b" } } });
    }
    const listed = await callJson(server.client, "agent_tools_call", { plugin: "notes", toolName: "list_notes" });
    assert.doesNotMatch(JSON.stringify(listed.payload.result), /wrong/, "the wrong plugin's call ran nothing");
    // A name found nowhere (or in several plugins) keeps the plain answer; a unique start of a prefix is suggested.
    const nowhere = await callJson(server.client, "agent_tools_call", { plugin: "trac", toolName: "no_such_tool_anywhere" });
    assert.equal(nowhere.payload.error?.message, "no plugin has prefix 'trac'; nothing was run; did you mean 'tracker'?");
    assert.equal(nowhere.payload.error?.details?.next, undefined);
  });

  it("a skill name that says its plugin runs that skill", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_run_skill", { skill: "notes_count" });
    assert.equal(isError, false, JSON.stringify(payload));
    assert.equal(payload.plugin, "notes");
    assert.equal(payload.skill, "count");
    assert.deepEqual(payload.repairs, ["'plugin' was missing: skill 'notes_count' was read as skill 'count' of plugin 'notes'"]);
  });
});
