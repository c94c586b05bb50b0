import assert from "node:assert/strict";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { McpAdapterError } from "../src/adapters/mcp/errors.js";
import { OAuthTokenStore } from "../src/adapters/mcp/oauth-token-store.js";
import { createRedactor } from "../src/adapters/shared/redact.js";
import { acquireFileLock, FileLockBusyError, holderFile } from "../src/file-lock.js";
import { ROOT } from "./helpers.js";
import { lockHolder } from "./lock-holder.js";

// The holder of a lock (src/file-lock.ts) records itself beside it (`<lock>.holder`: pid, host,
// since when), and a wait that runs out names that process. Over real processes: a runtime's lock
// taken in another process, one taken without a record (proper-lockfile alone, as an older
// runtime does), and records that are missing, unreadable, or not a file at all.

/** The stale age every taker of these locks uses (the holder refreshes its lock every second). */
const STALE_MS = 4_000;

const dirs: string[] = [];
const children: ChildProcess[] = [];
after(() => {
  for (const child of children) child.kill("SIGKILL");
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-lock-holder-"));
  dirs.push(dir);
  return dir;
}

/** Another process holding `lockFile` through the runtime's own acquireFileLock (dist/), until it reads a line on stdin. */
async function runtimeHolder(lockFile: string): Promise<ChildProcess> {
  const script = `
    const { acquireFileLock } = await import(${JSON.stringify(path.join(ROOT, "dist", "file-lock.js"))});
    const release = await acquireFileLock(${JSON.stringify(lockFile)}, { until: Date.now() + 30000, staleMs: ${STALE_MS} });
    process.stdout.write("locked\\n");
    process.stdin.once("data", async () => { await release(); process.stdout.write("released\\n"); process.exit(0); });`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { cwd: ROOT, stdio: ["pipe", "pipe", "inherit"] });
  children.push(child);
  await said(child, "locked");
  return child;
}

function said(child: ChildProcess, word: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let out = "";
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      if (out.includes(word)) {
        child.stdout?.off("data", onData);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`the holder exited (${code}) before saying ${word}`)));
  });
}

async function busy(lockFile: string, waitMs = 1_500): Promise<FileLockBusyError> {
  const error = await acquireFileLock(lockFile, { until: Date.now() + waitMs, staleMs: STALE_MS }).then(
    () => assert.fail("the lock was taken while another process held it"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof FileLockBusyError, String(error));
  return error;
}

/** "12:03:04" of epoch ms, as the message says it (local time). */
function clock(ms: number): string {
  return new Date(ms).toTimeString().slice(0, 8);
}

describe("a lock's holder, named when a wait runs out", { timeout: 120_000 }, () => {
  it("a runtime holding it in another process: the error names its pid, host and since when; its record goes with the lock", async () => {
    const lockFile = path.join(tempDir(), "data.json.lock");
    const before = Date.now();
    const holder = await runtimeHolder(lockFile);
    const error = await busy(lockFile);
    assert.equal(error.holder?.pid, holder.pid);
    assert.equal(error.holder?.host, os.hostname());
    const since = error.holder?.since ?? 0;
    assert.ok(since >= before - 1_000 && since <= Date.now(), `since ${since}`);
    assert.equal(error.byWhom, ` (pid ${holder.pid} on host ${os.hostname()}, holding it since ${clock(since)})`);
    assert.ok(error.message.startsWith(`${lockFile} stayed locked by another process (pid ${holder.pid} on host ${os.hostname()}, holding it since ${clock(since)}) for the `), error.message);
    assert.equal(error.removeAdvice("runtime"), `the holder is pid ${holder.pid} on host ${os.hostname()}; if that process is gone (or hung), remove the folder ${lockFile}`);

    holder.stdin?.write("release\n");
    await said(holder, "released");
    assert.equal(existsSync(holderFile(lockFile)), false, "the record is removed when the lock is let go");
    const release = await acquireFileLock(lockFile, { until: Date.now() + 10_000, staleMs: STALE_MS });
    const mine = JSON.parse(readFileSync(holderFile(lockFile), "utf8")) as { pid: number };
    assert.equal(mine.pid, process.pid, "the next holder records itself");
    await release();
    assert.equal(existsSync(holderFile(lockFile)), false);
    assert.equal(existsSync(lockFile), false);
  });

  it("a holder that records nothing, or a record that is garbage, a folder, a FIFO or an earlier holder's: no holder is named, and the lock works the same", async () => {
    const dir = tempDir();
    const lockFile = path.join(dir, "data.json.lock");
    const holder = await lockHolder(lockFile, STALE_MS);
    children.push(holder);
    const record = holderFile(lockFile);
    const unusable: Array<[string, () => void]> = [
      ["no record", () => undefined],
      ["garbage", () => writeFileSync(record, "not json {")],
      // Of this lock's folder, but by a process of this host that is gone (a pid no process has).
      ["a gone process's record", () => writeFileSync(record, JSON.stringify({ pid: 2 ** 22 + 7, host: os.hostname(), since: Date.now(), lock: statSync(lockFile).ino }))],
      // Of a live process, but written for an earlier folder of this lock (its holder exited on a signal, before removing it).
      ["an earlier lock's record", () => writeFileSync(record, JSON.stringify({ pid: process.pid, host: os.hostname(), since: Date.now(), lock: statSync(lockFile).ino + 1 }))],
      ["a folder", () => mkdirSync(record)],
      ["a FIFO", () => execFileSync("mkfifo", [record])],
    ];
    for (const [what, make] of unusable) {
      rmSync(record, { recursive: true, force: true });
      make();
      const error = await busy(lockFile, 800);
      assert.equal(error.holder, undefined, what);
      assert.equal(error.byWhom, "", what);
      assert.equal(error.message, `${lockFile} stayed locked by another process for the ${error.waitedMs} ms this call could wait`, what);
      assert.equal(error.removeAdvice("runtime"), `with no other runtime running, remove the folder ${lockFile}`, what);
    }
    // Let go (its exit hook removes the lock); a folder where the record goes does not stop the next taker.
    const exited = new Promise((resolve) => holder.once("exit", resolve));
    holder.kill("SIGTERM");
    await exited;
    const release = await acquireFileLock(lockFile, { until: Date.now() + 10_000, staleMs: STALE_MS });
    await release();
    assert.equal(existsSync(lockFile), false, "let go although its record could not be written");
  });

  it("the OAuth store's refresh names the process holding its lock", async () => {
    const dir = tempDir();
    const file = path.join(dir, "tokens.json");
    writeFileSync(file, JSON.stringify({ access_token: "old", refresh_token: "r0", expires_at: Date.now() - 60_000, token_endpoint: "http://127.0.0.1:9/token", client_id: "agent-tools" }));
    const holder = await runtimeHolder(`${file}.lock`);
    const error = await new OAuthTokenStore(file, { redactor: createRedactor(), lockStaleMs: STALE_MS }).accessToken().then(
      () => assert.fail("refreshed while another process held the lock"),
      (e: unknown) => e,
    );
    assert.ok(error instanceof McpAdapterError, String(error));
    assert.match(error.message, new RegExp(`its lock \\S+ stayed held by another process \\(pid ${holder.pid} on host ${os.hostname().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}, holding it since \\d\\d:\\d\\d:\\d\\d\\) for the \\d+ ms a refresh waits`));
    assert.ok(error.hint?.includes(`the holder is pid ${holder.pid} on host ${os.hostname()}; if that process is gone (or hung), remove the folder ${file}.lock.`), error.hint);
    assert.equal((error.details?.holder as { pid?: number } | undefined)?.pid, holder.pid);
  });
});
