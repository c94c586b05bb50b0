import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { startHttpFixture, type HttpFixture } from "./fixtures/mcp/http-server.js";
import { OAuthTokenStore } from "../src/adapters/mcp/oauth-token-store.js";
import { createRedactor } from "../src/adapters/shared/redact.js";
import { baseEnv, MCP_BIN, writePlugin } from "./helpers.js";
import { lockHolder } from "./lock-holder.js";

// A call whose OAuth token must be refreshed while another process holds the store's lock: the
// runtime waits for the lock, and the call's cancel (the client's) or its deadline
// (AGENT_TOOLS_CALL_TIMEOUT_MS) ends that wait at once. Once the lock is let go, nothing of the
// call is sent: neither a refresh to the token endpoint nor the tools/call to the server.

/** The store's lock's stale age in the runtime (oauth-token-store.ts): the holder must refresh its lock as often. */
const STORE_LOCK_STALE_MS = 15_000;

interface Runtime {
  client: Client;
  stderr: () => string;
}

const fixtures: HttpFixture[] = [];
const runtimes: Runtime[] = [];
const holders: ChildProcess[] = [];
const dirs: string[] = [];
after(async () => {
  for (const holder of holders) holder.kill("SIGKILL");
  await Promise.all(runtimes.map((r) => r.client.close().catch(() => undefined)));
  await Promise.all(fixtures.map((f) => f.close()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A runtime serving the fixture behind a token store, connected with a valid token, the store then made expired and its lock held by another process. */
async function waitingForTheLock(env: Record<string, string> = {}): Promise<{ server: HttpFixture; runtime: Runtime; holder: ChildProcess; store: string }> {
  const server = await startHttpFixture({ bearer: true });
  fixtures.push(server);
  server.validAccess.add("access-valid");
  server.validRefresh.add("refresh-0");
  const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-lock-cancel-"));
  dirs.push(dir);
  const store = path.join(dir, "tokens.json");
  const tokens = { access_token: "access-valid", refresh_token: "refresh-0", token_endpoint: server.tokenEndpoint, client_id: "agent-tools" };
  writeFileSync(store, JSON.stringify({ ...tokens, expires_at: Date.now() + 3_600_000 }), { mode: 0o600 });
  writePlugin(path.join(dir, "agent-tools-plugin-remote"), { name: "remote", prefix: "remote", description: "An OAuth-protected MCP server (tests only)", adapter: { kind: "mcp", url: server.url, auth: { tokenStore: store } } });
  const transport = new StdioClientTransport({ command: process.execPath, args: [MCP_BIN], env: baseEnv({ AGENT_TOOLS_PLUGINS_DIR: dir, ...env }), cwd: dir, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "lock-cancel-test", version: "0.0.0" });
  await client.connect(transport);
  const runtime = { client, stderr: () => stderr };
  runtimes.push(runtime);
  // Connected, with the token in use.
  assert.equal((await echo(runtime, "warm")).ok, true, stderr);
  // The user's store now holds an expired token (read again: the file changed), and another runtime refreshes it.
  writeFileSync(store, JSON.stringify({ ...tokens, expires_at: Date.now() - 60_000 }), { mode: 0o600 });
  const holder = await lockHolder(`${store}.lock`, STORE_LOCK_STALE_MS);
  holders.push(holder);
  return { server, runtime, holder, store };
}

async function echo(runtime: Runtime, text: string, signal?: AbortSignal): Promise<{ ok: boolean; text: string }> {
  const result = (await runtime.client.callTool({ name: "agent_tools_remote_call", arguments: { toolName: "echo", arguments: { text } } }, undefined, signal ? { signal, timeout: 120_000 } : { timeout: 120_000 })) as CallToolResult;
  const payload = JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? "{}") as { ok: boolean };
  return { ok: payload.ok === true, text: JSON.stringify(payload) };
}

/** Let the lock go as a runtime does on SIGTERM (proper-lockfile's exit hook removes it): a wait still under way takes it at once. */
async function letGo(holder: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => holder.once("exit", resolve));
  holder.kill("SIGTERM");
  await exited;
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe("a refresh waiting for another process's lock on the token store", { timeout: 180_000 }, () => {
  it("ends when the client cancels the call: nothing is sent to the token endpoint or the server once the lock is free", async () => {
    const { server, runtime, holder, store } = await waitingForTheLock();
    const postsBefore = server.stats.streamablePosts;
    const controller = new AbortController();
    const calling = echo(runtime, "cancelled", controller.signal).then(
      () => "answered",
      (error: unknown) => String(error),
    );
    // Long enough for the call to reach the lock wait (it polls the lock every 200 ms at most).
    await pause(2_000);
    controller.abort("the user pressed stop");
    assert.match(await calling, /abort|cancel|stop/i);
    await pause(1_000);
    await letGo(holder);
    // A wait still under way would take the free lock within 200 ms, refresh and send the call.
    await pause(3_000);
    assert.deepEqual(server.stats.tokenRequests, [], "no refresh was sent for the cancelled call");
    assert.equal(server.stats.streamablePosts, postsBefore, "nothing of the cancelled call reached the server");
    assert.equal(JSON.parse(readFileSync(store, "utf8")).refresh_token, "refresh-0", "the store is unchanged");
    // The runtime is not stuck: the next call refreshes once and is served.
    const next = await echo(runtime, "after");
    assert.ok(next.ok, next.text + runtime.stderr().slice(-1000));
    assert.equal(server.stats.tokenRequests.length, 1);
  });

  it("ends at the call's deadline (AGENT_TOOLS_CALL_TIMEOUT_MS) with the deadline's answer, not after the lock's wait", async () => {
    const { server, runtime, holder } = await waitingForTheLock({ AGENT_TOOLS_CALL_TIMEOUT_MS: "3000" });
    const postsBefore = server.stats.streamablePosts;
    const began = Date.now();
    const answer = await echo(runtime, "too late");
    const tookMs = Date.now() - began;
    assert.equal(answer.ok, false, answer.text);
    // The answer any call past its deadline gets.
    assert.match(answer.text, /"code":"UPSTREAM_TIMEOUT","message":"tool 'remote\/echo' did not answer within 3000 ms"/);
    assert.doesNotMatch(answer.text, /stayed held by another process/);
    // The deadline (3 s) and a margin for a loaded machine; the lock's own wait is 60 s.
    assert.ok(tookMs < 20_000, `answered after ${tookMs} ms`);
    await letGo(holder);
    await pause(3_000);
    assert.deepEqual(server.stats.tokenRequests, [], "no refresh was sent after the deadline");
    assert.equal(server.stats.streamablePosts, postsBefore, "nothing of the call reached the server");
  });

  it("two callers wait for one refresh: the one cancelled leaves at once, the other gets the token once the lock is free; with both gone nothing is sent", async () => {
    const server = await startHttpFixture({ bearer: true });
    fixtures.push(server);
    server.validRefresh.add("refresh-0");
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-lock-cancel-"));
    dirs.push(dir);
    const file = path.join(dir, "tokens.json");
    const expired = JSON.stringify({ access_token: "old", refresh_token: "refresh-0", expires_at: Date.now() - 60_000, token_endpoint: server.tokenEndpoint, client_id: "agent-tools" });
    writeFileSync(file, expired);
    const staleMs = 4_000;
    const store = new OAuthTokenStore(file, { redactor: createRedactor(), lockStaleMs: staleMs });

    let holder = await lockHolder(`${file}.lock`, staleMs);
    holders.push(holder);
    const [first, second] = [new AbortController(), new AbortController()];
    const settled = (p: Promise<string>): Promise<string> => p.then((token) => `token ${token}`, (error: unknown) => `failed: ${String(error)}`);
    const a = settled(store.accessToken(first.signal));
    const b = settled(store.accessToken(second.signal));
    await pause(500);
    const cancelledAt = Date.now();
    first.abort(new Error("the first caller gave up"));
    assert.equal(await a, "failed: Error: the first caller gave up");
    assert.ok(Date.now() - cancelledAt < 1_000, `left after ${Date.now() - cancelledAt} ms`);
    await letGo(holder);
    assert.match(await b, /^token access-/, "the other caller's refresh went on");
    assert.equal(server.stats.tokenRequests.length, 1);

    // Both callers cancelled: the refresh stops waiting, and the free lock is not taken for nobody.
    writeFileSync(file, expired.replace("refresh-0", [...server.validRefresh][0] ?? ""));
    holder = await lockHolder(`${file}.lock`, staleMs);
    holders.push(holder);
    const [third, fourth] = [new AbortController(), new AbortController()];
    const c = settled(store.accessToken(third.signal));
    const d = settled(store.accessToken(fourth.signal));
    await pause(500);
    third.abort(new Error("gone"));
    fourth.abort(new Error("gone too"));
    assert.deepEqual([await c, await d], ["failed: Error: gone", "failed: Error: gone too"]);
    await letGo(holder);
    await pause(2_000);
    assert.equal(server.stats.tokenRequests.length, 1, "no refresh once every caller left");
    // A caller after them starts a refresh of its own.
    assert.match(await settled(store.accessToken()), /^token access-/);
    assert.equal(server.stats.tokenRequests.length, 2);
  });
});
