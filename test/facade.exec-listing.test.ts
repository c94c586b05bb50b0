import assert from "node:assert/strict";
import path from "node:path";
import { after, describe, it } from "node:test";
import type { ServerContext } from "@modelcontextprotocol/server";
import type { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Client as V2Client } from "@modelcontextprotocol/client";
import { createFacade, facadeCallEntry, type SessionScope } from "../src/facade/server.js";
import { silentLogger } from "../src/log.js";
import { createRuntime } from "../src/runtime/runtime.js";
import { callJson, connect, type Payload, ROOT } from "./helpers.js";
import { httpClient, httpForSuite } from "./http-helpers.js";
import { callV2, connectHttpV2, connectStdioV2, v2Client } from "./v2-helpers.js";

/**
 * agent_tools_exec lists `workspace` only where it is taken: a 2026-07-28 HTTP caller (no session:
 * the handle picks the shell). On stdio (either era) and a 2025-era HTTP session the connection is
 * the workspace, so the argument is not listed there, and one sent anyway (from a list made
 * elsewhere) is still refused with WORKSPACE_INVALID, nothing run.
 */

type Tool = { name: string; description?: string; inputSchema: { properties?: Record<string, unknown>; required?: string[] } };
type Call = (args: Record<string, unknown>) => Promise<{ payload: Payload; isError: boolean }>;

const execOf = (tools: readonly Tool[]): Tool => {
  const exec = tools.find((tool) => tool.name === "agent_tools_exec");
  assert.ok(exec, `agent_tools_exec is listed: ${tools.map((t) => t.name).join(", ")}`);
  return exec;
};

/** The exec tool of a connection where the connection is the workspace: `command` alone, no word of workspaces. */
function assertOneShell(tools: readonly Tool[], where: string): void {
  const exec = execOf(tools);
  assert.deepEqual(Object.keys(exec.inputSchema.properties ?? {}), ["command"], `${where}: ${JSON.stringify(exec.inputSchema)}`);
  assert.deepEqual(exec.inputSchema.required, ["command"], where);
  assert.doesNotMatch(JSON.stringify(exec), /workspace/i, `${where}: nothing in the tool speaks of workspaces`);
}

/** A `workspace` sent anyway is refused and nothing runs; a stray key is said naming only what the tool takes here. */
async function assertRefusedAnyway(call: Call, where: string): Promise<void> {
  const refused = await call({ command: "echo ran > ran.txt; echo ran", workspace: "ws1.x~y.z" });
  assert.equal(refused.isError, true, where);
  assert.equal(refused.payload.error?.code, "WORKSPACE_INVALID", `${where}: ${JSON.stringify(refused.payload)}`);
  assert.match(refused.payload.error?.message ?? "", /'workspace' is not taken on this connection \(got 'ws1\.x~y\.z'\).*nothing was run\. Send the call again without 'workspace'/, where);
  assert.equal(refused.payload.stdout, undefined, `${where}: nothing ran`);
  const stray = await call({ command: "cat ran.txt 2>/dev/null || echo none", cwdir: "/" });
  assert.equal(stray.payload.stdout, "none\n", `${where}: the refused line ran nothing: ${JSON.stringify(stray.payload)}`);
  const repairs = (stray.payload.repairs ?? []) as string[];
  assert.ok(
    repairs.some((line) => /'cwdir' is not a parameter of agent_tools_exec; it was ignored\. agent_tools_exec takes: command$/.test(line)),
    `${where}: the stray key's note names only what the tool takes here: ${JSON.stringify(repairs)}`,
  );
}

describe("agent_tools_exec over stdio lists no `workspace`, in either era", () => {
  it("a 2025-era connection", async () => {
    const server = await connect();
    try {
      assertOneShell((await server.client.listTools()).tools as Tool[], "stdio 2025");
      await assertRefusedAnyway((args) => callJson(server.client, "agent_tools_exec", args), "stdio 2025");
    } finally {
      await server.close();
    }
  });

  it("a 2026-07-28 connection", async () => {
    const { client } = await connectStdioV2(v2Client("pin"));
    try {
      assertOneShell((await client.listTools()).tools as Tool[], "stdio 2026-07-28");
      await assertRefusedAnyway((args) => callV2(client, "agent_tools_exec", args), "stdio 2026-07-28");
    } finally {
      await client.close();
    }
  });
});

describe("agent_tools_exec over HTTP: `workspace` listed to 2026-07-28 callers only", () => {
  const http = httpForSuite();
  const clients: (V1Client | V2Client)[] = [];
  after(() => Promise.all(clients.map((client) => client.close())));

  it("a 2025-era session lists none and refuses one sent anyway; a 2026-07-28 caller lists it, the rest of the list the same", async () => {
    const { client: legacy } = await httpClient(http.url);
    clients.push(legacy);
    const modern = await connectHttpV2(v2Client("pin"), http.url);
    clients.push(modern);
    const legacyTools = (await legacy.listTools()).tools as Tool[];
    const modernTools = (await modern.listTools()).tools as Tool[];
    assertOneShell(legacyTools, "HTTP 2025 session");
    const exec = execOf(modernTools);
    assert.deepEqual(Object.keys(exec.inputSchema.properties ?? {}), ["command", "workspace"]);
    assert.deepEqual(exec.inputSchema.properties?.workspace, { type: "string", "x-mcp-header": "Workspace", description: "The `workspace` of an earlier answer (same shell state)." });
    assert.deepEqual(exec.inputSchema.required, ["command"], "`workspace` stays optional: left out, a new workspace is opened");
    // Only the argument differs: the same tools, and the same exec tool without it.
    const { workspace: _listed, ...rest } = exec.inputSchema.properties ?? {};
    const withoutIt = modernTools.map((tool) => (tool === exec ? { ...tool, inputSchema: { ...tool.inputSchema, properties: rest } } : tool));
    assert.deepEqual(withoutIt, legacyTools);
    await assertRefusedAnyway((args) => callJson(legacy, "agent_tools_exec", args), "HTTP 2025 session");
    // Where it is listed it is taken: the answer's handle continues the same shell.
    const first = (await callV2(modern, "agent_tools_exec", { command: "export K=7" })).payload as { workspace?: string };
    assert.match(first.workspace ?? "", /^ws1\./);
    assert.equal((await callV2(modern, "agent_tools_exec", { command: "echo $K", workspace: first.workspace })).payload.stdout, "7\n");
  });
});

describe("the two lists are made once each, not per connection (issue #16)", async () => {
  const runtime = await createRuntime({ pluginDirs: [path.join(ROOT, "test", "fixtures", "plugins", "agent-tools-plugin-notes")], log: silentLogger, env: { AGENT_TOOLS_FACADE: "compact" } });
  after(() => runtime.close());
  const facade = createFacade(runtime);
  // canAsk false: the list does not ask the client's capabilities, so a bare context serves.
  const oneShell = (): SessionScope => ({ session: () => runtime.createSession("one-shell"), canAsk: false });
  const workspaces = (): SessionScope => {
    const session = runtime.createSession("workspaces");
    return { session: () => session, execSession: async () => ({ session }), canAsk: false };
  };
  const listOf = async (scope: SessionScope): Promise<{ tools: Tool[] }> => {
    const entry = facadeCallEntry(facade.server(scope));
    assert.ok(entry);
    return (await entry.list({} as ServerContext)) as unknown as { tools: Tool[] };
  };

  it("two one-shell Servers answer the very same list, two workspace-taking Servers theirs, and the two differ by `workspace`", async () => {
    const [a, b, c, d] = await Promise.all([listOf(oneShell()), listOf(oneShell()), listOf(workspaces()), listOf(workspaces())]);
    assert.equal(a, b, "one list object for every one-shell connection");
    assert.equal(c, d, "one list object for every workspace-taking connection");
    assertOneShell(a.tools, "one-shell view");
    assert.deepEqual(Object.keys(execOf(c.tools).inputSchema.properties ?? {}), ["command", "workspace"]);
    assert.deepEqual(facade.tools, a.tools, "the facade's own list is stdio's");
  });
});
