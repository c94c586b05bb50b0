import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { callJson, connect, ROOT, stdioForSuite } from "./helpers.js";

// The facade over real stdio: the built server spawned with plugins in the original runtime's
// format (flat manifest + class adapter, spec manifest + factory adapter, .mjs skills).

describe("facade over stdio", () => {
  const server = stdioForSuite();

  it("lists agent_tools_help and each plugin's tools, every one with a description", async () => {
    const { tools } = await server.client.listTools();
    const names = tools.map((t) => t.name).sort();
    assert.deepEqual(names, [
      "agent_tools_exec",
      "agent_tools_help",
      "agent_tools_notes_call",
      "agent_tools_notes_discover",
      "agent_tools_notes_run_skill",
      "agent_tools_search",
      "agent_tools_tracker_call",
      "agent_tools_tracker_discover",
      "agent_tools_tracker_run_skill",
    ]);
    for (const tool of tools) assert.ok(tool.description && tool.description.length > 20, `${tool.name} has a description`);
    const discover = tools.find((t) => t.name === "agent_tools_notes_discover");
    assert.match(discover?.description ?? "", /Notes have an id, a title, a body and tags\./, "discoverHint is appended");
    const skills = tools.find((t) => t.name === "agent_tools_notes_run_skill");
    assert.match(skills?.description ?? "", /count, digest/);
    // vault is not configured: it costs nothing in tools/list (help and search say what to set, and
    // its tools still answer NOT_CONFIGURED with the fix when called by name).
    assert.ok(!tools.some((t) => t.name.startsWith("agent_tools_vault_")));
  });

  it("help lists every plugin with its status and the protocol", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_help");
    assert.equal(isError, false);
    const plugins = payload.plugins as { prefix: string; status: string }[];
    assert.deepEqual(plugins.map((p) => p.prefix), ["notes", "tracker", "vault"]);
    assert.match(plugins[0]?.status ?? "", /^(ready|configured, not checked)$/, "ready once it has answered; before, configured but not checked");
    assert.match(plugins[2]?.status ?? "", /^not configured: set VAULT_FIXTURE_TOKEN; install vault-fixture-cli-not-installed/);
    assert.ok(Array.isArray(payload.protocol));
  });

  it("help says each fact once: a plugin not configured is its prefix and status, nothing of tools/list or the instructions again", async () => {
    const { payload } = await callJson(server.client, "agent_tools_help");
    const vault = (payload.plugins as Array<Record<string, unknown>>).find((p) => p.prefix === "vault");
    // Its description and skills cannot be acted on until it is configured; help({plugin}) still has them.
    assert.deepEqual(Object.keys(vault ?? {}), ["prefix", "status"]);
    const notes = (payload.plugins as Array<Record<string, unknown>>).find((p) => p.prefix === "notes");
    assert.equal(typeof notes?.description, "string", "a configured plugin keeps its description");
    // agent_tools_exec's own description says how the text layer works; the instructions say how errors are answered.
    assert.equal(payload.textLayer, undefined);
    assert.ok(Array.isArray(payload.textModules));
    assert.doesNotMatch(JSON.stringify(payload.protocol), /Errors carry/);
    assert.equal((payload.protocol as string[]).length, 5);
    const full = await callJson(server.client, "agent_tools_help", { plugin: "vault" });
    assert.equal(typeof (full.payload.plugin as { description?: string }).description, "string");
  });

  it("help with a mistyped plugin answers a note naming the near prefixes, not the whole fleet", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_help", { plugin: "note" });
    assert.equal(isError, false);
    assert.equal(payload.note, "no plugin has prefix 'note'; did you mean 'notes'? agent_tools_help without 'plugin' lists every plugin");
    assert.equal(payload.plugins, undefined);
    assert.equal(payload.protocol, undefined);
    const far = await callJson(server.client, "agent_tools_help", { plugin: "zzzzqqq" });
    assert.equal(far.payload.note, "no plugin has prefix 'zzzzqqq'; agent_tools_help without 'plugin' lists every plugin");
  });

  it("a very long query is cut to its first 1000 characters, and the answer says so", async () => {
    const query = `remove ${"x".repeat(20_000)}`;
    for (const [tool, args] of [["agent_tools_notes_discover", { query }], ["agent_tools_search", { query }]] as const) {
      const { payload, isError } = await callJson(server.client, tool, args);
      assert.equal(isError, false, tool);
      assert.ok(payload.repairs?.some((r) => /20007 characters; its first 1000 were used/.test(r)), `${tool}: ${JSON.stringify(payload.repairs)}`);
      assert.ok(JSON.stringify(payload).length < 5000, `${tool} does not echo the whole query`);
    }
  });

  it("discover finds a tool by a word of its description", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_notes_discover", { query: "remove" });
    assert.equal(isError, false);
    const matches = payload.matches as { name: string; kind: string; writes?: boolean }[];
    assert.equal(matches[0]?.name, "delete_note");
    assert.equal(matches[0]?.writes, true);
    // The next call is ready to send, names the required argument, and leaves confirm to the human.
    assert.deepEqual(payload.next, { tool: "agent_tools_notes_call", arguments: { toolName: "delete_note", arguments: { id: "<string>" } } });
    assert.match(String(payload.confirm), /add confirm: true \(top level\) only if the user asked/);
    assert.equal(payload.shown, matches.length);
    assert.equal(typeof payload.total, "number");
    assert.deepEqual(payload.context, { noteCount: 2 }, "discoverContext() is attached");
  });

  it("discover ranks skills and tools together and reports when matches were cut", async () => {
    const { payload } = await callJson(server.client, "agent_tools_notes_discover", { query: "notes tag", limit: 2 });
    const matches = payload.matches as { kind: string; name: string }[];
    assert.equal(matches.length, 2);
    assert.equal(payload.shown, 2);
    assert.ok((payload.total as number) > 2, "total counts every match");
    assert.match(String(payload.more), /more/);
    const all = await callJson(server.client, "agent_tools_notes_discover", { query: "digest" });
    assert.deepEqual((all.payload.matches as { kind: string; name: string }[])[0], {
      kind: "skill",
      name: "digest",
      description: "Digest of every note with a tag: titles and bodies in one answer.",
      params: "tag",
      related: [{ target: "tracker:open-summary", why: "open tickets for the same work" }],
    });
    assert.deepEqual(all.payload.next, { tool: "agent_tools_notes_run_skill", arguments: { skill: "digest", arguments: {} } });
  });

  it("discover without a query shows skills first, then read-only tools, with totals", async () => {
    const { payload } = await callJson(server.client, "agent_tools_notes_discover", {});
    const { payload: all } = await callJson(server.client, "agent_tools_notes_discover", { limit: 20 });
    const matches = all.matches as { kind?: string; name: string; writes?: boolean }[];
    assert.deepEqual(matches.slice(0, 2).map((m) => m.kind), ["skill", "skill"]);
    const firstMutating = matches.findIndex((m) => m.writes);
    const lastReadOnly = matches.map((m) => m.kind === undefined && !m.writes).lastIndexOf(true);
    assert.ok(lastReadOnly < firstMutating, "read-only tools come before mutating ones");
    assert.deepEqual(payload.totals, { tools: 8, skills: 2 });
  });

  it("a call answers the tool's result once, as one line of JSON text", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_notes_call", { toolName: "get_note", arguments: { id: "n1" } });
    assert.equal(isError, false);
    assert.equal(payload.ok, true);
    assert.deepEqual(payload.result, { id: "n1", title: "Shopping", body: "milk, bread, coffee beans", tags: ["home"] });
  });

  it("a missing required argument answers ARG_VALIDATION_FAILED naming it", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_notes_call", { toolName: "get_note", arguments: {} });
    assert.equal(isError, true);
    assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.match(payload.error?.message ?? "", /missing required property 'id'/);
    // The failing field with the part of the schema that applies to it, not the whole schema.
    assert.deepEqual((payload.error?.details?.errors as unknown[])[0], { path: "/id", message: "missing required property 'id'", schema: { type: "string" } });
    assert.equal(payload.error?.details?.schema, undefined);
    assert.ok(payload.error?.hint);
  });

  it("every violation is listed, for draft-07 and 2020-12 schemas", async () => {
    const seven = await callJson(server.client, "agent_tools_notes_call", {
      toolName: "create_note",
      arguments: { title: "", tags: "x", colour: "red" },
    });
    const errors = seven.payload.error?.details?.errors as { path: string }[];
    assert.deepEqual(errors.map((e) => e.path).sort(), ["/body", "/colour", "/tags", "/title"]);
    const twenty = await callJson(server.client, "agent_tools_tracker_call", { toolName: "assign-ticket", arguments: { id: "X-9" } });
    const errors2020 = twenty.payload.error?.details?.errors as { path: string; message: string }[];
    assert.deepEqual(errors2020.map((e) => e.path).sort(), ["/assignee", "/id"]);
    assert.match(errors2020.find((e) => e.path === "/id")?.message ?? "", /pattern/);
  });

  it("a mutating tool without confirm answers CONFIRM_REQUIRED, and runs with confirm: true", async () => {
    const args = { title: "Call the bank", body: "about the card" };
    const refused = await callJson(server.client, "agent_tools_notes_call", { toolName: "create_note", arguments: args });
    assert.equal(refused.payload.error?.code, "CONFIRM_REQUIRED");
    assert.match(refused.payload.error?.message ?? "", /'create_note' changes data/);
    assert.equal(refused.payload.error?.details?.why, "not marked read-only");
    const done = await callJson(server.client, "agent_tools_notes_call", { toolName: "create_note", arguments: args, confirm: true });
    assert.equal(done.isError, false);
    assert.deepEqual(done.payload.result, { id: "n3" });
  });

  it("readOnlyHint annotations make a tool read-only; others need confirm", async () => {
    const read = await callJson(server.client, "agent_tools_tracker_call", { toolName: "listTickets", arguments: { status: "open" } });
    assert.equal(read.isError, false);
    const write = await callJson(server.client, "agent_tools_tracker_call", { toolName: "assign-ticket", arguments: { id: "T-1", assignee: "cy" } });
    assert.equal(write.payload.error?.code, "CONFIRM_REQUIRED");
  });

  it("skills run server-side with the plugin's adapter", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_tracker_run_skill", { skill: "open-summary", arguments: {} });
    assert.equal(isError, false);
    assert.deepEqual(payload.result, { open: 2, byAssignee: { ana: ["T-1"], bo: ["T-2"] } });
    const digest = await callJson(server.client, "agent_tools_notes_run_skill", { skill: "digest", arguments: { tag: "work" } });
    assert.equal((digest.payload.result as { count: number }).count, 1);
  });

  it("a skill with a JSON Schema in meta.args has its arguments validated", async () => {
    const { payload } = await callJson(server.client, "agent_tools_notes_run_skill", { skill: "count", arguments: { colour: 1 } });
    assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.match(payload.error?.message ?? "", /unknown property 'colour'/);
  });

  it("a plugin whose requirements are missing answers NOT_CONFIGURED with what to set", async () => {
    for (const [name, args] of [
      ["agent_tools_vault_call", { toolName: "read", arguments: {} }],
      ["agent_tools_vault_discover", {}],
    ] as const) {
      const { payload, isError } = await callJson(server.client, name, args);
      assert.equal(isError, true);
      assert.equal(payload.error?.code, "NOT_CONFIGURED");
      assert.deepEqual(payload.error?.details?.missing, ["VAULT_FIXTURE_TOKEN", "vault-fixture-cli-not-installed"]);
    }
  });

  it("an adapter that throws answers UPSTREAM_ERROR and the server keeps serving", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_notes_call", { toolName: "fail_always", arguments: {} });
    assert.equal(isError, true);
    assert.equal(payload.error?.code, "UPSTREAM_ERROR");
    assert.match(payload.error?.message ?? "", /database is on fire/);
    const downstreamError = await callJson(server.client, "agent_tools_notes_call", { toolName: "get_note", arguments: { id: "zz" } });
    assert.equal(downstreamError.payload.error?.code, "UPSTREAM_ERROR");
    assert.match(downstreamError.payload.error?.message ?? "", /no note with id zz/);
    const after = await callJson(server.client, "agent_tools_notes_call", { toolName: "list_notes", arguments: {} });
    assert.equal(after.isError, false);
  });

  it("a result larger than the cap is cut with an honest marker, the cut text fitting the cap as written in the answer", async () => {
    const { payload } = await callJson(server.client, "agent_tools_notes_call", { toolName: "big_dump", arguments: { size: 300000 } });
    assert.equal(payload.ok, true);
    const truncated = payload.truncated as { originalChars: number; shownChars: number };
    const result = payload.result as string;
    assert.ok(truncated.originalChars > 300000);
    assert.equal(truncated.shownChars, result.length);
    // `{"data":"xxx…` as a JSON string: the escapes of its 3 quotes and the string's own 2 quotes take 5 of the cap's characters.
    assert.equal(JSON.stringify(result).length, 100000);
    assert.equal(result.length, 100000 - 5);
  });
});

describe("facade over stdio with a short call timeout", () => {
  it("a call slower than AGENT_TOOLS_CALL_TIMEOUT_MS answers UPSTREAM_TIMEOUT", async () => {
    // 1.5 s, not less: the quick call after it must succeed under the same deadline on a loaded machine;
    // the slow one takes 20 s, so the two cannot be confused.
    const server = await connect(undefined, { AGENT_TOOLS_CALL_TIMEOUT_MS: "1500" });
    try {
      const slow = await callJson(server.client, "agent_tools_notes_call", { toolName: "slow_echo", arguments: { ms: 20_000 } });
      assert.equal(slow.payload.error?.code, "UPSTREAM_TIMEOUT");
      assert.match(slow.payload.error?.message ?? "", /within 1500 ms/);
      const quick = await callJson(server.client, "agent_tools_notes_call", { toolName: "slow_echo", arguments: { ms: 1, text: "hi" } });
      assert.deepEqual(quick.payload.result, { text: "hi" });
    } finally {
      await server.close();
    }
  });
});

describe("the README's example plugin (examples/) over stdio", () => {
  it("tools/list ends its discover description with a sentence: the hint's first clause, not a dangling ';'", async () => {
    // Its discoverHint is "Languages are en, fr and de; a template holds {name}."
    const server = await connect(path.join(ROOT, "examples"));
    try {
      const { tools } = await server.client.listTools();
      const discover = tools.find((t) => t.name === "agent_tools_hello_discover");
      assert.ok(discover?.description, JSON.stringify(tools.map((t) => t.name)));
      assert.match(discover.description, / Languages are en, fr and de\.$/);
      assert.doesNotMatch(discover.description, /;/);
    } finally {
      await server.close();
    }
  });
});
