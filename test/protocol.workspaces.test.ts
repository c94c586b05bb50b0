import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { silentLogger } from "../src/log.js";
import { createRuntime, type Runtime } from "../src/runtime/runtime.js";
import { NONE_PASSED, Workspaces } from "../src/runtime/workspaces.js";
import { createModernEntry, type ModernEntry } from "../src/transports/http/modern.js";
import { callJson, connect, FIXTURES, PLUGINS } from "./helpers.js";
import { httpClient, httpForSuite, startHttp } from "./http-helpers.js";
import { callV2, connectHttpV2, v2Client } from "./v2-helpers.js";

/**
 * Workspaces: the text layer's state for stateless (2026-07-28) clients, carried by a signed
 * handle. In-process through createMcpHandler's fetch (with an injected clock and identities),
 * and end to end over HTTP.
 */

type ExecAnswer = { exitCode?: number; stdout?: string; workspace?: string; workspaceNote?: string; error?: { code?: string; message?: string } };

describe("workspace handles in-process", () => {
  let runtime: Runtime;
  let entry: ModernEntry;
  let clock = 1_000_000;
  before(async () => {
    runtime = await createRuntime({ pluginDirs: [path.join(PLUGINS, "agent-tools-plugin-notes")], log: silentLogger, env: {} });
    entry = createModernEntry(runtime, { workspaceIdleMs: 60_000, now: () => clock });
  });
  after(async () => {
    await entry.close();
    await runtime.close();
  });

  /** A pinned client whose requests carry `clientId` as their verified identity (what a gateway's auth would pass). */
  const clientAs = (clientId?: string) =>
    connectHttpV2(v2Client("pin"), "http://in-process.test/mcp", (url, init) =>
      entry.handler.fetch(new Request(url, init), clientId ? { authInfo: { token: "t", clientId, scopes: [] } } : {}),
    );

  it("two exec calls keep shell state through the workspace handle; without it, a fresh workspace", async () => {
    const client = await clientAs();
    const first = await callV2(client, "agent_tools_exec", { command: "export X=42; mkdir -p /tmp/w && cd /tmp/w && echo hi > f.txt" });
    const answer = first.payload as ExecAnswer;
    assert.equal(answer.exitCode, 0, JSON.stringify(answer));
    assert.match(answer.workspace ?? "", /^ws1\.[0-9a-f]{8}~[0-9a-f-]{36}\.[\w-]+$/);
    assert.match(answer.workspaceNote ?? "", /pass this `workspace`/);
    const second = (await callV2(client, "agent_tools_exec", { command: "echo $X; pwd; cat f.txt", workspace: answer.workspace })).payload as ExecAnswer;
    assert.equal(second.stdout, "42\n/tmp/w\nhi\n");
    assert.equal(second.workspace, undefined, "the handle the caller sent is not echoed");
    const fresh = (await callV2(client, "agent_tools_exec", { command: "echo \"[$X]\"" })).payload as ExecAnswer;
    assert.equal(fresh.stdout, "[]\n");
    assert.match(fresh.workspace ?? "", /^ws1\./);
    assert.notEqual(fresh.workspace, answer.workspace);
    assert.equal(fresh.workspaceNote, NONE_PASSED, "the caller holds a workspace it did not pass");
    await client.close();
  });

  it("a forged handle is refused with WORKSPACE_INVALID and says how to start a new one", async () => {
    const client = await clientAs();
    const made = ((await callV2(client, "agent_tools_exec", { command: "true" })).payload as ExecAnswer).workspace ?? "";
    const [prefix, id] = made.split(".");
    for (const forged of [`${prefix}.${id}.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`, `ws1.00000000-0000-0000-0000-000000000000.${made.split(".")[2]}`, "not-a-handle"]) {
      const refused = await callV2(client, "agent_tools_exec", { command: "echo $X", workspace: forged });
      assert.equal(refused.isError, true);
      assert.equal(refused.payload.error?.code, "WORKSPACE_INVALID", forged);
      assert.match(refused.payload.error?.message ?? "", /without 'workspace' to start a new one/);
    }
    await client.close();
  });

  it("a handle is bound to the identity it was issued to", async () => {
    const alice = await clientAs("alice");
    const bob = await clientAs("bob");
    const handle = ((await callV2(alice, "agent_tools_exec", { command: "export SECRET_PLAN=a" })).payload as ExecAnswer).workspace;
    const stolen = await callV2(bob, "agent_tools_exec", { command: "echo $SECRET_PLAN", workspace: handle });
    assert.equal(stolen.payload.error?.code, "WORKSPACE_INVALID");
    const own = (await callV2(alice, "agent_tools_exec", { command: "echo $SECRET_PLAN", workspace: handle })).payload as ExecAnswer;
    assert.equal(own.stdout, "a\n");
    await alice.close();
    await bob.close();
  });

  it("a workspace idle past the limit is refused with WORKSPACE_EXPIRED", async () => {
    const client = await clientAs();
    const handle = ((await callV2(client, "agent_tools_exec", { command: "export Y=1" })).payload as ExecAnswer).workspace;
    clock += 30_000;
    assert.equal(((await callV2(client, "agent_tools_exec", { command: "echo $Y", workspace: handle })).payload as ExecAnswer).stdout, "1\n", "use keeps it alive");
    clock += 61_000;
    const expired = await callV2(client, "agent_tools_exec", { command: "echo $Y", workspace: handle });
    assert.equal(expired.payload.error?.code, "WORKSPACE_EXPIRED");
    assert.match(expired.payload.error?.message ?? "", /expired after 1 minute unused/);
    assert.match(expired.payload.error?.hint ?? "", /without `workspace` to start a new workspace/);
    await client.close();
  });
});

describe("Workspaces with a shared store and key (two instances behind a balancer)", () => {
  it("a handle minted by one instance opens on another, with a note that the files stayed behind", async () => {
    const key = Buffer.alloc(32, 7);
    const records = new Map<string, { id: string; owner: string; createdAt: number; lastUsed: number }>();
    const store = {
      get: (id: string) => records.get(id),
      put: (r: { id: string; owner: string; createdAt: number; lastUsed: number }) => void records.set(r.id, { ...r }),
      delete: (id: string) => void records.delete(id),
      idleSince: (cutoff: number) => [...records.values()].filter((r) => r.lastUsed < cutoff),
    };
    const one = new Workspaces({ key, store });
    const two = new Workspaces({ key, store });
    const made = await one.create("carol");
    const there = await two.open(made.handle, "carol");
    assert.match(there.note ?? "", /opened again on this server instance/);
    await assert.rejects(new Workspaces({ store }).open(made.handle, "carol"), /not issued by this server/);
    await one.close();
    await two.close();
  });
});

describe("idle time of a workspace", () => {
  it("counts from the end of its last call: a call longer than the idle limit leaves its workspace usable", async () => {
    let clock = 1_000_000;
    const workspaces = new Workspaces({ key: Buffer.alloc(32, 3), idleMs: 4_000, now: () => clock });
    const made = await workspaces.create("dana");
    clock += 10_000; // the call runs past the idle limit
    await workspaces.sweep();
    await made.release();
    clock += 3_000;
    const again = await workspaces.open(made.handle, "dana");
    assert.equal(again.created, false);
    await again.release();
    clock += 4_001;
    await assert.rejects(workspaces.open(made.handle, "dana"), (e: Error & { code?: string }) => e.code === "WORKSPACE_EXPIRED" && /expired after 4 seconds unused/.test(e.message));
    await workspaces.close();
  });
});

describe("idle time of a workspace over HTTP", () => {
  const http = httpForSuite({ AGENT_TOOLS_HTTP_SESSION_IDLE_MS: "3000" });

  it("a call that ran longer than AGENT_TOOLS_HTTP_SESSION_IDLE_MS leaves its handle working; unused past it, it expires in seconds", async () => {
    const client = await connectHttpV2(v2Client("pin"), http.url);
    const long = (await callV2(client, "agent_tools_exec", { command: "echo kept > t.txt; sleep 4; echo slept" })).payload as ExecAnswer;
    assert.equal(long.stdout, "slept\n", JSON.stringify(long));
    const next = (await callV2(client, "agent_tools_exec", { command: "cat t.txt", workspace: long.workspace })).payload as ExecAnswer;
    assert.equal(next.stdout, "kept\n", JSON.stringify(next));
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const expired = (await callV2(client, "agent_tools_exec", { command: "cat t.txt", workspace: long.workspace })).payload as ExecAnswer;
    assert.equal(expired.error?.code, "WORKSPACE_EXPIRED", JSON.stringify(expired));
    assert.match(expired.error?.message ?? "", /expired after 3 seconds unused/);
    await client.close();
  });
});

describe("a workspace handle after the server restarted", () => {
  const exec = async (url: string, command: string, workspace?: string) => {
    const client = await connectHttpV2(v2Client("pin"), url);
    try {
      return (await callV2(client, "agent_tools_exec", { command, ...(workspace ? { workspace } : {}) })).payload as ExecAnswer;
    } finally {
      await client.close();
    }
  };
  const acrossRestart = async (env: Record<string, string>) => {
    const first = await startHttp(env);
    const handle = (await exec(first.url, "echo keep > k.txt")).workspace;
    await first.stop();
    const second = await startHttp(env);
    try {
      return await exec(second.url, "cat k.txt", handle);
    } finally {
      await second.stop();
    }
  };

  it("with a fixed AGENT_TOOLS_STATE_KEY: WORKSPACE_LOST naming the restart, not expired", async () => {
    const refused = await acrossRestart({ AGENT_TOOLS_STATE_KEY: "ab".repeat(32) });
    assert.equal(refused.error?.code, "WORKSPACE_LOST", JSON.stringify(refused));
    assert.match(refused.error?.message ?? "", /was opened before this server restarted: its shell's files, variables and working folder went with the earlier process/);
    assert.doesNotMatch(refused.error?.message ?? "", /unused/);
    assert.equal(refused.stdout, undefined, "nothing ran");
  });

  it("without AGENT_TOOLS_STATE_KEY: WORKSPACE_INVALID names the restart as a cause of the signature mismatch", async () => {
    const refused = await acrossRestart({});
    assert.equal(refused.error?.code, "WORKSPACE_INVALID", JSON.stringify(refused));
    assert.match(refused.error?.message ?? "", /or was issued before the server restarted with another signing key \(without AGENT_TOOLS_STATE_KEY every start makes a new one/);
  });
});

describe("workspace handles over HTTP end to end", () => {
  const http = httpForSuite();

  it("a pinned modern client keeps `export X=42` for the next `echo $X`", async () => {
    const client = await connectHttpV2(v2Client("pin"), http.url);
    const first = (await callV2(client, "agent_tools_exec", { command: "export X=42" })).payload as ExecAnswer;
    const second = (await callV2(client, "agent_tools_exec", { command: "echo $X", workspace: first.workspace })).payload as ExecAnswer;
    assert.equal(second.stdout, "42\n");
    await client.close();
  });

  it("a `workspace` that is not a handle string (5, \"\", spaces, null, an object) is refused naming it; nothing runs", async () => {
    const client = await connectHttpV2(v2Client("pin"), http.url);
    for (const [workspace, named] of [
      [5, /got number 5/],
      ["", /got an empty string/],
      ["   ", /got a string of spaces/],
      [null, /got null;/],
      [{ id: "x" }, /got object \{"id":"x"\}/],
    ] as const) {
      const refused = await callV2(client, "agent_tools_exec", { command: "echo ran", workspace });
      const label = JSON.stringify(workspace);
      assert.equal(refused.isError, true, label);
      assert.equal(refused.payload.error?.code, "WORKSPACE_INVALID", `${label}: ${JSON.stringify(refused.payload)}`);
      assert.match(refused.payload.error?.message ?? "", /'workspace' must be a workspace handle, a string like ws1\.<id>\.<signature>/, label);
      assert.match(refused.payload.error?.message ?? "", named, label);
      assert.equal((refused.payload as ExecAnswer).stdout, undefined, `${label}: nothing ran`);
      assert.equal((refused.payload as ExecAnswer).workspace, undefined, `${label}: no workspace was opened in its place`);
    }
    await client.close();
  });

  it("a 100 kB `workspace` that is not a handle string is refused with a short answer quoting its start", async () => {
    const client = await connectHttpV2(v2Client("pin"), http.url);
    const refused = await callV2(client, "agent_tools_exec", { command: "echo ran", workspace: { x: "a".repeat(100_000) } });
    assert.equal(refused.payload.error?.code, "WORKSPACE_INVALID", JSON.stringify(refused.payload).slice(0, 500));
    assert.ok(JSON.stringify(refused.payload).length < 2_000, `the answer is short, not the value sent back: ${JSON.stringify(refused.payload).length} characters`);
    assert.match(JSON.stringify(refused.payload), /\{\\"x\\":\\"aaaa/, "the start of the value is quoted");
    await client.close();
  });
});

describe("the workspace handle in exec answers over HTTP (2026-07-28)", () => {
  const http = httpForSuite();

  it("answered when new, not echoed when sent; a call that drops it is told why its files are gone", async () => {
    const client = await connectHttpV2(v2Client("pin"), http.url);
    const exec = async (args: Record<string, unknown>) => (await callV2(client, "agent_tools_exec", args)).payload as ExecAnswer;
    const first = await exec({ command: "echo data > report.txt" });
    assert.match(first.workspace ?? "", /^ws1\.[0-9a-f]{8}~[0-9a-f-]{36}\.[\w-]+$/, JSON.stringify(first));
    assert.match(first.workspaceNote ?? "", /^pass this `workspace` on your next agent_tools_exec calls/, "a first workspace: the usual note");
    const again = await exec({ command: "cat report.txt", workspace: first.workspace });
    assert.equal(again.stdout, "data\n", JSON.stringify(again));
    assert.equal(again.workspace, undefined, "the handle the caller just sent is not sent back");
    assert.equal(again.workspaceNote, undefined);
    const forgot = await exec({ command: "cat report.txt" });
    assert.notEqual(forgot.exitCode, 0, "a new workspace: the file is not there");
    assert.match(forgot.workspace ?? "", /^ws1\./, "the new handle is answered");
    assert.notEqual(forgot.workspace, first.workspace);
    assert.equal(forgot.workspaceNote, "new workspace; none was passed — pass `workspace` to keep files across calls");
    assert.equal((await exec({ command: "cat report.txt", workspace: first.workspace })).stdout, "data\n", "the first workspace is still there");
    await client.close();
  });
});

describe("connections that are their own workspace (a 2025-era HTTP session, stdio)", () => {
  const http = httpForSuite();

  const oneShell = async (call: (args: Record<string, unknown>) => Promise<{ payload: Record<string, unknown> & { error?: { code?: string; message?: string } }; isError: boolean }>, modernHandle: string) => {
    assert.equal((await call({ command: "echo mine > own.txt" })).payload.exitCode, 0);
    for (const workspace of [5, null, "", modernHandle]) {
      const refused = await call({ command: "echo ran > ran.txt; echo ran", workspace });
      const label = JSON.stringify(workspace);
      assert.equal(refused.isError, true, label);
      assert.equal(refused.payload.error?.code, "WORKSPACE_INVALID", `${label}: ${JSON.stringify(refused.payload)}`);
      assert.match(refused.payload.error?.message ?? "", /'workspace' is not taken on this connection \(got .+\): stdio and a 2025-era HTTP session keep one shell for the whole session.*nothing was run\. Send the call again without 'workspace'/, label);
      assert.equal(refused.payload.stdout, undefined, `${label}: nothing ran`);
    }
    const long = await call({ command: "echo ran", workspace: "w".repeat(100_000) });
    assert.equal(long.payload.error?.code, "WORKSPACE_INVALID");
    assert.ok(JSON.stringify(long.payload).length < 2_000, `a 100 kB workspace gets a short answer: ${JSON.stringify(long.payload).length} characters`);
    const after = (await call({ command: "cat own.txt; cat ran.txt 2>/dev/null || echo none" })).payload;
    assert.equal(after.stdout, "mine\nnone\n", "the session's own shell kept its file, and the refused lines ran nothing");
  };

  it("a 2025-era HTTP session refuses a `workspace` (junk or a modern handle) instead of ignoring it; nothing runs", async () => {
    const modern = await connectHttpV2(v2Client("pin"), http.url);
    const handle = ((await callV2(modern, "agent_tools_exec", { command: "true" })).payload as ExecAnswer).workspace ?? "";
    await modern.close();
    const { client } = await httpClient(http.url);
    await oneShell((args) => callJson(client, "agent_tools_exec", args), handle);
    await client.close();
  });

  it("stdio does the same", async () => {
    const server = await connect();
    try {
      await oneShell((args) => callJson(server.client, "agent_tools_exec", args), "ws1.x~y.z");
    } finally {
      await server.close();
    }
  });
});

describe("jobs of a modern caller are the same from agent_tools_exec and from the typed tools", () => {
  const http = httpForSuite({ AGENT_TOOLS_PLUGINS_DIR: path.join(FIXTURES, "team-plugins") });

  it("a job started with _call is seen and cancelled from an exec workspace, and one started there is seen with _call after the workspace", async () => {
    const client = await connectHttpV2(v2Client("pin"), http.url);
    const typed = async (toolName: string, args: Record<string, unknown>) => (await callV2(client, "agent_tools_worker_call", { toolName, arguments: args, confirm: true })).payload as { result?: { jobId?: string; state?: string }; error?: { code?: string } };
    const inShell = async (command: string, workspace?: string) => (await callV2(client, "agent_tools_exec", { command, ...(workspace ? { workspace } : {}) })).payload as ExecAnswer;
    const fromCall = (await typed("start_job", { ms: 60_000, label: "typed" })).result?.jobId ?? "";
    assert.match(fromCall, /^job_/);
    const seen = await inShell(`worker call job_status --jobId ${fromCall} | jq -r .result.state`);
    assert.equal(seen.stdout, "running\n", JSON.stringify(seen));
    assert.equal((await inShell(`worker call cancel_job --jobId ${fromCall} --confirm | jq -r .result.state`, seen.workspace)).stdout, "cancelled\n");
    const started = await inShell("worker call start_job --ms 0 --label shell --confirm | jq -r .result.jobId");
    const fromShell = started.stdout?.trim() ?? "";
    assert.match(fromShell, /^job_/, JSON.stringify(started));
    const status = await typed("job_status", { jobId: fromShell });
    assert.ok(status.result?.state === "succeeded" || status.result?.state === "running", JSON.stringify(status));
    await client.close();
  });
});

describe("the workspace cap: room is made from the caller holding the most, never from a call in flight", () => {
  let runtime: Runtime;
  let entry: ModernEntry;
  before(async () => {
    runtime = await createRuntime({ pluginDirs: [path.join(PLUGINS, "agent-tools-plugin-notes")], log: silentLogger, env: {} });
    entry = createModernEntry(runtime, { maxWorkspaces: 4 });
  });
  after(async () => {
    await entry.close();
    await runtime.close();
  });
  const clientAs = (clientId: string) =>
    connectHttpV2(v2Client("pin"), "http://in-process.test/mcp", (url, init) => entry.handler.fetch(new Request(url, init), { authInfo: { token: "t", clientId, scopes: [] } }));
  const exec = async (client: Awaited<ReturnType<typeof clientAs>>, command: string, workspace?: string) =>
    (await callV2(client, "agent_tools_exec", { command, ...(workspace ? { workspace } : {}) })).payload as ExecAnswer & { error?: { code?: string; message?: string } };

  it("another caller's flood of unnamed exec calls closes its own workspaces, not the one in use elsewhere; a closed handle says why", async () => {
    const alice = await clientAs("alice");
    const bob = await clientAs("bob");
    const mine = (await exec(alice, "export KEEP=alice")).workspace;
    const bobs: string[] = [];
    for (let i = 0; i < 12; i++) bobs.push((await exec(bob, "true")).workspace ?? "");
    assert.equal((await exec(alice, "echo $KEEP", mine)).stdout, "alice\n", "alice's workspace survived bob's flood");
    assert.ok(entry.workspaces.liveCount <= 4, `the cap holds (${entry.workspaces.liveCount} live)`);
    const gone = await exec(bob, "true", bobs[0]);
    assert.equal(gone.error?.code, "WORKSPACE_EXPIRED");
    assert.match(gone.error?.message ?? "", /was closed to make room \(this server holds at most 4 workspaces, AGENT_TOOLS_HTTP_MAX_WORKSPACES, and it was the least recently used idle one of the caller holding the most\); its files are gone; call agent_tools_exec without 'workspace'/);
    assert.doesNotMatch(gone.error?.message ?? "", /minutes unused/, "not told it sat unused");
    assert.equal((await exec(bob, "true", bobs[11])).exitCode, 0, "bob's most recent workspace is kept");
    await alice.close();
    await bob.close();
  });

  it("a workspace with a call in flight is never closed to make room: the call's handle works after it", async () => {
    const carol = await clientAs("carol");
    const busy = (await exec(carol, "export BUSY=yes")).workspace;
    // The long call makes carol's workspace the most recently used; then her own flood passes the cap many times over.
    const long = exec(carol, "sleep 2; echo $BUSY", busy);
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (let i = 0; i < 12; i++) await exec(carol, "true");
    const answered = await long;
    assert.equal(answered.stdout, "yes\n", JSON.stringify(answered));
    assert.equal(answered.workspace, undefined, "the handle sent is not echoed: it is still the one to use");
    assert.equal((await exec(carol, "echo $BUSY", busy)).stdout, "yes\n", "the handle the call returned still works");
    await carol.close();
  });
});

describe("the workspace cap over HTTP", () => {
  const http = httpForSuite({ AGENT_TOOLS_HTTP_MAX_WORKSPACES: "3" });

  it("AGENT_TOOLS_HTTP_MAX_WORKSPACES sets the cap, and a workspace closed to make room says so", async () => {
    const client = await connectHttpV2(v2Client("pin"), http.url);
    const first = ((await callV2(client, "agent_tools_exec", { command: "export A=1" })).payload as ExecAnswer).workspace;
    for (let i = 0; i < 3; i++) await callV2(client, "agent_tools_exec", { command: "true" });
    const closed = await callV2(client, "agent_tools_exec", { command: "echo $A", workspace: first });
    assert.equal(closed.payload.error?.code, "WORKSPACE_EXPIRED");
    assert.match(closed.payload.error?.message ?? "", /was closed to make room \(this server holds at most 3 workspaces/);
    await client.close();
  });
});
