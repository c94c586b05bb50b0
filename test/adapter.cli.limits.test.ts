import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { CliError, cliRunnerFromEnv, runProcess, trimPartialUtf8 } from "../src/adapters/cli/index.js";
import { alive, cliAdapter, CLI_FIXTURES, ctx, hostEnv, readPids, tempDir, waitFor } from "./fixtures/cli/helpers.js";

/** Timeouts and aborts kill the program and its group; output caps are honest. */

const SLEEPER = path.join(CLI_FIXTURES, "sleeper");

function sleeperTool(extra: Record<string, unknown> = {}) {
  return { program: "sleeper", allowlist: ["sleeper"], tools: [{ name: "sleep", argv: ["{pidfile}"], ...extra }] };
}

describe("timeout", () => {
  it("kills the program and the child it started, and throws UPSTREAM_TIMEOUT", async () => {
    const pidfile = path.join(tempDir(), "pids");
    // 1.5 s, not less: the test must see both processes alive before the timeout kills them, and on
    // a loaded machine the shell can take a few hundred ms to write its pid file.
    const a = await cliAdapter({ ...sleeperTool(), timeoutMs: 1500 });
    const started = Date.now();
    const call = a.call("sleep", { pidfile }, ctx());
    const [shell, child] = await readPids(pidfile);
    assert.ok(shell && child, "the fixture wrote its pids");
    assert.ok(alive(shell) && alive(child));
    await assert.rejects(call, (error: CliError) => {
      assert.equal(error.code, "UPSTREAM_TIMEOUT");
      assert.match(error.message, /did not finish within 1500 ms and was killed/);
      return true;
    });
    // The sleeper sleeps 30 s: well under that, the timeout (not the program) ended the call.
    assert.ok(Date.now() - started < 15_000, "the timeout fired promptly");
    assert.ok(await waitFor(() => !alive(shell) && !alive(child)), "the program or its child is still running");
  });

  it("a per-tool timeoutMs overrides the block's", async () => {
    const pidfile = path.join(tempDir(), "pids");
    const a = await cliAdapter(sleeperTool({ timeoutMs: 200 }));
    await assert.rejects(a.call("sleep", { pidfile }, ctx()), { code: "UPSTREAM_TIMEOUT", message: /200 ms/ });
    const [shell, child] = await readPids(pidfile);
    assert.ok(await waitFor(() => !alive(shell ?? 0) && !alive(child ?? 0)));
  });

  it("a program ignoring SIGTERM is SIGKILLed after the grace period", async () => {
    const pidfile = path.join(tempDir(), "pids");
    const call = runProcess(SLEEPER, [pidfile, "ignore-term"], { env: { PATH: "/usr/bin:/bin" }, timeoutMs: 200, maxOutputBytes: 1000, killGraceMs: 300 });
    const [shell, child] = await readPids(pidfile);
    await assert.rejects(call, { code: "UPSTREAM_TIMEOUT" });
    assert.ok(await waitFor(() => !alive(shell ?? 0) && !alive(child ?? 0)), "SIGKILL did not follow");
  });
});

describe("abort", () => {
  it("ctx.signal aborts the call and kills the program", async () => {
    const pidfile = path.join(tempDir(), "pids");
    const a = await cliAdapter(sleeperTool());
    const controller = new AbortController();
    const call = a.call("sleep", { pidfile }, ctx(controller.signal));
    const [shell, child] = await readPids(pidfile);
    controller.abort();
    await assert.rejects(call, { code: "UPSTREAM_ERROR", message: /was cancelled/ });
    assert.ok(await waitFor(() => !alive(shell ?? 0) && !alive(child ?? 0)));
  });

  it("an abort whose reason is a deadline is UPSTREAM_TIMEOUT; an aborted signal never starts the program", async () => {
    const pidfile = path.join(tempDir(), "pids");
    const a = await cliAdapter(sleeperTool());
    const call = a.call("sleep", { pidfile }, ctx(AbortSignal.timeout(250)));
    await assert.rejects(call, { code: "UPSTREAM_TIMEOUT", message: /deadline/ });
    const controller = new AbortController();
    controller.abort();
    const other = path.join(tempDir(), "pids");
    await assert.rejects(a.call("sleep", { pidfile: other }, ctx(controller.signal)), { code: "UPSTREAM_ERROR" });
  });

  it("close() kills programs still running", async () => {
    const pidfile = path.join(tempDir(), "pids");
    const a = await cliAdapter(sleeperTool());
    const call = a.call("sleep", { pidfile }, ctx());
    const [shell, child] = await readPids(pidfile);
    await a.close?.();
    await assert.rejects(call, { code: "UPSTREAM_ERROR" });
    assert.ok(await waitFor(() => !alive(shell ?? 0) && !alive(child ?? 0)));
  });

  it("what the program leaves running in its group is killed when it exits (no hang on held pipes)", async () => {
    const pidfile = path.join(tempDir(), "pids");
    const a = await cliAdapter({ program: "leave-behind", allowlist: ["leave-behind"], tools: [{ name: "go", argv: ["{pidfile}"] }] });
    const started = Date.now();
    const result = (await a.call("go", { pidfile }, ctx())) as { stdout: string; exitCode: number };
    assert.equal(result.stdout, "done\n");
    assert.ok(Date.now() - started < 20_000, "returned without waiting for the child's 30 s sleep");
    const [child] = await readPids(pidfile);
    assert.ok(await waitFor(() => !alive(child ?? 0)), "the background child survived");
  });
});

describe("output cap", () => {
  it("cuts stdout beyond maxOutputBytes with truncated: true and the real byte counts", async () => {
    const a = await cliAdapter({ program: "flood", allowlist: ["flood"], maxOutputBytes: 1000, tools: [{ name: "flood", argv: ["{out}", "{err}"] }] });
    const result = (await a.call("flood", { out: "500000", err: "10" }, ctx())) as Record<string, unknown>;
    assert.equal(result.truncated, true);
    assert.equal(result.stdoutBytes, 500000);
    assert.equal(result.stderrBytes, 10);
    assert.equal(result.maxOutputBytes, 1000);
    assert.equal(typeof result.stdout, "string");
    assert.equal(Buffer.byteLength(result.stdout as string), 1000);
    assert.ok((result.stdout as string).startsWith("éx"));
    assert.equal(result.stderr, "y".repeat(10));
  });

  it("a parse: json tool whose stdout was cut fails saying the cap and how to get under it", async () => {
    const a = await cliAdapter({ program: "flood", allowlist: ["flood"], maxOutputBytes: 1000, tools: [{ name: "flood", argv: ["{out}", "{err}"], parse: "json", readonly: true }] });
    await assert.rejects(a.call("flood", { out: "500000", err: "10" }, ctx()), (error: CliError) => {
      assert.equal(error.code, "UPSTREAM_ERROR");
      assert.equal(error.message, "flood (tool 'flood') answers JSON, but its stdout (500000 bytes) was cut at the adapter's maxOutputBytes (1000 bytes), and cut JSON cannot be read.");
      assert.match(error.hint ?? "", /^Ask for less: .*; or raise "maxOutputBytes" in the plugin.s cli adapter block above 500000 bytes/);
      assert.deepEqual(error.details, { exitCode: 0, stdoutBytes: 500000, maxOutputBytes: 1000, stderr: "y".repeat(10) });
      return true;
    });
  });

  it("caps stderr too, and says nothing when nothing was cut", async () => {
    const a = await cliAdapter({ program: "flood", allowlist: ["flood"], maxOutputBytes: 64, tools: [{ name: "flood", argv: ["{out}", "{err}"] }] });
    const cut = (await a.call("flood", { out: "10", err: "100000" }, ctx())) as Record<string, unknown>;
    assert.equal(cut.truncated, true);
    assert.equal(cut.stderrBytes, 100000);
    assert.equal((cut.stderr as string).length, 64);
    const whole = (await a.call("flood", { out: "10", err: "0" }, ctx())) as Record<string, unknown>;
    assert.equal(whole.truncated, undefined);
    assert.equal(whole.stdoutBytes, undefined);
    assert.equal(whole.stdout, "é" + "x".repeat(8)); // 10 bytes
  });

  it("never splits a UTF-8 character at the cut", async () => {
    const a = await cliAdapter({ program: "flood", allowlist: ["flood"], maxOutputBytes: 1, tools: [{ name: "flood", argv: ["{out}"] }] });
    const result = (await a.call("flood", { out: "100" }, ctx())) as { stdout: string; truncated: boolean };
    assert.equal(result.truncated, true);
    assert.equal(result.stdout, "", "half of 'é' was emitted");
    assert.deepEqual([...trimPartialUtf8(Buffer.from("aé", "utf8").subarray(0, 2))], [0x61]);
    assert.deepEqual([...trimPartialUtf8(Buffer.from("a€", "utf8").subarray(0, 3))], [0x61]);
    assert.equal(trimPartialUtf8(Buffer.from("a€", "utf8")).toString(), "a€");
  });

  it("the runner applies the cap and the timeout as well", async () => {
    // The cap under a deadline a loaded machine can start a process within; the timeout on its own runner.
    const capped = cliRunnerFromEnv(hostEnv({ AGENT_CLI_ALLOWLIST: "flood" }), { maxOutputBytes: 100, timeoutMs: 20_000, killGraceMs: 200 });
    const result = await capped.run("flood", ["5000"]);
    assert.equal(result.truncated, true);
    assert.equal(result.stdoutBytes, 5000);
    const runner = cliRunnerFromEnv(hostEnv({ AGENT_CLI_ALLOWLIST: "sleeper" }), { maxOutputBytes: 100, timeoutMs: 200, killGraceMs: 200 });
    const pidfile = path.join(tempDir(), "pids");
    const call = runner.run("sleeper", [pidfile]);
    const [shell, child] = await readPids(pidfile);
    await assert.rejects(call, { code: "UPSTREAM_TIMEOUT" });
    assert.ok(await waitFor(() => !alive(shell ?? 0) && !alive(child ?? 0)));
  });
});
