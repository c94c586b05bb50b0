import assert from "node:assert/strict";
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { callJson, connect, FIXTURES, ROOT, type Connected } from "./helpers.js";

/**
 * Plugins shaped like the original runtime's (test/fixtures/original: string `meta.args`,
 * `meta.related`, a 4,000-character discoverHint, skills that fail with `{isError: true}` or catch
 * the confirm refusal) are copied unmodified into a temporary folder, with twenty more skills of
 * the same shape so the search answer has to share its token budget, and driven over stdio.
 */

const SOURCE = path.join(FIXTURES, "original");
const EXTRA_SKILLS = 20;

let dir: string;
let conn: Connected;

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-original-"));
  cpSync(SOURCE, dir, { recursive: true });
  for (let i = 1; i <= EXTRA_SKILLS; i++) {
    writeFileSync(
      path.join(dir, "agent-tools-plugin-flows", "skills", `audit-step-${i}.mjs`),
      `export const meta = { description: "Audit step ${i}: check one property of every workflow and report the ones that fail it.", args: "namePattern (optional): a regular expression for the workflow names to audit; active (optional): true or false; verbose (optional): true to list every workflow checked, not only the failures, with the reason each passed or failed." };\nexport async function run() { return { step: ${i}, failures: [] }; }\n`,
    );
  }
  conn = await connect(dir);
});
after(async () => {
  await conn?.close();
  rmSync(dir, { recursive: true, force: true });
});

type Match = { kind: string; name: string; plugin?: string; params?: string; related?: unknown[] };

describe("original-runtime skills: parameters, related links, failures", () => {
  it("discover shows a skill's argument sentence as text, and its related links with the reason", async () => {
    const { payload } = await callJson(conn.client, "agent_tools_flows_discover", { query: "find workflows by name pattern" });
    const match = (payload.matches as Match[]).find((m) => m.name === "find-workflows");
    assert.ok(match, JSON.stringify(payload.matches));
    assert.match(match.params ?? "", /^namePattern \(optional\): a regular expression/);
    assert.doesNotMatch(match.params ?? "", /\b0, 1, 2\b/);
    assert.deepEqual(match.related, [{ target: "hubcli:repo-summary", why: "the repository a workflow deploys from" }]);
  });

  it("search shows the sentence (cut short) and the related targets, and still answers several hits", async () => {
    const { payload } = await callJson(conn.client, "agent_tools_search", { query: "namePattern active" });
    const hits = payload.hits as Match[];
    assert.ok(hits.length >= 5, `only ${hits.length} hits: ${JSON.stringify(payload)}`);
    for (const hit of hits.filter((h) => h.kind === "skill")) {
      assert.ok(typeof hit.params === "string" && /[a-z]{4,} \(optional\)|\(required\)/.test(hit.params), JSON.stringify(hit));
      assert.ok(hit.params.length <= 100);
    }
    const find = hits.find((h) => h.name === "find-workflows");
    assert.deepEqual(find?.related, ["hubcli:repo-summary"]);
    const summary = (await callJson(conn.client, "agent_tools_search", { query: "summarise repository stars" })).payload.hits as Match[];
    assert.deepEqual(summary.find((h) => h.name === "repo-summary")?.related, ["flows:find-workflows"]);
  });

  it("detail: true shows the whole sentence once", async () => {
    const { payload } = await callJson(conn.client, "agent_tools_search", { query: "namePattern active", detail: true, limit: 3 });
    const hit = (payload.hits as (Match & { args?: unknown })[]).find((h) => h.kind === "skill");
    assert.ok(hit?.params && hit.params.length > 100, JSON.stringify(hit));
    assert.equal(hit.args, undefined);
  });

  it("a skill answering {isError: true} is an error (MCP isError, ok: false) with its message", async () => {
    const answer = await callJson(conn.client, "agent_tools_flows_run_skill", { skill: "workflow-report", arguments: { id: "wf-missing" } });
    assert.equal(answer.isError, true);
    assert.equal(answer.payload.ok, false);
    assert.equal(answer.payload.error?.code, "UPSTREAM_ERROR");
    assert.match(answer.payload.error?.message ?? "", /workflow-report' failed: no report: workflow wf-missing not found/);
    assert.deepEqual((answer.payload.error?.details as { skillResult: unknown }).skillResult, { isError: true, id: "wf-missing" }, "its message is not repeated there");
    const fine = await callJson(conn.client, "agent_tools_flows_run_skill", { skill: "workflow-report", arguments: { id: "wf000000000000a1" } });
    assert.equal(fine.isError, false);
    assert.deepEqual(fine.payload.result, { id: "wf000000000000a1", name: "Nightly backup", active: true });
  });

  it("a skill's own failure is hinted as the skill's, not as the service's: a bad argument, a confirm it asks for", async () => {
    const service = /service behind this plugin failed/;
    const noId = await callJson(conn.client, "agent_tools_flows_run_skill", { skill: "export-workflow", arguments: {} });
    assert.equal(noId.payload.error?.code, "UPSTREAM_ERROR");
    assert.match(noId.payload.error?.message ?? "", /export-workflow' failed: export-workflow requires: id/);
    assert.match(noId.payload.error?.hint ?? "", /skill reported this failure itself/);
    assert.match(noId.payload.error?.hint ?? "", /fix that and run the skill again/);
    assert.doesNotMatch(noId.payload.error?.hint ?? "", service);

    const unconfirmed = await callJson(conn.client, "agent_tools_flows_run_skill", { skill: "export-workflow", arguments: { id: "wf000000000000a1" } });
    assert.match(unconfirmed.payload.error?.message ?? "", /pass confirm: true/);
    assert.match(unconfirmed.payload.error?.hint ?? "", /refused to run without confirmation/);
    assert.match(unconfirmed.payload.error?.hint ?? "", /`confirm: true` at the top level/);
    assert.doesNotMatch(unconfirmed.payload.error?.hint ?? "", service);
    // Following the hint works.
    const confirmed = await callJson(conn.client, "agent_tools_flows_run_skill", { skill: "export-workflow", arguments: { id: "wf000000000000a1" }, confirm: true });
    assert.equal(confirmed.isError, false, JSON.stringify(confirmed.payload));
    assert.equal((confirmed.payload.result as { exported: string }).exported, "wf000000000000a1");
  });

  it("a skill failure without a message says what the skill answered (its verdict) in the message", async () => {
    const failed = await callJson(conn.client, "agent_tools_flows_run_skill", { skill: "audit-workflow", arguments: { id: "wf000000000000b2" } });
    assert.equal(failed.isError, true);
    const message = failed.payload.error?.message ?? "";
    assert.match(message, /audit-workflow' failed: the skill reported a failure without a message; it answered \{"verdict":"FAIL","id":"wf000000000000b2","findings":\[/);
    assert.doesNotMatch(message, /isError/);
    assert.ok(message.length < 400, `the summary is cut short: ${message.length} characters`);
    assert.match(failed.payload.error?.hint ?? "", /a verdict, tell the user what it said/);
    assert.equal((failed.payload.error?.details as { skillResult: { verdict: string } }).skillResult.verdict, "FAIL");
    const passed = await callJson(conn.client, "agent_tools_flows_run_skill", { skill: "audit-workflow", arguments: { id: "wf000000000000a1" } });
    assert.equal(passed.isError, false, JSON.stringify(passed.payload));
    assert.equal((passed.payload.result as { verdict: string }).verdict, "PASS");
  });

  it("a skill that catches the confirm refusal and answers normally is still refused", async () => {
    const answer = await callJson(conn.client, "agent_tools_flows_run_skill", { skill: "copy-workflow", arguments: { id: "wf000000000000a1", name: "copy" } });
    assert.equal(answer.isError, true);
    assert.equal(answer.payload.error?.code, "CONFIRM_REQUIRED");
    assert.match(answer.payload.error?.hint ?? "", /confirm: true/);
    assert.equal((answer.payload.error?.details as { skillResult: { copied: boolean } }).skillResult.copied, false);
    const confirmed = await callJson(conn.client, "agent_tools_flows_run_skill", { skill: "copy-workflow", arguments: { id: "wf000000000000a1", name: "copy" }, confirm: true });
    assert.equal(confirmed.isError, false, JSON.stringify(confirmed.payload));
    assert.equal((confirmed.payload.result as { copied: boolean }).copied, true);
  });

  it("confirm is asked once: at the top level, or inside the arguments the skill reads", async () => {
    const top = await callJson(conn.client, "agent_tools_flows_run_skill", { skill: "create-workflow", arguments: { name: "top" }, confirm: true });
    assert.equal(top.isError, false, JSON.stringify(top.payload));
    const inside = await callJson(conn.client, "agent_tools_flows_run_skill", { skill: "create-workflow", arguments: { name: "inside", confirm: true } });
    assert.equal(inside.isError, false, JSON.stringify(inside.payload));
    assert.match((inside.payload.repairs ?? []).join(" "), /'confirm' was inside 'arguments'/);
    const neither = await callJson(conn.client, "agent_tools_flows_run_skill", { skill: "create-workflow", arguments: { name: "neither" } });
    assert.equal(neither.isError, true);
  });
});

describe("original-runtime discoverHint", () => {
  it("tools/list carries only the hint's first sentence", async () => {
    const { tools } = await conn.client.listTools();
    const discover = tools.find((t) => t.name === "agent_tools_flows_discover");
    assert.ok(discover?.description);
    assert.ok(discover.description.length < 300, discover.description);
    assert.doesNotMatch(JSON.stringify(tools), /Rule 12:/);
  });

  it("the first _discover of a session carries the whole hint; later ones do not", async () => {
    const other = await connect(dir);
    try {
      const first = await callJson(other.client, "agent_tools_flows_discover", {});
      const hint = first.payload.hint as string;
      assert.ok(hint.length > 4000, `hint of ${hint?.length} characters`);
      assert.match(hint, /Rule 12: .*url argument is the public address/);
      const second = await callJson(other.client, "agent_tools_flows_discover", { query: "create" });
      assert.equal(second.payload.hint, undefined);
      // Each plugin's first look counts on its own.
      assert.equal((await callJson(other.client, "agent_tools_hubcli_discover", {})).payload.hint, "owner and repo are separate arguments.");
    } finally {
      await other.close();
    }
  });

  it("help for the plugin gives the whole hint and every skill with its argument text", async () => {
    const { payload } = await callJson(conn.client, "agent_tools_help", { plugin: "flows" });
    const plugin = payload.plugin as { hint: string; skills: { name: string; params?: string }[] };
    assert.ok(plugin.hint.length > 4000);
    assert.equal(plugin.skills.length, readdirSync(path.join(SOURCE, "agent-tools-plugin-flows", "skills")).length + EXTRA_SKILLS);
    assert.match(plugin.skills.find((s) => s.name === "find-workflows")?.params ?? "", /^namePattern/);
    const general = (await callJson(conn.client, "agent_tools_help", {})).payload;
    assert.doesNotMatch(JSON.stringify(general), /Rule 12:/);
  });

  it("help names the text modules by file, as the original's help did", async () => {
    const { payload } = await callJson(conn.client, "agent_tools_help", {});
    const onDisk = readdirSync(path.join(ROOT, "commands")).filter((f) => f.endsWith(".mjs") && !f.startsWith("_")).sort().map((f) => `commands/${f}`);
    assert.deepEqual(payload.textModules, onDisk);
    assert.ok(onDisk.includes("commands/local-cli.mjs"));
    if (existsSync(path.join(ROOT, "commands", "generic-mcp.mjs"))) assert.ok((payload.textModules as string[]).includes("commands/generic-mcp.mjs"));
  });
});
