import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync, readFileSync, realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, afterEach, describe, test } from "node:test";
import { silentLogger } from "../src/log.js";
import { MAX_PAGES, createMcpAdapter, isAlive, parseArgsValue, stdioMcpClientFromEnv, trackedChildren, type McpAdapter } from "../src/adapters/mcp/index.js";
import { MCP_FIXTURES, ROOT, STDIO_FIXTURE, buildAdapter, fixtureAdapter, isRunning, liveChildren, rejectsWith, serverEntry, textOf } from "./fixtures/mcp/support.js";
import { until } from "./wait.js";

const opened: McpAdapter[] = [];
const seenPids = new Set<number>();
function track<T extends McpAdapter>(adapter: T): T {
  opened.push(adapter);
  return adapter;
}
function notePid(adapter: McpAdapter): number {
  const pid = adapter.pid;
  assert.ok(pid, "the server runs");
  seenPids.add(pid);
  return pid;
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((a) => a.close()));
  for (const pid of seenPids) assert.equal(isAlive(pid), false, `child ${pid} is gone`);
  assert.deepEqual(liveChildren(), [], "no child process left behind");
  assert.deepEqual(trackedChildren(), []);
});

const tmp = mkdtempSync(path.join(os.tmpdir(), "mcp-stdio-test-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

describe("reference servers over stdio", () => {
  test("server-everything: starts on first use, lists tools with annotations, echoes", async () => {
    const built = await createMcpAdapter(
      { kind: "mcp", command: process.execPath, args: [serverEntry("everything"), "stdio"] },
      { pluginDir: MCP_FIXTURES, manifest: { prefix: "everything" }, env: process.env, log: silentLogger },
    );
    const adapter = track(built as McpAdapter);
    assert.equal(adapter.pid, undefined, "not started when built");
    assert.deepEqual(liveChildren(), []);
    const { tools } = await adapter.listTools();
    notePid(adapter);
    const echo = tools.find((t) => t.name === "echo");
    assert.ok(echo, "echo is listed");
    assert.equal(echo.inputSchema.type, "object");
    assert.ok(tools.length > 5);
    assert.ok(tools.some((t) => t.annotations !== undefined), "annotations pass through");
    const result = await adapter.call("echo", { message: "hello" });
    assert.match(textOf(result), /hello/);
    assert.ok(Array.isArray((result as { content: unknown[] }).content), "a CallToolResult");
  });

  test("server-filesystem scoped to a temp dir: read-only hints, reads inside, refuses outside", async () => {
    const root = realpathSync(mkdtempSync(path.join(tmp, "fs-")));
    writeFileSync(path.join(root, "note.txt"), "inside the sandbox\n");
    const adapter = track(buildAdapter({ kind: "mcp", command: process.execPath, args: [serverEntry("filesystem"), root] }));
    const { tools } = await adapter.listTools();
    notePid(adapter);
    const read = tools.find((t) => t.name === "read_text_file");
    assert.equal(read?.annotations?.readOnlyHint, true);
    const result = await adapter.call("read_text_file", { path: path.join(root, "note.txt") });
    assert.match(textOf(result), /inside the sandbox/);
    const outside = (await adapter.call("read_text_file", { path: "/etc/hostname" })) as { isError?: boolean };
    assert.equal(outside.isError, true);
    assert.match(textOf(outside), /denied|outside|not allowed/i);
  });

  test("server-memory: declared env with ${VAR} reaches the server", async () => {
    const file = path.join(tmp, "memory.jsonl");
    const adapter = track(
      buildAdapter(
        { kind: "mcp", command: process.execPath, args: [serverEntry("memory")], env: { MEMORY_FILE_PATH: "${TEST_MEMORY_FILE}" } },
        { env: { ...process.env, TEST_MEMORY_FILE: file } },
      ),
    );
    await adapter.call("create_entities", { entities: [{ name: "Ada", entityType: "person", observations: ["wrote the first program"] }] });
    notePid(adapter);
    const graph = await adapter.call("read_graph", {});
    assert.match(textOf(graph), /Ada/);
    assert.match(readFileSync(file, "utf8"), /Ada/, "the server wrote where the declared env said");
  });
});

describe("child environment", () => {
  test("safe base + declared env; undeclared host secrets are not passed", async () => {
    const env = { ...process.env, HOST_SECRET_TOKEN: "s3cr3t-host-only", DECLARED_SOURCE: "value-from-host", LANG: "C.UTF-8" };
    const adapter = track(fixtureAdapter([], { env: { FROM_PLUGIN: "${DECLARED_SOURCE}", LITERAL: "plain", MY_API_KEY: "literal-key-value" } }, { env }));
    const result = await adapter.call("env", { names: ["FROM_PLUGIN", "LITERAL", "MY_API_KEY", "HOST_SECRET_TOKEN", "PATH", "HOME", "LANG"] });
    notePid(adapter);
    const payload = JSON.parse(textOf(result)) as { values: Record<string, string | null>; names: string[]; cwd: string };
    assert.equal(payload.values.FROM_PLUGIN, "[redacted]", "a resolved reference counts as a secret in results");
    assert.equal(payload.values.LITERAL, "plain");
    assert.equal(payload.values.MY_API_KEY, "[redacted]", "a literal value under a credential-like name is a secret too");
    assert.equal(payload.values.HOST_SECRET_TOKEN, null);
    assert.ok(payload.values.PATH);
    assert.equal(payload.values.LANG, "C.UTF-8");
    assert.ok(!payload.names.includes("HOST_SECRET_TOKEN"));
    for (const name of payload.names) assert.ok(!name.startsWith("npm_"), `npm's ${name} is not passed`);
    assert.equal(payload.cwd, MCP_FIXTURES, "cwd defaults to the plugin folder");
  });

  test("a missing ${VAR} fails with NOT_CONFIGURED-style message naming it, and starts nothing", async () => {
    const env = { ...process.env };
    delete env.SURELY_MISSING_VAR;
    const adapter = track(fixtureAdapter([], { env: { K: "${SURELY_MISSING_VAR}" } }, { env }));
    const error = await rejectsWith(adapter.listTools());
    assert.match(error.message, /SURELY_MISSING_VAR/);
  });

  test("a command that does not exist is NOT_CONFIGURED", async () => {
    const adapter = track(buildAdapter({ kind: "mcp", command: "definitely-not-a-real-mcp-server-xyz" }));
    const error = await rejectsWith(adapter.listTools());
    assert.equal(error.code, "NOT_CONFIGURED");
    assert.match(error.message, /definitely-not-a-real-mcp-server-xyz/);
  });
});

describe("catalog", () => {
  test("tools/list is read page by page (3 pages) and cached", async () => {
    const adapter = track(fixtureAdapter(["--tools", "8", "--page-size", "5"]));
    const { tools } = await adapter.listTools();
    notePid(adapter);
    assert.equal(tools.length, 15);
    assert.equal(new Set(tools.map((t) => t.name)).size, 15);
    assert.ok(tools.some((t) => t.name === "tool_7"), "the last page is read");
    assert.equal(tools.find((t) => t.name === "echo")?.annotations?.readOnlyHint, true);
    await adapter.stop();
    const again = await adapter.listTools();
    assert.equal(again.tools.length, 15);
    assert.equal(adapter.pid, undefined, "served from the cache without restarting the server");
  });

  test("a tools/list cursor that comes round again (a → b → a) ends the listing there: the tools read are kept, and a note says the server's pagination is at fault", async () => {
    const adapter = track(fixtureAdapter(["--notice-tools", "--pagination", "cycle"]));
    const { tools, notes } = await adapter.listTools();
    notePid(adapter);
    const names = tools.map((t) => t.name);
    assert.ok(names.includes("echo") && names.includes("cycle_a") && names.includes("cycle_b"), names.join(", "));
    assert.equal(names.filter((n) => n.startsWith("cycle_")).length, 2, "no page read twice");
    assert.deepEqual(notes, [
      `its pagination went round: after 3 pages, nextCursor was 'a' again, a cursor already followed (a fault in the server's pagination); the listing stopped there and the ${tools.length} tools of the first 3 pages are kept. Report it to the server's maintainers.`,
    ]);
    assert.equal(textOf(await adapter.call("lists", {})), "3", "three pages asked for, the repeated cursor not followed");
  });

  test(`a tools/list that never stops giving a nextCursor is read up to ${MAX_PAGES} pages (not the SDK's 64, failing the plugin): those tools are kept, with a note`, async () => {
    const adapter = track(fixtureAdapter(["--notice-tools", "--pagination", "endless"], { timeoutMs: 60_000 }));
    const { tools, notes } = await adapter.listTools();
    notePid(adapter);
    assert.equal(tools.filter((t) => t.name.startsWith("endless_")).length, MAX_PAGES - 1, "every page after the first");
    assert.ok(tools.some((t) => t.name === "echo"), "the first page's tools are kept");
    assert.deepEqual(notes, [
      `its pagination did not end: it gave a nextCursor after ${MAX_PAGES} pages, the most one listing reads (a fault in the server's pagination, or a list far too long to serve); the ${tools.length} tools of the first ${MAX_PAGES} pages are kept and the pages after are not read. Report it to the server's maintainers.`,
    ]);
    assert.equal(textOf(await adapter.call("lists", {})), String(MAX_PAGES));
  });

  test("notifications/tools/list_changed drops the cache and calls the listeners", async () => {
    const adapter = track(fixtureAdapter(["--page-size", "3"]));
    let calls = 0;
    let second = 0;
    adapter.onToolsChanged(() => calls++);
    adapter.onToolsChanged(() => second++);
    const before = await adapter.listTools();
    notePid(adapter);
    assert.ok(!before.tools.some((t) => t.name === "brand_new"));
    await adapter.call("add_tool", { name: "brand_new" });
    await until(() => calls > 0, "the list_changed listener");
    assert.equal(calls, 1);
    assert.equal(second, 1);
    const afterChange = await adapter.listTools();
    assert.ok(afterChange.tools.some((t) => t.name === "brand_new"));
  });
});

describe("timeouts, cancellation, crashes, idle", () => {
  test("a hanging call fails with UPSTREAM_TIMEOUT after timeoutMs; the server keeps serving", async () => {
    // A generous deadline, and the server started first: on a loaded machine a cold start alone
    // can take longer than a tight deadline, which is not what this test is about.
    const adapter = track(fixtureAdapter([], { timeoutMs: 2500 }));
    await adapter.listTools();
    const started = Date.now();
    const error = await rejectsWith(adapter.call("hang", {}));
    const elapsed = Date.now() - started;
    assert.equal(error.code, "UPSTREAM_TIMEOUT");
    assert.match(error.message, /hang.*2500 ms/);
    assert.ok(elapsed < 10_000, `took ${elapsed} ms`);
    const pid = notePid(adapter);
    assert.equal(textOf(await adapter.call("echo", { text: "still here" })), "still here");
    assert.equal(adapter.pid, pid);
  });

  test("ctx.signal aborts the request (cancel → UPSTREAM_ERROR, deadline → UPSTREAM_TIMEOUT)", async () => {
    const adapter = track(fixtureAdapter());
    await adapter.listTools();
    notePid(adapter);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const cancelled = await rejectsWith(adapter.call("hang", {}, { signal: controller.signal, sessionId: "s", log: silentLogger }));
    assert.equal(cancelled.code, "UPSTREAM_ERROR");
    assert.match(cancelled.message, /cancelled/);
    const timedOut = await rejectsWith(adapter.call("hang", {}, { signal: AbortSignal.timeout(100), sessionId: "s", log: silentLogger }));
    assert.equal(timedOut.code, "UPSTREAM_TIMEOUT");
    const already = new AbortController();
    already.abort();
    const early = await rejectsWith(adapter.call("echo", { text: "x" }, { signal: already.signal, sessionId: "s", log: silentLogger }));
    assert.equal(early.code, "UPSTREAM_ERROR");
  });

  test("an answer line over 10 MiB fails that call RESULT_TOO_LARGE; the server and its other calls go on", async () => {
    const adapter = track(fixtureAdapter(["--huge-tool"], { timeoutMs: 30_000 }));
    assert.equal(textOf(await adapter.call("echo", { text: "up" })), "up");
    const pid = notePid(adapter);
    const sleeping = adapter.call("sleep", { ms: 1_500 });
    const error = await rejectsWith(adapter.call("huge", { mb: 12 }));
    assert.equal(error.code, "RESULT_TOO_LARGE", error.message);
    assert.match(error.message, /answered tools\/call 'huge' with a line of more than 10485760 bytes/);
    assert.doesNotMatch(error.message, /exited/);
    assert.match((error as Error & { hint?: string }).hint ?? "", /Ask for less/);
    assert.equal(textOf(await sleeping), "slept", "the call in flight beside it was answered");
    assert.equal(adapter.pid, pid, "the same server, not restarted");
    assert.equal(textOf(await adapter.call("huge", { mb: 1 })).length, 1024 * 1024, "a smaller answer on the same connection");
  });

  test("an oversized line that answers no call is logged at warn naming the server and its size: a request of the server ending in the call's id does not fail that call; an answer whose id cannot be read fails at the deadline", async () => {
    const warnings: string[] = [];
    const log = { ...silentLogger, warn: (message: string) => void warnings.push(message) };
    // 12 s: the answering calls write, read and skip an 11 MB line first, which passed 4 s on a loaded machine.
    const adapter = track(fixtureAdapter(["--huge-tool"], { timeoutMs: 12_000 }, { log }));
    assert.equal(textOf(await adapter.call("echo", { text: "up" })), "up");
    const pid = notePid(adapter);

    // A sampling request of the server, params first, ending in `"id":<the call's id>}`: not taken as the call's answer.
    assert.equal(textOf(await adapter.call("huge", { mb: 11, as: "request" })), "after request", "the call gets its real answer");
    assert.match(warnings.at(-1) ?? "", /^MCP server 'fixture': skipped a line of \d{8} bytes \(over the 10485760 one stdio line may carry\) from the server: a notification or request of its own \("\{\\"params\\".*not an answer/);

    assert.equal(textOf(await adapter.call("huge", { mb: 11, as: "notification" })), "after notification");
    assert.match(warnings.at(-1) ?? "", /skipped a line of \d{8} bytes .*: a notification or request of its own .*no call of the runtime waits for it/);
    assert.doesNotMatch(warnings.join("\n"), /the call it answers gets no answer/);

    const lost = await rejectsWith(adapter.call("huge", { mb: 11, as: "middle" }));
    assert.equal(lost.code, "UPSTREAM_TIMEOUT", lost.message);
    assert.match(warnings.at(-1) ?? "", /^MCP server 'fixture': skipped a line of \d{8} bytes .* that is not a readable answer: no id at its start or end .*that call gets no answer and fails at its deadline/);
    assert.equal(warnings.length, 3, warnings.join("\n"));
    assert.equal(adapter.pid, pid, "the same server throughout");
  });

  test("a server that crashes mid-call: UPSTREAM_ERROR with its stderr; the next call starts it again", async () => {
    const env = { ...process.env, FIXTURE_SECRET: "hunter2-very-secret" };
    const adapter = track(fixtureAdapter(["--stderr", "starting with ${FIXTURE_SECRET}"], {}, { env }));
    await adapter.listTools();
    const first = notePid(adapter);
    const error = await rejectsWith(adapter.call("crash", {}));
    assert.equal(error.code, "UPSTREAM_ERROR");
    assert.match(error.message, /exited with code 3 during tools\/call 'crash', before its answer arrived; whether tools\/call 'crash' took effect is unknown/);
    assert.match(error.message, /marker-7731/);
    // A crash mid-call may have done what was asked: the agent is told to check before repeating a write.
    assert.match((error as { hint?: string }).hint ?? "", /check whether the change was made/);
    assert.ok(!error.message.includes("hunter2-very-secret"), "secrets are redacted from the stderr tail");
    assert.match(error.message, /starting with \[redacted\]/);
    assert.equal(isAlive(first), false);
    assert.equal(textOf(await adapter.call("echo", { text: "back" })), "back");
    const second = notePid(adapter);
    assert.notEqual(second, first);
  });

  test("an idle server is stopped after idleTimeoutMs and restarted on next use", async () => {
    const adapter = track(fixtureAdapter([], { idleTimeoutMs: 250 }));
    await adapter.call("echo", { text: "1" });
    const first = notePid(adapter);
    await until(() => !isAlive(first), "the idle server to stop");
    assert.equal(adapter.connected, false);
    await adapter.call("echo", { text: "2" });
    const second = notePid(adapter);
    assert.notEqual(second, first);
  });

  test("a long call is not cut by the idle timer", async () => {
    const adapter = track(fixtureAdapter([], { idleTimeoutMs: 100 }));
    await adapter.listTools();
    const pid = notePid(adapter);
    assert.equal(textOf(await adapter.call("sleep", { ms: 300 })), "slept");
    assert.equal(isAlive(pid), true);
  });

  test("close() stops the child and waits for it to exit; a closed adapter refuses calls", async () => {
    const adapter = fixtureAdapter();
    await adapter.listTools();
    const pid = notePid(adapter);
    const pending = adapter.call("hang", {}).catch((e: unknown) => e as Error & { code?: string });
    await adapter.close();
    assert.equal(isAlive(pid), false, "gone when close() resolves");
    const failed = await pending;
    assert.equal((failed as { code?: string }).code, "UPSTREAM_ERROR");
    const refused = await rejectsWith(adapter.call("echo", { text: "x" }));
    assert.match(refused.message, /closed/);
  });

  test("a runtime that exits without close() leaves no child behind", () => {
    const run = spawnSync(process.execPath, ["--import", "tsx", path.join(MCP_FIXTURES, "exit-without-close.ts")], { cwd: ROOT, encoding: "utf8", timeout: 20_000 });
    assert.equal(run.status, 0, run.stderr);
    const pid = Number(run.stdout.trim());
    assert.ok(pid > 0, `pid printed: ${run.stdout}`);
    for (let i = 0; i < 50 && isRunning(pid); i++) spawnSync("sleep", ["0.02"]);
    assert.equal(isRunning(pid), false, `child ${pid} was killed by the exit handler`);
  });
});

describe("stdioMcpClientFromEnv", () => {
  test("parses AGENT_STDIO_MCP_* and returns a working adapter", async () => {
    const adapter = track(
      stdioMcpClientFromEnv(
        {
          ...process.env,
          AGENT_STDIO_MCP_COMMAND: process.execPath,
          AGENT_STDIO_MCP_ARGS: `${STDIO_FIXTURE} --tools 2`,
          AGENT_STDIO_MCP_ENV: JSON.stringify({ GREETING: "hi" }),
          AGENT_STDIO_MCP_CWD: tmp,
          AGENT_STDIO_MCP_TIMEOUT_MS: "5000",
        },
        { log: silentLogger },
      ),
    );
    const { tools } = await adapter.listTools();
    notePid(adapter);
    assert.ok(tools.some((t) => t.name === "tool_1"));
    const payload = JSON.parse(textOf(await adapter.call("env", { names: ["GREETING"] }))) as { values: Record<string, string>; cwd: string };
    assert.equal(payload.values.GREETING, "hi");
    assert.equal(payload.cwd, realpathSync(tmp));
  });

  test("args: JSON array or space-separated with quotes", () => {
    assert.deepEqual(parseArgsValue('["-y", "@scope/pkg", "a b"]'), ["-y", "@scope/pkg", "a b"]);
    assert.deepEqual(parseArgsValue(`server.js --root "/tmp/a b" 'x y'`), ["server.js", "--root", "/tmp/a b", "x y"]);
    assert.deepEqual(parseArgsValue(undefined), []);
    assert.throws(() => stdioMcpClientFromEnv({}), /AGENT_STDIO_MCP_COMMAND/);
  });
});
