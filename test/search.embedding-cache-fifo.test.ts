import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { USE_MODEL_ID } from "../src/runtime/search/semantic/use-model.js";
import { callJson, connect, FIXTURES, ROOT, type Connected } from "./helpers.js";
import { untilValue } from "./wait.js";

/**
 * A FIFO (or any file but a regular one) in the cache folder's `embeddings/` is not read: the
 * embedding cache read its files with readFileSync, which on a FIFO waits for a writer that never
 * comes, on the runtime's main thread (no answer, no exit on stdin's end, SIGTERM unhandled), and
 * the piece table's in the model's thread. Now each is opened non-blocking and checked, said once,
 * and replaced by the next write; a write's temporary is created exclusively.
 */

/** Each test's bound: node:test has none by default, and these wait on processes. */
const TEST_MS = 60_000;

const kindOf = (file: string): string | undefined => {
  const stats = lstatSync(file, { throwIfNoEntry: false });
  return !stats ? undefined : stats.isFIFO() ? "fifo" : stats.isFile() ? "file" : "other";
};

describe("a FIFO in the embeddings cache folder", { skip: process.platform === "win32" }, () => {
  let dir: string;
  /** The server test's runtime: closed by the after hook too, should that test time out before its own close. */
  let rt: Connected | undefined;
  before(() => (dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-embeddings-fifo-"))));
  after(async () => {
    await rt?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("where the vectors, the sense vectors, a write's temporary or the piece table go: not read, said once, replaced by the next write", { timeout: TEST_MS }, async () => {
    // In a process of its own: a blocking open would hold it, deaf to timers, not this one.
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", path.join(FIXTURES, "embedding-cache-fifo.ts"), path.join(dir, "unit")], { cwd: ROOT, timeout: 30_000, killSignal: "SIGKILL" });
    const report = JSON.parse(stdout) as Record<string, { warnings: string[]; after: string; readBack: boolean; temporary?: string }>;
    for (const [kind, label] of [
      ["embeddings", "embedding cache"],
      ["senses", "embedding cache"],
      ["pieces", "piece table"],
    ] as const) {
      const { warnings, after: then, readBack } = report[kind]!;
      assert.equal(warnings.length, 1, `${kind}: ${warnings.join(" | ")}`);
      assert.match(warnings[0]!, new RegExp(`^${label} .*\\.bin is a FIFO \\(named pipe\\), not a regular file; it is not read, and the next write replaces it$`));
      assert.equal(then, "file", `${kind}: the FIFO was replaced`);
      assert.ok(readBack, `${kind}: what was written reads back`);
    }
    assert.deepEqual(report.swapped, { warnings: [], after: "file", readBack: true }, "a file swapped for a FIFO after it was read is rewritten, not appended to");
    assert.deepEqual(report.temporary, { warnings: [], after: "file", readBack: true, temporary: "fifo" }, "a FIFO at the temporary's old, predictable name is not written through: the write is done");
  });

  test("the server: a FIFO where the catalog's vectors go holds up neither search nor exit, and is replaced once the catalog is embedded", { timeout: TEST_MS }, async () => {
    const cacheDir = path.join(dir, "server", "cache");
    const vectors = path.join(cacheDir, "embeddings", `embeddings-${USE_MODEL_ID}.bin`);
    mkdirSync(path.dirname(vectors), { recursive: true });
    execFileSync("mkfifo", [vectors]);
    const configFile = path.join(dir, "server", "agent-tools.config.json");
    writeFileSync(configFile, JSON.stringify({ mcpServers: { echo: { command: process.execPath, args: [path.join(FIXTURES, "mcp", "stdio-server.mjs")] } } }));
    try {
      rt = await connect(path.join(dir, "no-plugins"), { AGENT_TOOLS_CONFIG: configFile, AGENT_TOOLS_CATALOG_CACHE: "on", AGENT_TOOLS_CACHE_DIR: cacheDir });
      // The first search answers by BM25F and starts the model's load; once it is in, the catalog
      // is embedded (the cache read first: the FIFO) and the vectors written.
      const { payload: first } = await callJson(rt.client, "agent_tools_search", { query: "echo the text back" });
      assert.equal(first.ok, true, JSON.stringify(first));
      await untilValue("the FIFO replaced by the catalog's vectors", () => (kindOf(vectors) === "file" ? true : undefined));
      const { payload: found } = await callJson(rt.client, "agent_tools_search", { query: "the process id of the server" });
      assert.ok((found.hits as { name: string }[]).some((h) => h.name === "pid"), JSON.stringify(found));
      assert.match(rt.stderr(), /embedding cache .*embeddings-[^ ]*\.bin is a FIFO \(named pipe\), not a regular file; it is not read, and the next write replaces it/);
    } finally {
      await rt?.close();
    }
    // close() ends stdin and waits up to 2 s, then SIGTERM and 2 s more, then SIGKILL without
    // waiting: a server whose main thread was blocked would still be there, killed but not reaped.
    assert.throws(() => process.kill(rt!.pid, 0), /ESRCH/, "the server process is gone");
    rt = undefined;
  });
});
