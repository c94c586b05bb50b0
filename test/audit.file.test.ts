import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { appendFileSync, chmodSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { createFileAuditLog } from "../src/state/audit-file.js";
import type { AuditEntry } from "../src/state/types.js";
import { connect, MCP_BIN, PLUGINS, runCli, baseEnv } from "./helpers.js";
import { until } from "./wait.js";

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
