import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { callJson, connect, writePlugin, type Connected } from "./helpers.js";

/**
 * A cut result's note tells the model how to see the rest: for a read, the same call in
 * agent_tools_exec, where results are larger and filtered; for a call that changed data (a write
 * tool, a skill that sent one), not to repeat it, which would make the change again.
 */

const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-cut-writes-"));
let server: Connected;

before(async () => {
  writePlugin(
    path.join(dir, "agent-tools-plugin-bulk"),
    { name: "bulk", prefix: "bulk", description: "Bulk exports that return everything they touched.", adapter: "./adapter.mjs", readonlyTools: ["read_all"], skills: "skills" },
    {
      "adapter.mjs": `let writes = 0;
export default function createAdapter() {
  const object = { type: "object", properties: { size: { type: "integer" } } };
  return {
    async listTools() {
      return { tools: [{ name: "read_all", description: "Read every row.", inputSchema: object }, { name: "rewrite_all", description: "Rewrite every row and return them.", inputSchema: object }, { name: "count_writes", description: "How many rewrites ran.", inputSchema: object }] };
    },
    async call(name, args) {
      if (name === "rewrite_all") writes += 1;
      if (name === "count_writes") return { writes };
      return { rows: "r".repeat(args.size ?? 150000) };
    },
  };
}
`,
      "skills/rewrite-twice.mjs": `export const meta = { description: "Rewrite every row, then read them all." };
export async function run(adapter) {
  await adapter.call("rewrite_all", { size: 10 });
  return adapter.call("read_all", { size: 150000 });
}
`,
    },
  );
  server = await connect(dir, { AGENT_TOOLS_NO_BUNDLED_PLUGINS: "1" });
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const REPEAT = /make the same call in agent_tools_exec/;
const CHANGED = "This call changed data: do not repeat it to see the rest; read what it changed with a read-only tool";

describe("the note of a cut result", () => {
  it("a read: the same call in agent_tools_exec", async () => {
    const read = await callJson(server.client, "agent_tools_bulk_call", { toolName: "read_all", arguments: {} });
    const note = (read.payload.truncated as { note: string }).note;
    assert.match(note, REPEAT, note);
    assert.match(note, /`bulk call read_all`/, note);
  });

  it("a write tool: do not repeat it; nothing in the note invites the same call again", async () => {
    const wrote = await callJson(server.client, "agent_tools_bulk_call", { toolName: "rewrite_all", arguments: {}, confirm: true });
    assert.equal(wrote.isError, false, JSON.stringify(wrote.payload).slice(0, 300));
    const note = (wrote.payload.truncated as { note: string }).note;
    assert.ok(note.includes(CHANGED), note);
    assert.doesNotMatch(note, REPEAT);
    assert.doesNotMatch(note, /rewrite_all/);
  });

  it("a skill that sent a write: the same", async () => {
    const ran = await callJson(server.client, "agent_tools_bulk_run_skill", { skill: "rewrite-twice", arguments: {}, confirm: true });
    assert.equal(ran.isError, false, JSON.stringify(ran.payload).slice(0, 300));
    const note = (ran.payload.truncated as { note: string }).note;
    assert.ok(note.includes(CHANGED), note);
    assert.doesNotMatch(note, REPEAT);
    const count = await callJson(server.client, "agent_tools_bulk_call", { toolName: "count_writes", arguments: {}, confirm: true });
    assert.equal((count.payload.result as { writes: number }).writes, 2, "each write ran once");
  });

  it("a write cut inside agent_tools_exec (past 5,000,000 characters): do not repeat it, and no pointer to agent_tools_exec, where the call already ran", async () => {
    const before = await callJson(server.client, "agent_tools_bulk_call", { toolName: "count_writes", arguments: {}, confirm: true });
    const { payload } = await callJson(server.client, "agent_tools_exec", { command: `bulk call rewrite_all '{"size":5100000}' --confirm | jq -r .truncated.note` });
    const { stdout, exitCode, stderr } = payload as unknown as { stdout: string; exitCode: number; stderr: string };
    assert.equal(exitCode, 0, stderr);
    assert.equal(stdout, "The result was cut to fit; `result` holds the first characters of its JSON. This call changed data: do not repeat it to see the rest; read what it changed with a read-only tool (filters, pagination), filtered with jq or grep.\n");
    assert.doesNotMatch(stdout, /Ask for less|agent_tools_exec/);
    const after = await callJson(server.client, "agent_tools_bulk_call", { toolName: "count_writes", arguments: {}, confirm: true });
    assert.equal((after.payload.result as { writes: number }).writes, (before.payload.result as { writes: number }).writes + 1, "the write ran once");
  });
});
