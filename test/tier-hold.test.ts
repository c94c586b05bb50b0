import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { describe, it } from "node:test";
import { baseEnv, connect, type Connected, FIXTURES, PLUGINS, ROOT } from "./helpers.js";
import { DEFAULT_OPTIMIZE_AFTER_CPU_MS, holdOptimizingCompiler, optimizeAfterFromEnv, tiersChosen } from "../src/tier-hold.js";
import { until } from "./wait.js";

/**
 * src/tier-hold.ts: a server holds V8's optimizing compiler (TurboFan) until the process has used
 * AGENT_TOOLS_OPTIMIZE_AFTER_CPU_MS of CPU. The policy is checked with an injected clock and CPU
 * reading; whether V8 obeys a flag set after start (Node says it may not) is checked on a real
 * server, through a probe preloaded into it that makes a function hot and reads V8's
 * optimization status of it.
 */

interface Scheduled {
  check: () => void;
  ms: number;
}

function fakeProcess(startCpuMs = 100) {
  const flags: string[] = [];
  const scheduled: Scheduled[] = [];
  const debug: string[] = [];
  const warnings: string[] = [];
  let cpuMs = startCpuMs;
  return {
    flags,
    scheduled,
    debug,
    warnings,
    use(ms: number) {
      cpuMs += ms;
    },
    /** Runs the pending check (there is at most one) and says after how long it was due. */
    tick(): number {
      const next = scheduled.shift();
      assert.ok(next, "a check is pending");
      next.check();
      return next.ms;
    },
    hooks: {
      cpuMicros: () => cpuMs * 1000,
      setFlags: (flag: string) => void flags.push(flag),
      schedule: (check: () => void, ms: number) => void scheduled.push({ check, ms }),
      log: { debug: (message: string) => void debug.push(message), warn: (message: string) => void warnings.push(message) },
    },
  };
}

describe("tier hold: the policy", () => {
  it("holds TurboFan at once, looks every second while the process works, and lifts it once the CPU reaches the bound", () => {
    const fake = fakeProcess();
    const hold = holdOptimizingCompiler({ AGENT_TOOLS_OPTIMIZE_AFTER_CPU_MS: "500" }, [], fake.hooks);
    assert.ok(hold);
    assert.deepEqual(fake.flags, ["--no-turbofan"]);
    assert.equal(hold.afterCpuMs, 500);
    fake.use(200);
    assert.equal(fake.tick(), 1000);
    assert.equal(hold.lifted(), false);
    fake.use(199); // 499 ms: one short of the bound
    assert.equal(fake.tick(), 1000);
    assert.deepEqual(fake.flags, ["--no-turbofan"]);
    fake.use(1);
    assert.equal(fake.tick(), 1000);
    assert.equal(hold.lifted(), true);
    assert.deepEqual(fake.flags, ["--no-turbofan", "--turbofan"]);
    assert.equal(fake.scheduled.length, 0, "no check after the lift");
    assert.deepEqual(fake.debug, ["optimizing compiler held", "optimizing compiler on"]);
    hold.lift();
    assert.deepEqual(fake.flags, ["--no-turbofan", "--turbofan"], "a second lift sets nothing");
  });

  it("backs off while the process is idle (twice as late each time, up to a minute) and looks every second again once it works", () => {
    const fake = fakeProcess();
    holdOptimizingCompiler({}, [], fake.hooks);
    const waits: number[] = [];
    for (let i = 0; i < 9; i++) waits.push(fake.tick());
    assert.deepEqual(waits, [1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000]);
    fake.use(50);
    fake.tick();
    assert.equal(fake.scheduled[0]!.ms, 1000, "working again: the next look is a second away");
    assert.equal(DEFAULT_OPTIMIZE_AFTER_CPU_MS, 2000);
    fake.use(DEFAULT_OPTIMIZE_AFTER_CPU_MS);
    fake.tick();
    assert.deepEqual(fake.flags, ["--no-turbofan", "--turbofan"], "the default bound lifts it");
  });

  it("holds nothing when switched off, when node's flags chose the tiers, or when the process is already past the bound", () => {
    for (const value of ["0", "off", " OFF ", "false"]) {
      const fake = fakeProcess();
      assert.equal(holdOptimizingCompiler({ AGENT_TOOLS_OPTIMIZE_AFTER_CPU_MS: value }, [], fake.hooks), undefined, value);
      assert.deepEqual(fake.flags, [], value);
      assert.equal(fake.scheduled.length, 0, value);
    }
    for (const flags of [["--max-opt=2"], ["--jitless"], ["--no-opt"], ["--turbofan"], ["--no-turbofan"], ["--maglev"], ["--always-sparkplug"], ["--max_opt=1"]]) {
      const fake = fakeProcess();
      assert.equal(holdOptimizingCompiler({}, flags, fake.hooks), undefined, flags.join(" "));
      assert.deepEqual(fake.flags, [], flags.join(" "));
    }
    const past = fakeProcess(3000);
    assert.equal(holdOptimizingCompiler({}, [], past.hooks), undefined);
    assert.deepEqual(past.flags, []);
  });

  it("reads its bound from the environment and names a bad value, keeping the default", () => {
    const warnings: string[] = [];
    const warn = (message: string) => void warnings.push(message);
    assert.equal(optimizeAfterFromEnv(undefined, warn), DEFAULT_OPTIMIZE_AFTER_CPU_MS);
    assert.equal(optimizeAfterFromEnv("  ", warn), DEFAULT_OPTIMIZE_AFTER_CPU_MS);
    assert.equal(optimizeAfterFromEnv("750", warn), 750);
    assert.equal(optimizeAfterFromEnv("off", warn), 0);
    assert.deepEqual(warnings, []);
    assert.equal(optimizeAfterFromEnv("2s", warn), DEFAULT_OPTIMIZE_AFTER_CPU_MS);
    assert.equal(optimizeAfterFromEnv("-5", warn), DEFAULT_OPTIMIZE_AFTER_CPU_MS);
    assert.equal(warnings.length, 2);
    assert.match(warnings[0]!, /AGENT_TOOLS_OPTIMIZE_AFTER_CPU_MS='2s' is not a number of milliseconds of CPU \(0 or 'off' for no hold\); using 2000/);
  });

  it("tells node's own tier flags from others, on the command line and in NODE_OPTIONS", () => {
    assert.equal(tiersChosen(["--max-opt=1"], undefined), true);
    assert.equal(tiersChosen([], "--enable-source-maps --no-turbofan"), true);
    assert.equal(tiersChosen([], "--jitless"), true);
    assert.equal(tiersChosen(["--allow-natives-syntax", "--max-old-space-size=512"], "--enable-source-maps"), false);
    assert.equal(tiersChosen(["--optimize-for-size"], "--turbo-inlining"), false, "flags that only share a prefix");
  });
});

interface ProbedServer extends Connected {
  /** Asks the preloaded probe whether V8 optimizes a hot function with TurboFan now. */
  turbofan: () => Promise<boolean>;
}

async function probedServer(env: Record<string, string>): Promise<ProbedServer> {
  const server = await connect(PLUGINS, { AGENT_TOOLS_SEARCH_ENGINE: "bm25f", AGENT_TOOLS_LOG: "debug", ...env }, ["--allow-natives-syntax", "--import", path.join(FIXTURES, "tier-probe.mjs")]);
  const probeLines = (): string[] => server.stderr().match(/\[tier\] turbofan=(true|false)/g) ?? [];
  return {
    ...server,
    turbofan: async () => {
      const seen = probeLines().length;
      process.kill(server.pid, "SIGUSR2");
      await until(() => probeLines().length > seen, "the tier probe's line on stderr");
      return probeLines().at(-1)!.endsWith("true");
    },
  };
}

describe("tier hold: a real stdio server", () => {
  it("runs a hot function in baseline code while held, and optimizes it once the process has used its CPU bound", async () => {
    // 4 s: well above what a start costs, so the hold applies (on a slow machine a start and the
    // first probe took more than 1.5 s of CPU); each probe burns a few hundred ms.
    const server = await probedServer({ AGENT_TOOLS_OPTIMIZE_AFTER_CPU_MS: "4000" });
    try {
      assert.match(server.stderr(), /optimizing compiler held \{"afterCpuMs":4000\}/);
      assert.ok((await server.client.listTools()).tools.length > 0, "the server answers while held");
      assert.equal(await server.turbofan(), false, "held: the hot function stays in baseline code");
      // The probe's own work is CPU: ask again until the hold's check (every second while the
      // process works) has seen 4 s and lifted it.
      await until(
        async () => {
          if (/optimizing compiler on/.test(server.stderr())) return true;
          await server.turbofan(); // its work is CPU the hold counts
          return false;
        },
        "the lift's line on stderr",
        120_000,
      );
      assert.equal(await server.turbofan(), true, "lifted: V8 optimizes the hot function");
      const call = await server.client.callTool({ name: "agent_tools_search", arguments: { query: "notes" } });
      assert.notEqual(call.isError, true, "the server answers after the lift");
    } finally {
      await server.close();
    }
  });

  it("optimizes from the start with AGENT_TOOLS_OPTIMIZE_AFTER_CPU_MS=off (so the probe's work is enough to reach TurboFan)", async () => {
    const server = await probedServer({ AGENT_TOOLS_OPTIMIZE_AFTER_CPU_MS: "off" });
    try {
      assert.doesNotMatch(server.stderr(), /optimizing compiler held/);
      assert.equal(await server.turbofan(), true);
    } finally {
      await server.close();
    }
  });

  it("the HTTP server holds it too", async () => {
    const child = spawn(process.execPath, [path.join(ROOT, "dist", "bin", "agent-tools-mcp-http.js"), "--port", "0", "--host", "127.0.0.1"], {
      env: baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_LOG: "debug" }),
      cwd: FIXTURES,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      await until(() => /optimizing compiler held \{"afterCpuMs":2000\}/.test(stderr) || child.exitCode !== null, "the HTTP server's hold line");
      assert.match(stderr, /optimizing compiler held/, stderr.slice(-500));
    } finally {
      child.kill();
    }
  });
});
