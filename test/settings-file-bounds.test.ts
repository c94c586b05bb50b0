import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { SKILLS_META_FILE } from "../src/plugins/skills.js";
import { runCli, writePlugin } from "./helpers.js";

/**
 * A config file or plugin.json that is a device, a FIFO or huge: the real CLI refuses it by name,
 * kind or size and the 4 MiB limit, instead of reading forever (bad_alloc on /dev/zero, a hang on
 * a FIFO with no writer). So is a skill file in a plugin's folder (16 MiB), whether it is hashed
 * for skills.meta.json or imported, and a package.json the self-reference check reads in a
 * folder an mcpServers entry points at.
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

  for (const withMeta of [true, false]) {
    it(`a skill file that is a FIFO or over 16 MiB${withMeta ? ", named in skills.meta.json (hashed)" : " (imported)"}: that skill is reported, the plugin's other skill loads, status answers`, { skip: process.platform === "win32" ? "no mkfifo" : false }, async () => {
      const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-bounds-"));
      const folder = path.join(dir, "plugins", "skilled");
      const good = "export const meta = { description: 'Say hi' };\nexport async function run() { return 'hi'; }\n";
      writePlugin(folder, { name: "skilled", prefix: "skilled", description: "A plugin with skills.", adapter: { kind: "rest", baseUrl: "http://127.0.0.1:9", tools: [{ name: "ping", path: "/ping" }] } }, { "skills/greet.mjs": good });
      const fifo = path.join(folder, "skills", "piped.mjs");
      execFileSync("mkfifo", [fifo]);
      // Sparse: 17 MiB on paper, nothing on disk.
      const huge = path.join(folder, "skills", "huge.mjs");
      writeFileSync(huge, good);
      truncateSync(huge, 17 * 1024 * 1024);
      if (withMeta) {
        const entry = { sha256: "0".repeat(64), meta: { description: "from the meta file" } };
        writeFileSync(path.join(folder, "skills", SKILLS_META_FILE), JSON.stringify({ skills: { "piped.mjs": entry, "huge.mjs": entry } }));
      }
      const config = path.join(dir, "config.json");
      writeFileSync(config, JSON.stringify({ plugins: { dirs: [path.join(dir, "plugins")] } }));
      // A FIFO with no writer would block a read, or an import, forever: the bound on this run is the proof it did not.
      const run = await Promise.race([
        runCli(["status", `--config=${config}`]),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error("status hung on the FIFO skill")), 60_000).unref()),
      ]);
      assert.doesNotMatch(run.stdout + run.stderr, NO_CRASH);
      const result = (JSON.parse(run.stdout) as { result: { problems?: string[]; commands: { name: string; skills?: string[] }[] } }).result;
      const problems = result.problems ?? [];
      assert.deepEqual(
        [...problems].sort(),
        [
          `skill 'huge' of plugin 'skilled' failed to load (${huge}): the file is 17825792 bytes, over the 16 MiB (16777216-byte) limit for a skill file; nothing was read. Move the skill's bulk into modules it imports, so the file is under 16 MiB, or remove it`,
          `skill 'piped' of plugin 'skilled' failed to load (${fifo}): the file is a FIFO (named pipe), not a regular file; a skill is a module file: put a regular file of at most 16 MiB in its place, or remove this one`,
        ],
        run.stdout,
      );
      assert.deepEqual(result.commands.find((c) => c.name === "skilled")?.skills, ["greet"], "the plugin's regular skill still loads");
    });
  }

  it("an mcpServers entry whose package.json (read to tell whether it runs this runtime) is a FIFO: status answers, the entry is kept as someone else's server", { skip: process.platform === "win32" ? "no mkfifo" : false }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-bounds-"));
    // A program whose package is looked for above it, and a folder given to npx --package.
    mkdirSync(path.join(dir, "tool", "bin"), { recursive: true });
    const program = path.join(dir, "tool", "bin", "server");
    writeFileSync(program, "#!/bin/sh\nexit 0\n");
    chmodSync(program, 0o755);
    execFileSync("mkfifo", [path.join(dir, "tool", "package.json")]);
    mkdirSync(path.join(dir, "pkg"));
    execFileSync("mkfifo", [path.join(dir, "pkg", "package.json")]);
    const config = path.join(dir, "config.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { piped: { command: program }, viapkg: { command: "npx", args: [`--package=${path.join(dir, "pkg")}`, "agent-tools-mcp"] } } }));
    const run = await Promise.race([
      runCli(["status", `--config=${config}`]),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("status hung on the FIFO package.json")), 60_000).unref()),
    ]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.doesNotMatch(run.stdout + run.stderr, NO_CRASH);
    const names = (JSON.parse(run.stdout) as { result: { commands: { name: string }[] } }).result.commands.map((c) => c.name);
    assert.ok(names.includes("piped") && names.includes("viapkg"), JSON.stringify(names));
  });
});
