import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { serverEntry } from "./fixtures/mcp/support.js";
import { callJson, connect, forSuite, stdioForSuite } from "./helpers.js";
import { tasksAgentForSuite } from "./tasks-api-helpers.js";

// An ARG_VALIDATION_FAILED answer names what to send instead: the misspelt argument beside the
// missing one (at the top level and inside nested objects), the properties to add, the types in
// words, and a placeholder of `next` still where the real value goes.

describe("a failed call names its undeclared arguments", () => {
  const server = stdioForSuite();

  it("a wrong-case argument on an open schema is named with the parameter it means, and the hint leads to a call that runs", async () => {
    const { payload } = await callJson(server.client, "agent_tools_notes_call", { toolName: "search_notes", arguments: { Text: "milk" } });
    assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.equal(payload.error?.message, "arguments for 'search_notes' are invalid: /text: missing required property 'text'; /Text: not a declared parameter; did you mean 'text'?");
    assert.deepEqual((payload.error?.details?.errors as { path: string }[]).map((e) => e.path), ["/text", "/Text"]);
    const fixed = await callJson(server.client, "agent_tools_notes_call", { toolName: "search_notes", arguments: { text: "milk" } });
    assert.equal(fixed.isError, false);
  });

  it("an undeclared argument with no near parameter is named with the declared ones", async () => {
    const { payload } = await callJson(server.client, "agent_tools_notes_call", { toolName: "search_notes", arguments: { banana: 1 } });
    assert.match(payload.error?.message ?? "", /\/banana: not a declared parameter \(declared: text, limit\)$/);
  });

  it("a valid call's undeclared argument is still said in repairs only, not refused", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_notes_call", { toolName: "search_notes", arguments: { text: "milk", limt: 2 } });
    assert.equal(isError, false);
    assert.deepEqual(payload.repairs, ["'limt' is not a parameter of 'search_notes' (it takes: text, limit); it was passed on as sent. Did you mean 'limit'?"]);
  });
});

describe("minProperties and type unions, against the tasks API", () => {
  const tasks = tasksAgentForSuite("validation-next");

  it("update_task with only its id names the properties to add and keeps minProperties in the schema fragment", async () => {
    const { payload } = await callJson(tasks.agent.client, "agent_tools_tasks_call", { toolName: "update_task", arguments: { id: 1 } });
    assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.match(payload.error?.message ?? "", /must NOT have fewer than 2 properties; add one or more of 'title', 'description', 'status', 'due'$/);
    const [entry] = payload.error?.details?.errors as { schema: Record<string, unknown> }[];
    assert.equal(entry?.schema.minProperties, 2);
    assert.deepEqual(entry?.schema.properties, ["id", "title", "description", "status", "due"]);
  });

  it("a nullable field's type is said in words", async () => {
    const { payload } = await callJson(tasks.agent.client, "agent_tools_tasks_call", { toolName: "create_task", arguments: { title: "t", due: 5 }, confirm: true });
    assert.match(payload.error?.message ?? "", /\/due: 'due' must be a string or null$/);
  });
});

describe("the placeholders of `next` are refused before anything is sent, against the tasks API", () => {
  const tasks = tasksAgentForSuite("validation-placeholders");
  const call = (name: string, args: Record<string, unknown>) => callJson(tasks.agent.client, name, args);
  const titles = async () => {
    const { payload } = await call("agent_tools_tasks_call", { toolName: "list_tasks", arguments: {} });
    return (payload.result as { data: { tasks: { title: string }[] } }).data.tasks.map((t) => t.title);
  };

  it("a search hit's `next` sent back unchanged (with confirm) is ARG_VALIDATION_FAILED naming the argument; no task is created", async () => {
    const { payload } = await call("agent_tools_search", { query: "create a task", plugin: "tasks" });
    const hits = payload.hits as { name: string; next: { tool: string; arguments: Record<string, unknown> } }[];
    for (const name of ["create_task", "insert-and-verify-task"]) {
      const hit = hits.find((h) => h.name === name) ?? assert.fail(`no hit ${name}: ${JSON.stringify(hits)}`);
      assert.deepEqual(hit.next.arguments.arguments, { title: "<string>" });
      const sent = await call(hit.next.tool, { ...hit.next.arguments, confirm: true });
      assert.equal(sent.payload.error?.code, "ARG_VALIDATION_FAILED", JSON.stringify(sent.payload));
      assert.match(sent.payload.error?.message ?? "", /: 'title' still holds the placeholder "<string>" from `next`; put the real value\. Nothing was sent\.$/);
      assert.deepEqual(sent.payload.error?.details?.errors, [{ path: "/title", message: 'still holds the placeholder "<string>" from `next`' }]);
    }
    // The same through the sandbox's command line, whose `next` is a command.
    const line = await call("agent_tools_exec", { command: `tasks call create_task '{"title":"<string>"}' --confirm` });
    assert.match(String(line.payload.stderr), /'title' still holds the placeholder "<string>" from `next`/);
    assert.deepEqual(await titles(), [], "nothing reached the API");
  });

  it("a placeholder of another type is named as the placeholder it is, not as a wrong type", async () => {
    const { payload } = await call("agent_tools_tasks_call", { toolName: "get_task", arguments: { id: "<integer>" } });
    assert.match(payload.error?.message ?? "", /'id' still holds the placeholder "<integer>" from `next`/);
    assert.doesNotMatch(payload.error?.message ?? "", /must be an integer/);
  });

  it("a text that only contains one, or angle brackets that are no placeholder of the runtime, is sent", async () => {
    for (const title of ["fix the <string> parser", "<date>", "<String>"]) {
      const { payload, isError } = await call("agent_tools_tasks_call", { toolName: "create_task", arguments: { title }, confirm: true });
      assert.equal(isError, false, JSON.stringify(payload));
    }
    assert.deepEqual((await titles()).sort(), ["<String>", "<date>", "fix the <string> parser"]);
  });
});

describe("nested arguments, against server-memory over stdio", () => {
  let dir = "";
  const memory = forSuite(
    () => {
      dir = mkdtempSync(path.join(tmpdir(), "validation-nested-"));
      const config = path.join(dir, "agent-tools.config.json");
      writeFileSync(config, JSON.stringify({ mcpServers: { memory: { command: process.execPath, args: [serverEntry("memory")], env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") } } } }));
      return connect(path.join(dir, "no-plugins"), { AGENT_TOOLS_CONFIG: config });
    },
    async (connected) => {
      await connected.close();
      rmSync(dir, { recursive: true, force: true });
    },
  );
  const stored = () => (existsSync(path.join(dir, "memory.jsonl")) ? readFileSync(path.join(dir, "memory.jsonl"), "utf8") : "");

  it("a misspelt key inside an array's object is named with the property it means, as a top-level one is", async () => {
    const { payload } = await callJson(memory.client, "agent_tools_memory_call", { toolName: "create_relations", arguments: { relations: [{ from: "Alice", to: "Bob", relation_type: "knows" }] }, confirm: true });
    assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.match(payload.error?.message ?? "", /\/relations\/0\/relationType: missing required property 'relations\[0\]\.relationType'; \/relations\/0\/relation_type: not a declared property; did you mean 'relationType'\?$/);
    assert.deepEqual((payload.error?.details?.errors as { path: string }[]).map((e) => e.path), ["/relations/0/relationType", "/relations/0/relation_type"]);
    // A key near no property is named with the declared ones.
    const far = await callJson(memory.client, "agent_tools_memory_call", { toolName: "create_relations", arguments: { relations: [{ from: "Alice", to: "Bob", kind: "knows" }] }, confirm: true });
    assert.match(far.payload.error?.message ?? "", /\/relations\/0\/kind: not a declared property \(declared: from, to, relationType\)$/);
  });

  it("a placeholder deep inside the arguments is named by its path, and nothing is written", async () => {
    const entities = [{ name: "Alice", entityType: "person", observations: ["likes tea"] }, { name: "<string>", entityType: "<string>", observations: ["<string>"] }];
    const { payload } = await callJson(memory.client, "agent_tools_memory_call", { toolName: "create_entities", arguments: { entities }, confirm: true });
    assert.equal(payload.error?.code, "ARG_VALIDATION_FAILED");
    assert.match(payload.error?.message ?? "", /: 'entities\[1\]\.name', 'entities\[1\]\.entityType', 'entities\[1\]\.observations\[0\]' still hold placeholders \("<string>"\) from `next`; put the real values\. Nothing was sent\.$/);
    assert.deepEqual((payload.error?.details?.errors as { path: string }[]).map((e) => e.path), ["/entities/1/name", "/entities/1/entityType", "/entities/1/observations/0"]);
    assert.equal(stored(), "", "the memory file was not written");
  });
});
