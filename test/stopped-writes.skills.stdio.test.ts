import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { callJson, connect, writePlugin, type Connected } from "./helpers.js";

// An agent_tools_exec line stopped at its deadline names the skill runs that had sent writes, as
// it names a tool's writes: a skill still running at the stop with the look-first words of a
// stopped skill run's own answer (`_run_skill`'s `writesSent`), one that answered earlier in the
// line with the steps that changed data. A skill run that only read is not named. Over real stdio
// with the built server and a module plugin whose skills write, then hang.

const ADAPTER = `
export default function createAdapter() {
  return {
    async listTools() {
      return { tools: ["write_b", "write_c", "count"].map((name) => ({ name, description: "tool " + name, inputSchema: { type: "object" } })) };
    },
    async call(name) {
      return { done: name };
    },
  };
}
`;

const SKILLS: Record<string, string> = {
  "skills/add-one.mjs": `export const meta = { description: "writes once and answers" };\nexport async function run(adapter) { await adapter.call("write_b", {}); return { added: 1 }; }`,
  "skills/add-two.mjs": `export const meta = { description: "writes twice and answers" };\nexport async function run(adapter) { await adapter.call("count", {}); await adapter.call("write_b", {}); await adapter.call("write_c", {}); return { added: 2 }; }`,
  "skills/write-then-hang.mjs": `export const meta = { description: "writes, then never ends" };\nexport async function run(adapter) { await adapter.call("count", {}); await adapter.call("write_b", {}); return new Promise(() => {}); }`,
  "skills/read-then-hang.mjs": `export const meta = { description: "reads, then never ends" };\nexport async function run(adapter) { await adapter.call("count", {}); return new Promise(() => {}); }`,
};

describe("a command line stopped at its deadline after a skill wrote", () => {
  let server: Connected;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "agent-tools-stopped-skill-"));
    writePlugin(path.join(dir, "agent-tools-plugin-wsk"), { name: "wsk", prefix: "wsk", adapter: "./adapter.mjs", readonlyTools: ["count"] }, { "adapter.mjs": ADAPTER, ...SKILLS });
    // The line's deadline is short; the skill run's own (AGENT_TOOLS_CALL_TIMEOUT_MS) is not what stops it.
    server = await connect(dir, { AGENT_TOOLS_EXEC_TIMEOUT_MS: "4000", AGENT_TOOLS_CALL_TIMEOUT_MS: "60000" });
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("names the skill in flight with its write, and the skill that answered earlier with its write", async () => {
    const { payload } = await callJson(server.client, "agent_tools_exec", { command: "wsk skill add-one --confirm; wsk skill write-then-hang --confirm; echo never" });
    assert.equal(payload.exitCode, 124, JSON.stringify(payload));
    const stderr = String(payload.stderr);
    assert.match(stderr, /ran past its deadline of 4000 ms/);
    assert.match(
      stderr,
      /Skill 'wsk:write-then-hang' had already sent steps that change data \('wsk\/write_b'\) before it was stopped \(the line ran past its deadline\), and they may have taken effect\. Nothing more of it is sent after the stop\. Do not simply run it again: look at the data first/,
    );
    assert.match(stderr, /Earlier in the line, skill 'wsk:add-one' \(whose step 'wsk\/write_b' changes data\) had already answered: that change was sent, so running the whole line again would make it twice/);
    assert.doesNotMatch(String(payload.stdout), /never/);
  });

  it("names a tool's and a skill's earlier writes together, and not a skill run that only read", async () => {
    const { payload } = await callJson(server.client, "agent_tools_exec", { command: "wsk call write_c --confirm; wsk skill add-two --confirm; wsk skill read-then-hang" });
    assert.equal(payload.exitCode, 124, JSON.stringify(payload));
    const stderr = String(payload.stderr);
    assert.match(stderr, /Earlier in the line, 'wsk\/write_c' \(changing data\) and skill 'wsk:add-two' \(whose steps 'wsk\/write_b', 'wsk\/write_c' change data\) had already answered: those changes were sent/);
    assert.doesNotMatch(stderr, /read-then-hang/);
    assert.doesNotMatch(stderr, /before it was stopped/);
  });
});
