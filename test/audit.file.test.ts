import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { appendFileSync, chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { createFileAuditLog } from "../src/state/audit-file.js";
import { auditMaxBytes } from "../src/state/index.js";
import { envSettingProblems } from "../src/config/env-settings.js";
import type { AuditEntry } from "../src/state/types.js";
import { callJson, connect, MCP_BIN, PLUGINS, runCli, baseEnv } from "./helpers.js";
import { STDIO_FIXTURE } from "./fixtures/mcp/support.js";
import { until } from "./wait.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

/**
 * The JSONL audit file: `follow` (what `agent-tools audit --follow` prints) polls for hours
 * without piling up listeners, and keeps every entry across a rotation; a file that already
 * exists readable by others is made 0600 at start, with a warning; a symbolic link in its place is
 * refused, its target left as it was.
 */

const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-audit-file-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const line = (id: string): string => `${JSON.stringify({ id })}\n`;

describe("following the audit file", () => {
  it("polls many times without adding an abort listener per poll (no MaxListenersExceededWarning)", async () => {
    const file = path.join(dir, "many-polls.jsonl");
    writeFileSync(file, line("old"));
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on("warning", onWarning);
    const stop = new AbortController();
    const seen: string[] = [];
    const following = createFileAuditLog(file, { pollMs: 1 }).follow((entry: AuditEntry) => seen.push(entry.id), stop.signal);
    try {
      let most = 0;
      // 40 ms of 1 ms polls is dozens of polls even on a loaded machine; the old loop reached 11 listeners in 11.
      const started = Date.now();
      while (Date.now() - started < 400) {
        most = Math.max(most, getEventListeners(stop.signal, "abort").length);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      appendFileSync(file, line("new"));
      await until(() => seen.includes("new"), "the follower to see the new entry");
      assert.ok(most <= 1, `${most} abort listeners at once`);
    } finally {
      stop.abort();
      await following;
      process.off("warning", onWarning);
    }
    assert.deepEqual(seen, ["new"]);
    assert.equal(getEventListeners(stop.signal, "abort").length, 0);
    assert.deepEqual(warnings.filter((w) => w.name === "MaxListenersExceededWarning"), []);
  });

  it("after a rotation, reads the old file to its end and the new one from its start", async () => {
    const file = path.join(dir, "rotated.jsonl");
    writeFileSync(file, line("old"));
    const stop = new AbortController();
    const seen: string[] = [];
    // A long poll: the entry appended just before the move, and a new file already larger than the old offset, both land between two polls.
    const following = createFileAuditLog(file, { pollMs: 300 }).follow((entry: AuditEntry) => seen.push(entry.id), stop.signal);
    try {
      appendFileSync(file, line("e1"));
      await until(() => seen.includes("e1"), "the follower to see e1");
      appendFileSync(file, line("e2-just-before-the-move"));
      renameSync(file, `${file}.1`);
      writeFileSync(file, line("first-of-the-new-file-and-longer-than-the-old-one-was"));
      await until(() => seen.length >= 3, "the follower to read on after the rotation");
      appendFileSync(file, line("e3"));
      await until(() => seen.includes("e3"), "the follower to see e3");
    } finally {
      stop.abort();
      await following;
    }
    assert.deepEqual(seen, ["e1", "e2-just-before-the-move", "first-of-the-new-file-and-longer-than-the-old-one-was", "e3"]);
  });

  it("a file truncated in place is read again from its start", async () => {
    const file = path.join(dir, "truncated.jsonl");
    writeFileSync(file, line("a-long-first-entry-of-the-old-content") + line("b"));
    const stop = new AbortController();
    const seen: string[] = [];
    const following = createFileAuditLog(file, { pollMs: 20 }).follow((entry: AuditEntry) => seen.push(entry.id), stop.signal);
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      writeFileSync(file, line("c"));
      await until(() => seen.includes("c"), "the follower to see c");
    } finally {
      stop.abort();
      await following;
    }
    assert.deepEqual(seen, ["c"]);
  });
});

describe("the audit file's mode", () => {
  it("a file that exists readable by group and others is made 0600 at start, with one warning", async () => {
    const file = path.join(dir, "loose.jsonl");
    writeFileSync(file, line("before"));
    chmodSync(file, 0o644);
    const server = await connect(PLUGINS, { AGENT_TOOLS_AUDIT: "on", AGENT_TOOLS_AUDIT_FILE: file });
    try {
      assert.equal(statSync(file).mode & 0o777, 0o600);
      const warnings = server.stderr().split("\n").filter((l) => l.includes("had mode 0644"));
      assert.equal(warnings.length, 1, server.stderr());
      assert.match(warnings[0]!, /warn: the audit log .*loose\.jsonl had mode 0644 \(group or others could read it\); it is now 0600/);
    } finally {
      await server.close();
    }
  });

  it("`agent-tools audit` reading a loose file makes it 0600 too, and says so on stderr", async () => {
    const file = path.join(dir, "loose-read.jsonl");
    writeFileSync(file, line("kept"));
    chmodSync(file, 0o640);
    const ran = await runCli(["audit"], baseEnv({ AGENT_TOOLS_AUDIT: "on", AGENT_TOOLS_AUDIT_FILE: file }));
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.match(ran.stderr, /had mode 0640 .*it is now 0600/);
    assert.equal(ran.stdout, line("kept"));
  });
});

describe("an audit file that is a symbolic link", () => {
  /** A link to a file readable by others, as the setting names it. */
  const linked = (name: string): { link: string; target: string } => {
    const target = path.join(dir, `${name}-target.txt`);
    writeFileSync(target, "not an audit log\n");
    chmodSync(target, 0o644);
    const link = path.join(dir, `${name}.jsonl`);
    symlinkSync(target, link);
    return { link, target };
  };
  const untouched = (target: string): void => {
    assert.equal(statSync(target).mode & 0o777, 0o644, "the target's mode is left");
    assert.equal(readFileSync(target, "utf8"), "not an audit log\n", "nothing is appended to the target");
  };

  it("stops the start in one line naming the setting, the link's target and the fix; the target is not changed", async () => {
    const { link, target } = linked("start");
    const settings: { setting: string; env: Record<string, string> }[] = [
      { setting: "AGENT_TOOLS_AUDIT_FILE", env: { AGENT_TOOLS_AUDIT: "on", AGENT_TOOLS_AUDIT_FILE: link } },
      { setting: "AGENT_TOOLS_AUDIT", env: { AGENT_TOOLS_AUDIT: link } },
    ];
    for (const { setting, env } of settings) {
      const ran = await runCli([], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, ...env }), MCP_BIN);
      assert.notEqual(ran.code, 0, ran.stderr);
      assert.equal(ran.stdout, "");
      assert.match(ran.stderr, new RegExp(`the audit log \\S*start\\.jsonl \\(from ${setting}\\) is a symbolic link \\(to \\S*start-target\\.txt\\); set ${setting} to the real file, or AGENT_TOOLS_AUDIT=off`));
      assert.doesNotMatch(ran.stderr, /\n\s+at /, "no stack");
      untouched(target);
    }
    const validated = await runCli(["validate"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_AUDIT: "on", AGENT_TOOLS_AUDIT_FILE: link }));
    assert.equal(validated.code, 1, validated.stderr);
    assert.match(JSON.stringify((JSON.parse(validated.stdout) as { problems: string[] }).problems), /start\.jsonl \(from AGENT_TOOLS_AUDIT_FILE\) is a symbolic link/);
    untouched(target);
  });

  it("a link put in the file's place after the start is not written through: the append fails", async () => {
    const { link, target } = linked("later");
    const log = createFileAuditLog(link);
    await assert.rejects(log.append({ id: "x" } as unknown as AuditEntry), /ELOOP/);
    untouched(target);
  });
});

describe("the audit file's size bound", () => {
  it("keeps three older files: the oldest is dropped, and tail reads back through them in order", async () => {
    const folder = mkdtempSync(path.join(dir, "kept-"));
    const file = path.join(folder, "audit.jsonl");
    const log = createFileAuditLog(file, { maxBytes: 200 });
    const entry = (n: number): AuditEntry => ({ id: `entry-${String(n).padStart(3, "0")}`, at: "", identity: "local", session: "s", instance: "i", operation: "call", plugin: "p", outcome: "ok", durationMs: 0 });
    // About 125 bytes each: the file is rotated at every second entry; the 41st begins a new one.
    for (let n = 0; n < 41; n++) await log.append(entry(n));
    assert.deepEqual(readdirSync(folder).sort(), ["audit.jsonl", "audit.jsonl.1", "audit.jsonl.2", "audit.jsonl.3"], "no lock left, no fourth older file");
    const kept = ["audit.jsonl.3", "audit.jsonl.2", "audit.jsonl.1", "audit.jsonl"].flatMap((name) => readFileSync(path.join(folder, name), "utf8").split("\n").filter(Boolean).map((text) => (JSON.parse(text) as AuditEntry).id));
    assert.equal(kept.at(-1), "entry-040");
    assert.deepEqual(kept, [...kept].sort(), "oldest first across the files");
    assert.ok(kept.length < 41, "the oldest entries were dropped with the oldest file");
    assert.deepEqual((await log.tail(1000)).map((e) => e.id), kept, "tail: the kept files, oldest first");
    assert.deepEqual((await log.tail(2)).map((e) => e.id), ["entry-039", "entry-040"]);
  });

  it("AGENT_TOOLS_AUDIT_MAX_BYTES wins over team.auditMaxBytes; off (or 0 in the config) means no rotation of its own; 10 MiB by default", () => {
    assert.equal(auditMaxBytes({}), 10 * 1024 * 1024);
    assert.equal(auditMaxBytes({}, { auditMaxBytes: 4096 }), 4096);
    assert.equal(auditMaxBytes({}, { auditMaxBytes: 0 }), undefined);
    assert.equal(auditMaxBytes({ AGENT_TOOLS_AUDIT_MAX_BYTES: "1000" }, { auditMaxBytes: 4096 }), 1000);
    assert.equal(auditMaxBytes({ AGENT_TOOLS_AUDIT_MAX_BYTES: "off" }, { auditMaxBytes: 4096 }), undefined);
    // A value the variable cannot take is said by the start check; the config's, else the default, applies.
    assert.equal(auditMaxBytes({ AGENT_TOOLS_AUDIT_MAX_BYTES: "10MB" }, { auditMaxBytes: 4096 }), 4096);
    assert.match(envSettingProblems({ AGENT_TOOLS_AUDIT_MAX_BYTES: "10MB" })[0]?.message ?? "", /^AGENT_TOOLS_AUDIT_MAX_BYTES is '10MB', not a whole number of bytes above 0 \(or off\); using the default team\.auditMaxBytes, else 10485760 \(10 MiB\)/);
  });

  it("two runtimes writing at once under a low bound: rotated to .1, .2 …, each file near the bound, no entry lost or written twice", async () => {
    const folder = mkdtempSync(path.join(dir, "bounded-"));
    const audit = path.join(folder, "audit.jsonl");
    const config = path.join(folder, "agent-tools.config.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [STDIO_FIXTURE], description: "A fixture whose sleep tool counts as a write." } } }));
    // 50 entries of about 300 bytes (250–350): 12.5–17.5 KB, two or three rotations at 5,000 bytes, none dropped (three older files are kept).
    const maxBytes = 5_000;
    const perRuntime = 25;
    const env = (instance: string): Record<string, string> => ({ AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_AUDIT: "on", AGENT_TOOLS_AUDIT_FILE: audit, AGENT_TOOLS_AUDIT_MAX_BYTES: String(maxBytes), AGENT_TOOLS_INSTANCE_ID: instance });
    const runtimes = await Promise.all([connect(folder, env("writer-a")), connect(folder, env("writer-b"))]);
    try {
      await Promise.all(
        runtimes.map(async (runtime) => {
          for (let i = 0; i < perRuntime; i++) {
            const { payload, isError } = await callJson(runtime.client, "agent_tools_fx_call", { toolName: "sleep", arguments: { ms: 0 }, confirm: true });
            assert.equal(isError, false, JSON.stringify(payload));
            assert.equal(payload.audited, undefined, "every write is in the log");
          }
        }),
      );
    } finally {
      await Promise.all(runtimes.map((runtime) => runtime.close()));
    }
    const files = [audit, `${audit}.1`, `${audit}.2`, `${audit}.3`].filter((file) => existsSync(file));
    assert.ok(files.length >= 3, `rotated at least twice: ${readdirSync(folder).join(", ")}`);
    assert.equal(existsSync(`${audit}.4`), false, "no more than three older files");
    const entries = files.flatMap((file) => readFileSync(file, "utf8").split("\n").filter(Boolean).map((text) => JSON.parse(text) as AuditEntry));
    const longest = Math.max(...files.flatMap((file) => readFileSync(file, "utf8").split("\n").map((text) => text.length + 1)));
    for (const file of files) {
      // A file may pass the bound by the entries appended while it was being rotated: one per other writer, give or take.
      assert.ok(statSync(file).size < maxBytes + 3 * longest, `${path.basename(file)}: ${statSync(file).size} bytes, the bound ${maxBytes}`);
      if (file !== audit) assert.ok(statSync(file).size >= maxBytes, `${path.basename(file)} was rotated once it reached the bound: ${statSync(file).size} bytes`);
      assert.equal(statSync(file).mode & 0o777, 0o600, path.basename(file));
    }
    assert.equal(new Set(entries.map((entry) => entry.id)).size, entries.length, "no entry written twice");
    assert.deepEqual(
      ["writer-a", "writer-b"].map((instance) => entries.filter((entry) => entry.instance === instance && entry.tool === "sleep" && entry.outcome === "ok").length),
      [perRuntime, perRuntime],
      "every write of each runtime is in one of the files",
    );
    // `agent-tools audit` reads back through the rotated files, oldest first.
    const printed = await runCli(["audit", "--limit", "1000"], baseEnv({ AGENT_TOOLS_AUDIT: "on", AGENT_TOOLS_AUDIT_FILE: audit }));
    assert.equal(printed.code, 0, printed.stderr);
    const tail = printed.stdout.trim().split("\n").map((text) => (JSON.parse(text) as AuditEntry).id);
    assert.deepEqual(new Set(tail), new Set(entries.map((entry) => entry.id)), "the whole log, rotated files included");
  });
});

describe("the audit file's default place", () => {
  it("a relative XDG_STATE_HOME is ignored, as for every state file: the log is under ~/.local/state, not in the project", async () => {
    const home = mkdtempSync(path.join(tmpdir(), "agent-tools-audit-home-"));
    const project = mkdtempSync(path.join(tmpdir(), "agent-tools-audit-project-"));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MCP_BIN],
      // The audit on at its default file; the embedded memory plugin's write is the audited call.
      env: { ...baseEnv({ HOME: home, XDG_STATE_HOME: "relstate", AGENT_TOOLS_AUDIT: "on" }), AGENT_TOOLS_NO_BUNDLED_PLUGINS: "" },
      cwd: project,
      stderr: "pipe",
    });
    const client = new Client({ name: "audit-place-test", version: "0" });
    try {
      await client.connect(transport);
      const wrote = await callJson(client, "agent_tools_memory_call", { toolName: "create_entities", arguments: { entities: [{ name: "a", entityType: "t", observations: ["x"] }] }, confirm: true });
      assert.equal(wrote.payload.ok, true, JSON.stringify(wrote.payload));
    } finally {
      await client.close();
    }
    const audit = path.join(home, ".local", "state", "agent-tools", "audit.jsonl");
    await until(() => existsSync(audit), "the audit line");
    assert.match(readFileSync(audit, "utf8"), /create_entities/);
    assert.equal(existsSync(path.join(project, "relstate")), false, "nothing is written under the project");
    rmSync(home, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  });
});
