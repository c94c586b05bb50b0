import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { runCli } from "./helpers.js";

/**
 * A config file or plugin.json that is a device, a FIFO or huge: the real CLI refuses it by name,
 * kind or size and the 4 MiB limit, instead of reading forever (bad_alloc on /dev/zero, a hang on
 * a FIFO with no writer).
 */

const NO_CRASH = /bad_alloc|FATAL ERROR|heap out of memory|Aborted|core dumped/i;

function bigFile(dir: string, name: string, bytes: number): string {
  const file = path.join(dir, name);
  writeFileSync(file, `{ "plugins": {} }${" ".repeat(bytes)}`);
  return file;
}

describe("settings files are read bounded", () => {
  it("status --config=/dev/zero: exit 1, names the file and that it is a character device, no crash", { skip: process.platform === "win32" ? "no /dev/zero" : false }, async () => {
    const run = await runCli(["status", "--config=/dev/zero"]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.doesNotMatch(run.stdout + run.stderr, NO_CRASH);
    const report = JSON.parse(run.stdout) as { ok: boolean; result: { problems: string[] } };
    assert.equal(report.ok, false);
    assert.deepEqual(report.result.problems, ["/dev/zero: is a character device, not a regular file; name a regular file of at most 4 MiB instead"]);
    assert.match(run.stderr, /\/dev\/zero: is a character device/);
  });

  it("a config over 4 MiB: exit 1, its size and the limit named, nothing read", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-bounds-"));
    const file = bigFile(dir, "huge.json", 5 * 1024 * 1024);
    const run = await runCli(["status", `--config=${file}`]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.doesNotMatch(run.stdout + run.stderr, NO_CRASH);
    const report = JSON.parse(run.stdout) as { result: { problems: string[] } };
    assert.deepEqual(report.result.problems, [`${file}: is 5242897 bytes, over the 4 MiB (4194304-byte) limit for a settings file; nothing was read. Name the right file, or cut it down below 4 MiB`]);
  });

  it("a plugin.json that is a FIFO or over 4 MiB: that plugin is skipped with the reason, status still answers", { skip: process.platform === "win32" ? "no mkfifo" : false }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-bounds-"));
    mkdirSync(path.join(dir, "plugins", "piped"), { recursive: true });
    mkdirSync(path.join(dir, "plugins", "huge"), { recursive: true });
    const fifo = path.join(dir, "plugins", "piped", "plugin.json");
    execFileSync("mkfifo", [fifo]);
    const huge = bigFile(path.join(dir, "plugins", "huge"), "plugin.json", 4 * 1024 * 1024);
    const config = path.join(dir, "config.json");
    writeFileSync(config, JSON.stringify({ plugins: { dirs: [path.join(dir, "plugins")] } }));
    // A FIFO with no writer would block a plain read forever: the bound on this run is the proof it did not.
    const run = await Promise.race([
      runCli(["status", `--config=${config}`]),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("status hung on the FIFO")), 60_000).unref()),
    ]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.doesNotMatch(run.stdout + run.stderr, NO_CRASH);
    const problems = (JSON.parse(run.stdout) as { result: { problems?: string[] } }).result.problems ?? [];
    assert.ok(problems.includes(`${fifo}: is a FIFO (named pipe), not a regular file; name a regular file of at most 4 MiB instead`), problems.join("\n"));
    assert.ok(problems.includes(`${huge}: is 4194321 bytes, over the 4 MiB (4194304-byte) limit for a settings file; nothing was read. Name the right file, or cut it down below 4 MiB`), problems.join("\n"));
  });

  it("a plugin.json just under the limit is still read (the bound is not a new failure for real files)", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-bounds-"));
    const folder = path.join(dir, "plugins", "roomy");
    mkdirSync(folder, { recursive: true });
    const manifest = JSON.stringify({ name: "roomy", prefix: "roomy", adapter: { kind: "rest", baseUrl: "http://127.0.0.1:9", tools: [{ name: "ping", path: "/ping" }] } });
    writeFileSync(path.join(folder, "plugin.json"), manifest + " ".repeat(4 * 1024 * 1024 - manifest.length - 1));
    const config = path.join(dir, "config.json");
    writeFileSync(config, JSON.stringify({ plugins: { dirs: [path.join(dir, "plugins")] } }));
    const run = await runCli(["status", `--config=${config}`]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const result = (JSON.parse(run.stdout) as { result: { problems?: string[]; commands: { name: string }[] } }).result;
    assert.deepEqual(result.problems ?? [], []);
    assert.ok(result.commands.some((c) => c.name === "roomy"), JSON.stringify(result.commands.map((c) => c.name)));
  });
});
