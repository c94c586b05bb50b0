import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { closeSync, constants, existsSync, fstatSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { callJson, connect, FIXTURES, type Connected } from "./helpers.js";
import { untilValue } from "./wait.js";

/**
 * A catalog cache entry that is damaged (edited by hand, a torn write, a FIFO where the file
 * goes) is a miss: the plugin is listed again, its answers are right, the entry is overwritten,
 * and the log names the file once. Real runtime processes over stdio, a real fixture server.
 */

const SERVER = path.join(FIXTURES, "mcp", "stdio-server.mjs");
/**
 * Each test's bound (and the before hook's): they take about a second. node:test has none by
 * default, so a server that never answers would stall the whole run instead of failing here.
 */
const TEST_MS = 60_000;

let dir: string;
let cacheDir: string;
let configFile: string;

const catalogs = () => path.join(cacheDir, "catalogs");
const entryFile = (): string | undefined => {
  const names = existsSync(catalogs()) ? readdirSync(catalogs()).filter((n) => /^[0-9a-f]+\.json$/.test(n)) : [];
  return names[0] ? path.join(catalogs(), names[0]) : undefined;
};

/**
 * The servers started and not closed yet. A test that times out never reaches its `finally`: its
 * server (and the pipes to it) would keep this file's process alive, the run stalled all the
 * same. The after hook closes what is left (the SDK's close ends stdin, then SIGTERM, SIGKILL).
 */
const running = new Set<Connected>();

async function start(): Promise<Connected> {
  const rt = await connect(path.join(dir, "no-plugins"), { AGENT_TOOLS_CONFIG: configFile, AGENT_TOOLS_CATALOG_CACHE: "on", AGENT_TOOLS_CACHE_DIR: cacheDir });
  running.add(rt);
  return {
    ...rt,
    close: async () => {
      running.delete(rt);
      await rt.close();
    },
  };
}

/**
 * The file's text if it is a regular file, else undefined. Opened non-blocking and asked through
 * its descriptor: the FIFO test polls the path the runtime replaces (by a rename, never opening
 * the FIFO), and a plain readFileSync that opened the FIFO first waited for a writer that never
 * comes, blocking this process (its event loop, its timers, its test timeouts) for good.
 */
function regularText(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    return fstatSync(fd).isFile() ? readFileSync(fd, "utf8") : undefined;
  } finally {
    closeSync(fd);
  }
}

/** The stored entry as the runtime wrote it, once it is a well-formed one again (and a regular file). */
function sound(file: string): Record<string, unknown> | undefined {
  try {
    const entry = JSON.parse(regularText(file) ?? "") as { tools?: { description?: unknown }[]; listedAt?: number };
    return entry.tools?.length && entry.tools.every((t) => t && typeof t.description === "string") && (entry.listedAt ?? 0) <= Date.now() ? entry : undefined;
  } catch {
    return undefined;
  }
}

/** Search and discover answer from the plugin's real catalog. */
async function assertServed(rt: Connected): Promise<void> {
  const { payload: found, isError } = await callJson(rt.client, "agent_tools_search", { query: "echo the text back" });
  assert.equal(isError, false, JSON.stringify(found));
  assert.ok((found.hits as { name: string }[]).some((h) => h.name === "echo"), JSON.stringify(found));
  const { payload: discovered } = await callJson(rt.client, "agent_tools_echo_discover", {});
  assert.equal(discovered.ok, true, JSON.stringify(discovered));
  assert.ok((discovered.matches as { name: string; description?: string }[]).some((m) => m.name === "echo" && m.description === "Echo the text back"));
}

describe("a damaged catalog cache entry", () => {
  let good: Record<string, unknown>;
  let file: string;

  before(
    async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-cache-damaged-"));
      cacheDir = path.join(dir, "cache");
      configFile = path.join(dir, "agent-tools.config.json");
      writeFileSync(configFile, JSON.stringify({ mcpServers: { echo: { command: process.execPath, args: [SERVER] } } }));
      const rt = await start();
      try {
        file = await untilValue("the stored catalog", () => entryFile());
        good = await untilValue("the stored catalog, whole", () => sound(file));
      } finally {
        await rt.close();
      }
    },
    { timeout: TEST_MS },
  );
  after(async () => {
    await Promise.all([...running].map((rt) => rt.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  const damages: [string, (entry: Record<string, unknown>) => Record<string, unknown>, RegExp][] = [
    ["a description that is an object", (e) => ({ ...e, tools: [{ name: "echo", description: { en: "Echo" }, inputSchema: { type: "object" } }] }), /tools\[0\]\.description is not a string/],
    ["a tool that is null", (e) => ({ ...e, tools: [null] }), /tools\[0\] is not an object/],
    ["a listing time in the future", (e) => ({ ...e, listedAt: Date.now() + 365 * 24 * 3600_000 }), /listedAt is .* in the future/],
    ["a schema that is a string", (e) => ({ ...e, tools: [{ name: "echo", inputSchema: "object" }] }), /tools\[0\]\.inputSchema is not an object/],
  ];

  for (const [what, damage, said] of damages) {
    test(`${what} is a miss: answers are right, the log names the file once, the entry is overwritten`, { timeout: TEST_MS }, async () => {
      writeFileSync(file, JSON.stringify(damage(good)));
      const rt = await start();
      try {
        await assertServed(rt);
        const rewritten = await untilValue("the entry written again", () => sound(file));
        assert.equal((rewritten.tools as unknown[]).length, (good.tools as unknown[]).length);
        const lines = rt.stderr().split("\n").filter((l) => l.includes("catalog cache: ignored"));
        assert.equal(lines.length, 1, rt.stderr());
        assert.ok(lines[0]!.includes(file), lines[0]);
        assert.match(lines[0]!, said);
        assert.match(lines[0]!, /listed again and the entry is overwritten/);
      } finally {
        await rt.close();
      }
    });
  }

  test("a FIFO where the entry goes is skipped: the server answers, is replaced by the listing, and exits on close", { skip: process.platform === "win32", timeout: TEST_MS }, async () => {
    rmSync(file);
    execFileSync("mkfifo", [file]);
    const rt = await start();
    try {
      const { payload: help } = await callJson(rt.client, "agent_tools_help", {});
      assert.equal(help.ok, true);
      await assertServed(rt);
      // The answers come from the listing in memory; the entry is written just after (a rename
      // over the FIFO), so it may still be the FIFO here: sound() skips it until it is replaced.
      await untilValue("the FIFO replaced by a stored catalog", () => sound(file));
      assert.match(rt.stderr(), /catalog cache: ignored .* it is a FIFO \(named pipe\), not a regular file/);
    } finally {
      await rt.close();
    }
    // close() ends stdin and waits up to 2 s for the exit, then sends SIGTERM and waits 2 s more,
    // then SIGKILL without waiting: a server blocked for good (a FIFO read on its main thread
    // handles neither the end of stdin nor SIGTERM) is still there now, killed but not reaped.
    assert.throws(() => process.kill(rt.pid, 0), /ESRCH/, "the server process is gone");
  });
});
