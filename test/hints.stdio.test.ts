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
        { name: "set_mode", description: "Set the box's mode.", inputSchema: { type: "object", properties: { mode: { enum: ["off", "eco", "normal", "boost"] }, level: { enum: Array.from({ length: 60 }, (_, i) => "level-" + i) }, city: { type: "string", enum: Array.from({ length: 3000 }, (_, i) => "city-" + String(i).padStart(4, "0")) } }, required: ["mode"] } },
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

// A skill that tries a newer tool, catches "unknown tool" and falls back to one the plugin has.
const FALLBACK_SKILL = `
export const meta = { description: "Read the box by a newer tool, else the old one.", args: { type: "object", properties: {} } };
export async function run(adapter) {
  try {
    return { via: "read_box_v2", result: await adapter.call("read_box_v2", {}) };
  } catch {
    return { via: "read_box", result: await adapter.call("read_box", {}) };
  }
}
`;

describe("hints that lead to the next step", () => {
  let server: Connected;
  before(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-hints-"));
    writePlugin(
      path.join(dir, "agent-tools-plugin-box"),
      { name: "box", prefix: "box", description: "A box with a mode (tests only)", adapter: "./adapter.mjs", adapterExport: "BoxAdapter", readonlyTools: ["read_box"], skills: "skills" },
      { "adapter.mjs": ADAPTER, "skills/broken.mjs": BROKEN_SKILL, "skills/fallback.mjs": FALLBACK_SKILL },
    );
    writePlugin(path.join(dir, "agent-tools-plugin-safe"), { name: "safe", prefix: "safe", description: "Needs a token (tests only)", adapter: "./adapter.mjs", adapterExport: "BoxAdapter", requires: { env: ["SAFE_FIXTURE_TOKEN"] } }, { "adapter.mjs": ADAPTER });
    server = await connect(dir);
  });
  after(() => server.close());

  it("an enum's allowed values are named once, in the message, a long list cut", async () => {
    const { payload } = await callJson(server.client, "agent_tools_box_call", { toolName: "set_mode", arguments: { mode: "fast" }, confirm: true });
    assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.match(payload.error?.message ?? "", /\/mode: must be one of "off", "eco", "normal" or "boost"$/);
    // The field's entry does not say them again: no list in its message, no enum in its schema.
    const [entry] = (payload.error?.details as { errors: { path: string; message: string; schema?: Record<string, unknown> }[] }).errors;
    assert.deepEqual(entry, { path: "/mode", message: "must be one of the values the message names" });
    assert.equal(JSON.stringify(payload).split("boost").length - 1, 1, JSON.stringify(payload));
    const long = await callJson(server.client, "agent_tools_box_call", { toolName: "set_mode", arguments: { mode: "eco", level: 7 }, confirm: true });
    assert.match(long.payload.error?.message ?? "", /\/level: must be one of "level-0", "level-1", .* … and \d+ more$/);
    assert.ok((long.payload.error?.message ?? "").length < 200, long.payload.error?.message);
  });

  it("a long enum answers a string sent with the values nearest to it, and stays small", async () => {
    const near = await callJson(server.client, "agent_tools_box_call", { toolName: "set_mode", arguments: { mode: "eco", city: "city-12" }, confirm: true });
    assert.match(near.payload.error?.message ?? "", /\/city: must be one of 3000 values; nearest to "city-12": "city-0012", "city-0102" or "city-0112"$/);
    // A wrong type on a 3,000-value enum: type, then the first values that fit, bounded.
    const typed = await callJson(server.client, "agent_tools_box_call", { toolName: "set_mode", arguments: { mode: "eco", city: 42 }, confirm: true });
    assert.match(typed.payload.error?.message ?? "", /\/city: 'city' must be a string; must be one of "city-0000", .* … and \d+ more$/);
    const entry = (typed.payload.error?.details as { errors: { message: string; schema?: Record<string, unknown> }[] }).errors[0];
    assert.deepEqual(entry, { path: "/city", message: "'city' must be a string; must be one of the values the message names", schema: { type: "string" } });
    assert.ok(JSON.stringify(typed.payload).length < 600, JSON.stringify(typed.payload));
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

  it("a skill that catches a step's unknown tool and answers otherwise has its answer, the missing tool said as a warning", async () => {
    const { isError, payload } = await callJson(server.client, "agent_tools_box_run_skill", { skill: "fallback", arguments: {} });
    assert.equal(isError, false, JSON.stringify(payload));
    const result = payload.result as { via: string; result: { calls: number } };
    assert.equal(result.via, "read_box");
    assert.equal(typeof result.result.calls, "number");
    assert.deepEqual(payload.warnings, ["skill 'fallback' calls tool 'read_box_v2', which plugin 'box' does not have: the skill is broken (the plugin has 'read_box'); that call was not made"]);
  });
});
