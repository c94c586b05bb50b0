import assert from "node:assert/strict";
import { afterEach, describe, test } from "node:test";
import { isAlive, trackedChildren, type McpAdapter } from "../src/adapters/mcp/index.js";
import { buildAdapter, fixtureAdapter, liveChildren, rejectsWith, sleep, textOf } from "./fixtures/mcp/support.js";
import { until } from "./wait.js";

/** Start-up failures, kill escalation, concurrency and external crashes of stdio servers. */

const opened: McpAdapter[] = [];
const seenPids = new Set<number>();
function track(adapter: McpAdapter): McpAdapter {
  opened.push(adapter);
  return adapter;
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((a) => a.close()));
  for (const pid of seenPids) assert.equal(isAlive(pid), false, `child ${pid} is gone`);
  seenPids.clear();
  assert.deepEqual(liveChildren(), [], "no child process left behind");
  assert.deepEqual(trackedChildren(), []);
});

const nodeScript = (code: string, spec: Record<string, unknown> = {}, killGraceMs = 300): McpAdapter =>
  track(buildAdapter({ kind: "mcp", command: process.execPath, args: ["-e", code], ...spec }, { killGraceMs }));

describe("start-up", () => {
  test("a server that exits before initialize: UPSTREAM_ERROR with its exit code and stderr", async () => {
    const adapter = nodeScript("console.error('config error: FOO_API_KEY is required'); process.exit(2)");
    const error = await rejectsWith(adapter.listTools());
    assert.equal(error.code, "UPSTREAM_ERROR");
    assert.match(error.message, /exited with code 2 before it finished starting/);
    assert.match(error.message, /FOO_API_KEY is required/);
  });

  test("a server that never answers initialize times out, and one that ignores SIGTERM is killed", async () => {
    const adapter = nodeScript("process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)", { timeoutMs: 300 });
    const started = Date.now();
    const error = await rejectsWith(adapter.listTools());
    // A start that timed out is a failed start (a hint about the server), not a call to narrow.
    assert.equal(error.code, "UPSTREAM_ERROR");
    assert.match(error.message, /did not finish starting within 300 ms/);
    // The child would run forever: seconds of bound (a loaded machine) still tell the deadline and the kill worked.
    assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
    assert.deepEqual(liveChildren(), [], "the stuck child was killed (SIGTERM ignored → SIGKILL)");
    assert.deepEqual(trackedChildren(), []);
  });

  test("close() escalates to SIGKILL for a server that ignores stdin EOF and SIGTERM", async () => {
    const adapter = fixtureAdapter(["--stderr", "ready"], {}, { killGraceMs: 200 });
    track(adapter);
    await adapter.listTools();
    const pid = adapter.pid as number;
    seenPids.add(pid);
    // Make the fixture stubborn: it keeps running after stdin closes and ignores SIGTERM.
    process.kill(pid, "SIGSTOP");
    const started = Date.now();
    await adapter.close();
    assert.equal(isAlive(pid), false);
    // A stopped child never exits by itself: returning at all shows SIGKILL followed; seconds of bound for a loaded machine.
    assert.ok(Date.now() - started < 15_000, `close took ${Date.now() - started} ms`);
  });
});

describe("concurrency and external crashes", () => {
  test("parallel first calls start one server", async () => {
    const adapter = track(fixtureAdapter());
    const results = await Promise.all([adapter.listTools(), adapter.call("pid", {}), adapter.call("pid", {}), adapter.call("echo", { text: "x" })]);
    const pids = new Set([textOf(results[1]), textOf(results[2])]);
    assert.equal(pids.size, 1);
    assert.equal(String(adapter.pid), textOf(results[1]));
    seenPids.add(adapter.pid as number);
    assert.equal(trackedChildren().length, 1);
  });

  test("a server killed between calls is restarted on the next call", async () => {
    const adapter = track(fixtureAdapter());
    await adapter.call("echo", { text: "1" });
    const first = adapter.pid as number;
    seenPids.add(first);
    process.kill(first, "SIGKILL");
    await until(() => !adapter.connected, "the adapter to see the kill");
    assert.deepEqual(trackedChildren(), [], "the dead child is no longer tracked");
    assert.equal(textOf(await adapter.call("echo", { text: "2" })), "2");
    const second = adapter.pid as number;
    seenPids.add(second);
    assert.notEqual(second, first);
  });

  test("a crash fails every pending call, not just one", async () => {
    const adapter = track(fixtureAdapter());
    await adapter.listTools();
    seenPids.add(adapter.pid as number);
    const pending = [adapter.call("hang", {}), adapter.call("sleep", { ms: 5000 })].map((p) => rejectsWith(p));
    await sleep(50);
    const crash = rejectsWith(adapter.call("crash", {}));
    const errors = await Promise.all([...pending, crash]);
    for (const error of errors) {
      assert.equal(error.code, "UPSTREAM_ERROR");
      assert.match(error.message, /marker-7731/);
    }
  });
});

describe("a server that exits leaving a process on its pipes", () => {
  test("the call in flight fails at once with the exit code, the leftover is ended, and the next call starts the server again", async () => {
    // A call deadline far past the test's bound: an answer within it shows the exit, not the deadline, ended the call.
    const adapter = track(fixtureAdapter([], { timeoutMs: 60_000 }, { killGraceMs: 300 }));
    await adapter.listTools();
    const first = adapter.pid as number;
    seenPids.add(first);
    const started = Date.now();
    const error = await rejectsWith(adapter.call("crash", { leave: true }));
    assert.ok(Date.now() - started < 15_000, `the call took ${Date.now() - started} ms`);
    assert.equal(error.code, "UPSTREAM_ERROR");
    assert.match(error.message, /exited with code 3 during tools\/call 'crash', before its answer arrived; whether tools\/call 'crash' took effect is unknown/);
    assert.match(error.message, /marker-7731/);
    const leftover = Number(/leftover (\d+)/.exec(error.message)?.[1]);
    assert.ok(leftover > 0, "the fixture said its leftover's pid");
    await until(() => !isAlive(leftover), "the leftover holding the pipes to be ended with the server's group");
    assert.equal(textOf(await adapter.call("echo", { text: "again" })), "again");
    assert.notEqual(adapter.pid, first, "a new server process answers");
    seenPids.add(adapter.pid as number);
  });
});

describe("a server that starts but does not answer tools/list", () => {
  test("UPSTREAM_TIMEOUT with a hint about the server, not a narrower request", async () => {
    // --hold-list on a file that never appears: the handshake is answered, tools/list never. The
    // deadline covers the start too: 3 s, so a loaded machine's slow fixture start is not what it measures.
    const adapter = track(fixtureAdapter(["--hold-list", "/nonexistent/agent-tools-never"], { timeoutMs: 3000 }));
    const error = (await rejectsWith(adapter.listTools())) as Error & { code?: string; hint?: string };
    assert.equal(error.code, "UPSTREAM_TIMEOUT");
    assert.match(error.message, /did not answer tools\/list within 3000 ms/);
    assert.match(error.hint ?? "", /takes no tool arguments/);
    assert.match(error.hint ?? "", /timeoutMs/);
    assert.doesNotMatch(error.hint ?? "", /narrower/);
    seenPids.add(adapter.pid as number);
  });
});

describe("a call deadline shorter than the start", () => {
  test("while the handshake is unanswered, stillStarting gives the failed start to answer, with its config hint", async () => {
    const adapter = nodeScript("setInterval(() => {}, 1000)", { timeoutMs: 60_000 });
    assert.equal(adapter.stillStarting(), undefined, "nothing is starting before the first call");
    const listing = rejectsWith(adapter.listTools());
    await sleep(300);
    const start = adapter.stillStarting();
    assert.equal(start?.code, "UPSTREAM_ERROR");
    assert.match(start?.message ?? "", /did not finish starting within \d+ ms, when the call's deadline passed; its start may take up to 60000 ms/);
    assert.match(start?.hint ?? "", /did not answer the MCP handshake before the call's deadline/);
    assert.match(start?.hint ?? "", /Tool arguments cannot fix this/);
    await adapter.close();
    await listing;
  });
});

describe("shared start", () => {
  test("a request cancelled during the shared start does not fail the others", async () => {
    const adapter = track(fixtureAdapter(["--stderr", "slow start"]));
    const controller = new AbortController();
    const first = rejectsWith(adapter.call("echo", { text: "1" }, { signal: controller.signal, sessionId: "a", log: { debug() {}, info() {}, warn() {}, error() {} } }));
    const second = adapter.call("echo", { text: "2" });
    controller.abort();
    assert.equal((await first).code, "UPSTREAM_ERROR");
    assert.equal(textOf(await second), "2");
    seenPids.add(adapter.pid as number);
  });
});

describe("a server started only to list its tools", () => {
  test("a background listing stops it once answered; a listing for a caller keeps it for the call that may follow", async () => {
    const background = track(fixtureAdapter());
    await background.listTools({ background: true });
    seenPids.add(background.pid as number);
    await until(() => !background.connected, "the background-listed server to stop");

    const asked = track(fixtureAdapter());
    await asked.listTools();
    seenPids.add(asked.pid as number);
    await sleep(300);
    assert.equal(asked.connected, true, "kept (15 s) for a call");
  });

  test("a call that started the server, or began during the listing, keeps it running after a background listing", async () => {
    // The call starts the server; the listing joins.
    const first = track(fixtureAdapter());
    const calling = first.call("sleep", { ms: 400 });
    await first.listTools({ background: true });
    seenPids.add(first.pid as number);
    await calling;
    // The listing starts the server; the call begins before it has answered and outlasts it.
    const second = track(fixtureAdapter());
    const listing = second.listTools({ background: true });
    const during = second.call("sleep", { ms: 400 });
    await listing;
    seenPids.add(second.pid as number);
    await during;
    await sleep(300);
    assert.equal(first.connected, true, "the caller's server keeps the normal idle timeout");
    assert.equal(second.connected, true, "a call during the listing keeps the normal idle timeout");
  });

  test("a listing for a caller that joins a background listing keeps the server for the call that may follow", async () => {
    // The background listing starts the server and sends the one tools/list; the caller's joins it.
    const joined = track(fixtureAdapter());
    const [background, forCaller] = await Promise.all([joined.listTools({ background: true }), joined.listTools()]);
    seenPids.add(joined.pid as number);
    assert.equal(background.tools.length, 7);
    assert.deepEqual(forCaller, background);
    await sleep(300);
    assert.equal(joined.connected, true, "kept (15 s) for the caller's call");
  });

  test("a background listing the caller revokes while it runs keeps the server (the runtime's catalog, when a search joins it)", async () => {
    const revoked = track(fixtureAdapter());
    const listing = { background: true };
    const listed = revoked.listTools(listing);
    listing.background = false;
    await listed;
    seenPids.add(revoked.pid as number);
    await sleep(300);
    assert.equal(revoked.connected, true, "kept (15 s) for a call");
  });
});
