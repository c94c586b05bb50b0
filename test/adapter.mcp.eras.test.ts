import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, afterEach, before, describe, test } from "node:test";
import { trackedChildren, type McpAdapter } from "../src/adapters/mcp/index.js";
import { startV2Http, type V2Http } from "./fixtures/v2/downstream.js";
import { buildAdapter, liveChildren, textOf } from "./fixtures/mcp/support.js";
import { V2_FIXTURE } from "./v2-helpers.js";

/**
 * The mcp adapter against servers of both eras written with the SDK v2: modern-only
 * (`legacy: reject`) over stdio and HTTP, dual-era, and a 2025-era server that dies on the
 * era probe. The era verdict is kept so a reconnect skips the probe; no process is left behind.
 */

const TSX = import.meta.resolve("tsx");
const tmp = mkdtempSync(path.join(os.tmpdir(), "mcp-eras-"));
const opened: McpAdapter[] = [];
function track(adapter: McpAdapter): McpAdapter {
  opened.push(adapter);
  return adapter;
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((a) => a.close()));
  assert.deepEqual(liveChildren(), [], "no child process left behind");
  assert.deepEqual(trackedChildren(), []);
});
after(() => rmSync(tmp, { recursive: true, force: true }));

function v2Stdio(posture: "reject" | "serve", log: string): McpAdapter {
  return track(buildAdapter({ kind: "mcp", command: process.execPath, args: ["--import", TSX, V2_FIXTURE, posture], env: { V2_OPENING_LOG: log }, timeoutMs: 30_000 }, { name: `v2-${posture}` }));
}

const lines = (file: string): string[] => {
  try {
    return readFileSync(file, "utf8").trim().split("\n").filter(Boolean);
  } catch {
    return [];
  }
};

describe("stdio", () => {
  test("a modern-only server connects in the modern era; a reconnect adopts the kept discover result (no probe)", async () => {
    const log = path.join(tmp, "modern.log");
    const adapter = v2Stdio("reject", log);
    assert.equal(textOf(await adapter.call("echo", { text: "modern" })), "modern");
    assert.equal(adapter.era, "modern");
    assert.ok(adapter.discoverResult?.supportedVersions.includes("2026-07-28"));
    assert.deepEqual(lines(log), ["start", "discover"], "one process: the probe ran in place");
    await adapter.stop();
    assert.equal(textOf(await adapter.call("echo", { text: "again" })), "again");
    assert.deepEqual(lines(log), ["start", "discover", "start"], "the restart sent no server/discover");
  });

  test("a dual-era server is spoken to in the modern era", async () => {
    const adapter = v2Stdio("serve", path.join(tmp, "dual.log"));
    await adapter.listTools();
    assert.equal(adapter.era, "modern");
  });

  test("a 2025-era server that exits on the probe is started again with initialize, and remembered as legacy", async () => {
    const adapter = track(buildAdapter({ kind: "mcp", command: process.execPath, args: [path.join(path.dirname(V2_FIXTURE), "strict-legacy.mjs")] }, { name: "strict" }));
    assert.equal(textOf(await adapter.call("echo", { text: "old" })), "old");
    assert.equal(adapter.era, "legacy");
    await adapter.stop();
    assert.equal(textOf(await adapter.call("echo", { text: "old again" })), "old again");
  });

  test("a server that cannot start is not spawned again on every call: the failure is kept with a backoff", async () => {
    const counter = path.join(tmp, "spawns.log");
    const adapter = track(buildAdapter({ kind: "mcp", command: process.execPath, args: ["-e", `require('fs').appendFileSync(${JSON.stringify(counter)}, 'x'); process.stderr.write('no licence\\n'); process.exit(2)`] }, { name: "dead" }));
    const first = await adapter.listTools().then(() => undefined, (e: Error & { code?: string }) => e);
    assert.match(first?.message ?? "", /no licence/);
    const spawnsAfterFirst = readFileSync(counter, "utf8").length;
    const second = await adapter.call("echo", {}).then(() => undefined, (e: Error) => e);
    assert.match(second?.message ?? "", /not retried for \d+ s after 1 failed start/);
    assert.equal(readFileSync(counter, "utf8").length, spawnsAfterFirst, "no new process within the backoff");
    assert.match(adapter.health()?.reason ?? "", /no licence/);
  });
});

describe("Streamable HTTP", () => {
  let modernOnly: V2Http;
  before(async () => {
    modernOnly = await startV2Http("reject");
  });
  after(async () => {
    await modernOnly.close();
  });

  test("a modern-only server is listed and called; every request it saw was modern", async () => {
    const adapter = track(buildAdapter({ kind: "mcp", url: modernOnly.url }, { name: "modern-http" }));
    const { tools } = await adapter.listTools();
    assert.ok(tools.some((t) => t.name === "write_row"));
    assert.equal(textOf(await adapter.call("echo", { text: "over http" })), "over http");
    assert.equal(adapter.era, "modern");
    assert.ok(!modernOnly.requests.methods.includes("GET"), "no SSE fallback was tried");
  });

  test("-32022 is final: a stale legacy verdict is dropped and the era negotiated again, never an SSE fallback", async () => {
    const adapter = track(buildAdapter({ kind: "mcp", url: modernOnly.url }, { name: "stale" }));
    (adapter as unknown as { connection: { rememberVerdict(v: unknown): void } }).connection.rememberVerdict({ kind: "legacy" });
    const before = modernOnly.requests.methods.length;
    assert.equal(textOf(await adapter.call("echo", { text: "renegotiated" })), "renegotiated");
    assert.equal(adapter.era, "modern");
    assert.ok(!modernOnly.requests.methods.slice(before).includes("GET"), "no SSE fallback was tried");
  });
});

