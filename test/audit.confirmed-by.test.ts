import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { AuditEntry } from "../src/state/types.js";
import { callJson, connectStdioV1, writePlugin } from "./helpers.js";
import { httpForSuite } from "./http-helpers.js";
import { callV2, connectHttpV2, v2Client, V2_DOWNSTREAM_ARGS } from "./v2-helpers.js";

/**
 * An audit entry of a write says who confirmed it: "user" when the client showed its user the
 * confirmation form and they said yes, "model" when the model's `confirm: true` let it through,
 * "not needed" for a plugin whose writes need no confirmation; a refused write has none.
 */

const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-confirmed-by-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const pluginsDir = path.join(dir, "plugins");
const adapter = { kind: "mcp", command: process.execPath, args: [...V2_DOWNSTREAM_ARGS], env: { V2_WRITE_LOG: path.join(dir, "writes.log") }, timeoutMs: 30_000 };
writePlugin(path.join(pluginsDir, "agent-tools-plugin-db"), { name: "db", prefix: "db", description: "A table store whose writes are confirmed.", adapter });
writePlugin(path.join(pluginsDir, "agent-tools-plugin-scratch"), { name: "scratch", prefix: "scratch", description: "A table store whose writes need no confirmation.", requireConfirm: false, adapter });

function entries(file: string): AuditEntry[] {
  return readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line) as AuditEntry);
}

const write = (value: string, confirm?: boolean) => ({ toolName: "write_row", arguments: { table: "t", value }, ...(confirm ? { confirm } : {}) });

describe("the audit entry of a write says who confirmed it", () => {
  it("the model's confirm: true, none needed, and none for a refused write (a client that cannot ask)", async () => {
    const audit = path.join(dir, "model.jsonl");
    const client = new V1Client({ name: "no-forms", version: "0.0.0" });
    await connectStdioV1(client, { AGENT_TOOLS_PLUGINS_DIR: pluginsDir, AGENT_TOOLS_AUDIT: "on", AGENT_TOOLS_AUDIT_FILE: audit });
    try {
      assert.equal((await callJson(client, "agent_tools_db_call", write("by-model", true))).isError, false);
      assert.equal((await callJson(client, "agent_tools_db_call", write("refused"))).payload.error?.code, "CONFIRM_REQUIRED");
      assert.equal((await callJson(client, "agent_tools_scratch_call", write("free"))).isError, false);
    } finally {
      await client.close();
    }
    const [byModel, refused, free] = entries(audit);
    assert.deepEqual([byModel?.outcome, byModel?.confirmedBy], ["ok", "model"]);
    assert.deepEqual([refused?.outcome, refused?.confirmedBy], ["CONFIRM_REQUIRED", undefined]);
    assert.deepEqual([free?.plugin, free?.outcome, free?.confirmedBy], ["scratch", "ok", "not needed"]);
  });

  it("the user, through the confirmation form of a client that can ask", async () => {
    const audit = path.join(dir, "user.jsonl");
    const client = new V1Client({ name: "forms", version: "0.0.0" }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept" as const, content: { confirm: true } }));
    await connectStdioV1(client, { AGENT_TOOLS_PLUGINS_DIR: pluginsDir, AGENT_TOOLS_AUDIT: "on", AGENT_TOOLS_AUDIT_FILE: audit });
    try {
      const answered = await callJson(client, "agent_tools_db_call", write("by-user"));
      assert.equal(answered.isError, false, JSON.stringify(answered.payload));
    } finally {
      await client.close();
    }
    const [byUser] = entries(audit);
    assert.deepEqual([byUser?.outcome, byUser?.confirmedBy], ["ok", "user"]);
  });
});

describe("over HTTP in the 2026-07-28 era: the call held for the user's answer (input_required) is audited as theirs", () => {
  const audit = path.join(dir, "http-modern.jsonl");
  const http = httpForSuite({ AGENT_TOOLS_PLUGINS_DIR: pluginsDir, AGENT_TOOLS_AUDIT: "on", AGENT_TOOLS_AUDIT_FILE: audit });

  it("accepted by the user: confirmedBy user; declined: no write and no confirmedBy", async () => {
    let decision: { action: "accept" | "decline"; content?: { confirm: boolean } } = { action: "accept", content: { confirm: true } };
    const asked: string[] = [];
    const client = v2Client("pin", { elicitation: { form: {} } });
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(request.params.message);
      return decision;
    });
    await connectHttpV2(client, http.url);
    try {
      const accepted = await callV2(client, "agent_tools_db_call", write("by-user-http"));
      assert.equal(accepted.isError, false, JSON.stringify(accepted.payload));
      decision = { action: "decline" };
      const declined = await callV2(client, "agent_tools_db_call", write("declined-http", true));
      assert.equal(declined.payload.error?.code, "CONFIRM_DECLINED", JSON.stringify(declined.payload));
    } finally {
      await client.close();
    }
    assert.equal(asked.length, 2, "the user was asked for each write");
    const [byUser, declined, ...rest] = entries(audit);
    assert.equal(rest.length, 0);
    assert.deepEqual([byUser?.outcome, byUser?.confirmedBy], ["ok", "user"]);
    assert.equal(declined?.confirmedBy, undefined, JSON.stringify(declined));
    assert.equal(declined?.outcome, "CONFIRM_DECLINED", "a declined write is audited as declined");
  });
});
