import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { callJson, connect, ROOT, writePlugin, type Connected } from "./helpers.js";

// Error answers that lead to the right next step, over real stdio: the allowed values of an enum,
// an example tool name the plugin has, what configures a plugin that is not configured, and a
// skill whose step names a tool the plugin does not have.

const ADAPTER = `
export class BoxAdapter {
  async listTools() {
    return {
      tools: [
        { name: "read_box", description: "Read the box.", inputSchema: { type: "object", properties: {} } },
        { name: "set_mode", description: "Set the box's mode.", inputSchema: { type: "object", properties: { mode: { enum: ["off", "eco", "normal", "boost"] }, level: { enum: Array.from({ length: 60 }, (_, i) => "level-" + i) } }, required: ["mode"] } },
      ],
    };
  }
  async call(name, args) {
    globalThis.calls = (globalThis.calls ?? 0) + 1;
    if (name === "read_box") return { calls: globalThis.calls };
    if (name === "set_mode") return { mode: args.mode, calls: globalThis.calls };
    return { ran: name, calls: globalThis.calls };
  }
}
`;

const BROKEN_SKILL = `
import { runSteps } from ${JSON.stringify(pathToFileURL(path.join(ROOT, "dist", "plugin.js")).href)};
export const meta = { description: "Read the box, then a tool that is not there.", args: { type: "object", properties: {} } };
export async function run(adapter) {
  return (await runSteps(adapter, [{ name: "first", tool: "read_box", args: {} }, { name: "second", tool: "nosuchtool", args: {} }])).results;
}
`;

describe("hints that lead to the next step", () => {
  let server: Connected;
  before(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-hints-"));
    writePlugin(
      path.join(dir, "agent-tools-plugin-box"),
      { name: "box", prefix: "box", description: "A box with a mode (tests only)", adapter: "./adapter.mjs", adapterExport: "BoxAdapter", readonlyTools: ["read_box"], skills: "skills" },
      { "adapter.mjs": ADAPTER, "skills/broken.mjs": BROKEN_SKILL },
    );
    writePlugin(path.join(dir, "agent-tools-plugin-safe"), { name: "safe", prefix: "safe", description: "Needs a token (tests only)", adapter: "./adapter.mjs", adapterExport: "BoxAdapter", requires: { env: ["SAFE_FIXTURE_TOKEN"] } }, { "adapter.mjs": ADAPTER });
    server = await connect(dir);
  });
  after(() => server.close());

  it("an enum's allowed values are named in the message, a long list cut", async () => {
    const { payload } = await callJson(server.client, "agent_tools_box_call", { toolName: "set_mode", arguments: { mode: "fast" }, confirm: true });
    assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.match(payload.error?.message ?? "", /\/mode: must be one of "off", "eco", "normal" or "boost"$/);
    const long = await callJson(server.client, "agent_tools_box_call", { toolName: "set_mode", arguments: { mode: "eco", level: "max" }, confirm: true });
    assert.match(long.payload.error?.message ?? "", /\/level: must be one of "level-0", "level-1", .* … \(\d+ more\)$/);
    assert.ok((long.payload.error?.message ?? "").length < 300, long.payload.error?.message);
  });

  it("MISSING_TOOL_NAME's example is one of the plugin's own tools", async () => {
    const { payload } = await callJson(server.client, "agent_tools_box_call", { arguments: {} });
    assert.equal(payload.error?.code, "MISSING_TOOL_NAME");
    assert.match(payload.error?.hint ?? "", /e\.g\. \{"toolName":"read_box","arguments":\{\}\}/);
    assert.doesNotMatch(payload.error?.hint ?? "", /list_issues/);
  });

  it("help for a plugin that is not configured offers what configures it, not its discover", async () => {
    const { payload } = await callJson(server.client, "agent_tools_help", { plugin: "safe" });
    const plugin = payload.plugin as { status: string; next: Record<string, string> };
    assert.match(plugin.status, /^not configured: set SAFE_FIXTURE_TOKEN/);
    assert.deepEqual(Object.keys(plugin.next), ["configure", "tell"]);
    assert.match(plugin.next.configure ?? "", /^Set SAFE_FIXTURE_TOKEN in the environment of the agent-tools server \(not in tool arguments\), then restart it/);
    // A configured plugin's next is still its discover.
    const box = await callJson(server.client, "agent_tools_help", { plugin: "box" });
    assert.deepEqual((box.payload.plugin as { next: unknown }).next, { tool: "agent_tools_box_discover", arguments: { query: "<string>" } });
  });

  it("a skill step naming a tool the plugin does not have is reported as that, never a confirm question, and not called", async () => {
    for (const confirm of [false, true]) {
      const { payload } = await callJson(server.client, "agent_tools_box_run_skill", { skill: "broken", arguments: {}, ...(confirm ? { confirm } : {}) });
      assert.equal(payload.error?.code, "UNKNOWN_TOOL", JSON.stringify(payload));
      assert.match(payload.error?.message ?? "", /step 2 of 2 \(second: nosuchtool\) failed: skill 'broken' calls tool 'nosuchtool', which plugin 'box' does not have: the skill is broken/);
      assert.match(payload.error?.hint ?? "", /The skill itself is broken/);
      assert.doesNotMatch(JSON.stringify(payload), /CONFIRM_REQUIRED|changes data/);
    }
    // Only the first step's read ran each time: the adapter was never asked for 'nosuchtool'.
    const read = await callJson(server.client, "agent_tools_box_call", { toolName: "read_box", arguments: {} });
    assert.deepEqual(read.payload.result, { calls: 3 });
  });
});
