import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { silentLogger } from "../src/log.js";
import { createRuntime, type Runtime } from "../src/runtime/runtime.js";
import { closeSession } from "../src/runtime/session.js";
import { PLUGINS, textJson, writePlugin } from "./helpers.js";
import { linkFacade, type LinkedFacade } from "./memory-kit.js";

/**
 * Sessions at the runtime level: two facade servers (one per session, as the HTTP transport
 * makes them) over the SDK's in-memory transport, sharing one runtime.
 */

type ExecAnswer = { exitCode: number; stdout: string; stderr: string };

interface Linked extends LinkedFacade {
  exec(command: string): Promise<ExecAnswer>;
}

async function link(runtime: Runtime, id: string): Promise<Linked> {
  const linked = await linkFacade(runtime, id);
  return {
    ...linked,
    async exec(command) {
      return (await linked.call("agent_tools_exec", { command })).payload as unknown as ExecAnswer;
    },
  };
}

describe("text layer sessions", () => {
  let runtime: Runtime;
  let a: Linked;
  let b: Linked;
  before(async () => {
    runtime = await createRuntime({ pluginDirs: [`${PLUGINS}/agent-tools-plugin-notes`], env: {}, log: silentLogger });
    a = await link(runtime, "session-a");
    b = await link(runtime, "session-b");
  });
  after(async () => {
    await a.client.close();
    await b.client.close();
    await runtime.close();
  });

  it("creates nothing before the first command line", async () => {
    await a.client.callTool({ name: "agent_tools_help", arguments: {} });
    await a.client.callTool({ name: "agent_tools_notes_discover", arguments: {} });
    // The runtime keeps its own per-session notes (which discover hints were shown); the text layer's are under its key.
    assert.ok(![...a.session.extensions.keys()].some((k) => String(k).startsWith("agent-tools:text-layer")), "no text-layer state until agent_tools_exec is called");
    assert.equal(a.session.disposers.length, 0);
  });

  it("two sessions have separate filesystems, variables, directories and modules", async () => {
    assert.equal((await a.exec("echo from-a > mine.txt; export WHO=a; mkdir -p /tmp/a && cd /tmp/a")).exitCode, 0);
    await a.exec("load commands/runtime-demo");
    assert.equal((await a.exec("cat ~/mine.txt; echo $WHO; pwd")).stdout, "from-a\na\n/tmp/a\n");
    const other = await b.exec("cat ~/mine.txt; echo \"[$WHO]\"; pwd; ls /tmp");
    assert.match(other.stderr, /mine\.txt: No such file or directory/);
    assert.equal(other.stdout, "[]\n/home/user\n");
    assert.equal((await b.exec("runtime-echo hi")).exitCode, 127, "a module loaded in one session is not in the other");
    assert.equal((await a.exec("runtime-echo hi")).stdout, "hi\n");
  });

  it("a heredoc keeps its indentation: a YAML file written in one call is read in the next", async () => {
    await a.exec("cat > conf.yaml <<EOF\nserver:\n  port: 8080\n  hosts:\n    - a\n    - b\nEOF");
    assert.equal((await a.exec("yq '.server.hosts | length' conf.yaml")).stdout, "2\n");
  });

  it("the loop breaker's memory is per session, as with the typed facade", async () => {
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await a.exec("notes call get_note --id")).exitCode);
    assert.deepEqual(codes, [2, 2, 6]);
    assert.equal((await b.exec("notes call get_note --id")).exitCode, 2, "the other session has not failed yet");
  });

  it("ending a session frees its sandbox; a new session starts empty", async () => {
    const third = await link(runtime, "session-c");
    await third.exec("echo x > gone.txt");
    assert.equal(third.session.disposers.length, 1, "the text layer registered one disposer");
    await closeSession(third.session);
    assert.equal(third.session.extensions.size, 0);
    const fresh = await third.exec("cat gone.txt");
    assert.notEqual(fresh.exitCode, 0, "the old filesystem is gone");
    await third.client.close();
  });
});

describe("plugin command names", () => {
  it("a plugin named like a sandbox command becomes plugin-<prefix>, and the command keeps working", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-sort-plugin-"));
    const pluginDir = writePlugin(
      path.join(dir, "agent-tools-plugin-sort"),
      { name: "sort", prefix: "sort", description: "tickets, under a name that is a shell command", adapter: "./adapter.mjs", adapterExport: "createTrackerAdapter" },
      { "adapter.mjs": readFileSync(path.join(PLUGINS, "agent-tools-plugin-tracker", "adapter.mjs"), "utf8") },
    );
    const runtime = await createRuntime({ pluginDirs: [pluginDir], env: {}, log: silentLogger });
    const linked = await link(runtime, "names");
    const list = (await linked.client.callTool({ name: "agent_tools_exec", arguments: { command: "list" } })) as CallToolResult;
    assert.deepEqual(textJson<{ result: { commands: { name: string }[] } }>(list).result.commands.map((c) => c.name), ["plugin-sort"]);
    assert.equal((await linked.exec("printf 'b\\na\\n' | sort")).stdout, "a\nb\n");
    assert.equal((await linked.exec("plugin-sort call listTickets --status closed | jq -r '.result.tickets[0].id'")).stdout, "T-3\n");
    await linked.client.close();
    await runtime.close();
  });
});
