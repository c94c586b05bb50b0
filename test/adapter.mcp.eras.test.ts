import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, afterEach, before, describe, test } from "node:test";
import { trackedChildren, type McpAdapter } from "../src/adapters/mcp/index.js";
import { startV2Http, type V2Http } from "./fixtures/v2/downstream.js";
import { buildAdapter, liveChildren, textOf } from "./fixtures/mcp/support.js";
import { V2_FIXTURE } from "./v2-helpers.js";
import { silentLogger } from "../src/log.js";
import { createRuntime, type Runtime } from "../src/runtime/runtime.js";
import { createFileCatalogStore } from "../src/runtime/catalog-cache/store.js";
import { writePlugin } from "./helpers.js";

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

  test("a server that exits before answering is started once per era on its first start, then once per start; the backoff counts every run", async () => {
    const counter = path.join(tmp, "spawns.log");
    const adapter = track(buildAdapter({ kind: "mcp", command: process.execPath, args: ["-e", `require('fs').appendFileSync(${JSON.stringify(counter)}, 'x'); process.stderr.write('no licence\\n'); process.exit(2)`] }, { name: "dead" }));
    const spawns = (): number => readFileSync(counter, "utf8").length;
    const first = await adapter.listTools().then(() => undefined, (e: Error & { code?: string }) => e);
    assert.match(first?.message ?? "", /no licence/);
    // Exiting on the probe may be a 2025-era server's answer to it: the 2025 handshake is tried once.
    assert.equal(spawns(), 2, "the probe's start and one with initialize");
    assert.match((first as { hint?: string } | undefined)?.hint ?? "", /^It was started twice, once in each protocol era .*, and exited before answering both times: the era is not the cause, and its next starts are one each\. The server stopped by itself while starting/);
    const second = await adapter.call("echo", {}).then(() => undefined, (e: Error & { code?: string }) => e);
    assert.equal(second?.code, "UPSTREAM_ERROR");
    assert.match(second?.message ?? "", /not retried for \d+ s after 2 failed starts\)/);
    assert.equal(spawns(), 2, "no new process within the backoff");
    assert.match(adapter.health()?.reason ?? "", /no licence/);
    // After the backoff (2 s for two failed starts): one process, not two.
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    const third = await adapter.call("echo", {}).then(() => undefined, (e: Error) => e);
    assert.match(third?.message ?? "", /exited with code 2 before it finished starting/);
    assert.doesNotMatch(third?.message ?? "", /not retried/);
    assert.equal(spawns(), 3, "the next start is one run");
    const fourth = await adapter.call("echo", {}).then(() => undefined, (e: Error) => e);
    assert.match(fourth?.message ?? "", /not retried for \d+ s after 3 failed starts\)/);
    assert.equal(spawns(), 3);
  });

  test("a command that cannot be run is not started in the other era either: one failed start", async () => {
    const adapter = track(buildAdapter({ kind: "mcp", command: path.join(tmp, "no-such-server") }, { name: "missing" }));
    const first = await adapter.listTools().then(() => undefined, (e: Error & { code?: string }) => e);
    assert.equal(first?.code, "NOT_CONFIGURED");
    assert.match(first?.message ?? "", /was not found \(ENOENT\)/);
    const second = await adapter.listTools().then(() => undefined, (e: Error & { code?: string }) => e);
    assert.match(second?.message ?? "", /not retried for \d+ s after 1 failed start\)/);
  });

  // A server that exits on its first request while a marker file exists (a missing variable, say),
  // and is then fixed: run through `sh`, which logs each start and then becomes the real server
  // (exec). It reads the request before exiting, as a 2025-era server that exits on the probe does.
  const exitsUntilFixed = (name: string, marker: string, log: string, server: string[]): McpAdapter =>
    track(
      buildAdapter(
        { kind: "mcp", command: "/bin/sh", args: ["-c", 'echo start >> "$SPAWN_LOG"; if [ -e "$BROKEN_MARKER" ]; then read -r request; echo "SECRET_KEY is not set" >&2; exit 1; fi; exec "$@"', "sh", process.execPath, ...server], env: { SPAWN_LOG: log, BROKEN_MARKER: marker }, timeoutMs: 30_000 },
        { name },
      ),
    );

  for (const [era, server] of [
    ["2025-era (exits on the probe)", [path.join(path.dirname(V2_FIXTURE), "strict-legacy.mjs")]],
    ["modern-only", ["--import", TSX, V2_FIXTURE, "reject"]],
  ] as const) {
    test(`a ${era} server that exited in both eras and was then fixed starts on the next try, in its own era`, async () => {
      const marker = path.join(tmp, `broken-${era.length}`);
      const log = path.join(tmp, `fixed-${era.length}.log`);
      writeFileSync(marker, "");
      const adapter = exitsUntilFixed(`fixed-${era.length}`, marker, log, [...server]);
      const failed = await adapter.listTools().then(() => undefined, (e: Error) => e);
      assert.match(failed?.message ?? "", /SECRET_KEY is not set/);
      assert.equal(lines(log).length, 2, failed?.message);
      rmSync(marker);
      await new Promise((resolve) => setTimeout(resolve, 2_200));
      assert.equal(textOf(await adapter.call("echo", { text: "fixed" })), "fixed");
      assert.equal(adapter.era, era === "modern-only" ? "modern" : "legacy");
      // The 2025 handshake first: a strict 2025 server answers it in one run; a modern-only one refuses it and is probed in a second.
      assert.equal(lines(log).length, era === "modern-only" ? 4 : 3, lines(log).join(","));
    });
  }
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


describe("an era probe left unanswered while the server's process runs (probe-silence.ts)", () => {
  const STRICT = path.join(path.dirname(V2_FIXTURE), "strict-legacy.mjs");
  const timed = async <T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> => {
    const started = performance.now();
    const value = await run();
    return { value, ms: performance.now() - started };
  };

  test("a 2025-era server that ignores requests before initialize is taken for one once it goes quiet (seconds), not after the probe's whole timeout; the verdict is kept", async (t) => {
    const log = path.join(tmp, "silent.log");
    // It says it runs (stderr), as servers do: the short clock starts there.
    const adapter = track(
      buildAdapter({ kind: "mcp", command: process.execPath, args: [STRICT], env: { STRICT_LEGACY_PRE_INIT: "silent", STRICT_LEGACY_STARTED: "quiet server running", STRICT_LEGACY_LOG: log }, timeoutMs: 60_000 }, { name: "silent" }),
    );
    const first = await timed(() => adapter.call("echo", { text: "heard" }));
    t.diagnostic(`a quiet 2025-era server answered its first call in ${Math.round(first.ms)} ms`);
    assert.equal(textOf(first.value), "heard");
    assert.equal(adapter.era, "legacy");
    assert.ok(first.ms < 20_000, `answered in ${Math.round(first.ms)} ms, not after the 60 s probe timeout`);
    assert.deepEqual(lines(log), ["server/discover", "initialize", "notifications/initialized", "tools/call"], "initialize on the same process, after the probe");
    await adapter.stop();
    assert.equal(textOf(await adapter.call("echo", { text: "again" })), "again");
    assert.deepEqual(lines(log).slice(4), ["initialize", "notifications/initialized", "tools/call"], "the kept verdict: no probe on the next start");
  });

  test("one that writes nothing at all gets the start grace first (a slow start is not taken for silence), then the same", async (t) => {
    const adapter = track(buildAdapter({ kind: "mcp", command: process.execPath, args: [STRICT], env: { STRICT_LEGACY_PRE_INIT: "silent" }, timeoutMs: 60_000 }, { name: "mute" }));
    const first = await timed(() => adapter.call("echo", { text: "late" }));
    t.diagnostic(`a mute 2025-era server answered its first call in ${Math.round(first.ms)} ms`);
    assert.equal(textOf(first.value), "late");
    assert.equal(adapter.era, "legacy");
    assert.ok(first.ms >= 5_000, `the grace (5 s) was waited: ${Math.round(first.ms)} ms`);
    assert.ok(first.ms < 30_000, `answered in ${Math.round(first.ms)} ms, not after the 60 s probe timeout`);
  });

  test("a process that answers neither the probe nor initialize fails its start saying there was no answer to the era probe", async () => {
    const adapter = track(buildAdapter({ kind: "mcp", command: process.execPath, args: ["-e", "process.stdin.resume(); process.stderr.write('up and reading\\n')"], timeoutMs: 8_000 }, { name: "deaf" }));
    const failed = await adapter.listTools().then(
      () => undefined,
      (e: Error & { code?: string }) => e,
    );
    assert.equal(failed?.code, "UPSTREAM_ERROR");
    assert.match(failed?.message ?? "", /did not finish starting within 8000 ms; no answer to the era probe \(server\/discover\) within \d+ ms while its process ran quiet, so it was taken for a 2025-era server and sent initialize/);
    assert.match(failed?.message ?? "", /up and reading/);
  });

  test("a 2026-07-28 server that was only slow (it answers the probe after it was given up, then refuses initialize) is started again at once, its probe waited for", async () => {
    const log = path.join(tmp, "slow-modern.log");
    // Says it is loading, then takes 6 s before it reads anything: longer than the short clock.
    const adapter = track(
      buildAdapter(
        { kind: "mcp", command: "/bin/sh", args: ["-c", 'echo loading >&2; sleep 6; exec "$@"', "sh", process.execPath, "--import", TSX, V2_FIXTURE, "reject"], env: { V2_OPENING_LOG: log }, timeoutMs: 60_000 },
        { name: "slow-modern" },
      ),
    );
    assert.equal(textOf(await adapter.call("echo", { text: "patient" })), "patient");
    assert.equal(adapter.era, "modern");
    assert.deepEqual(lines(log), ["start", "discover", "start", "discover"], "two processes: the second waited for its probe");
  });
});

describe("a server answering initialize with a protocol version this runtime does not speak", () => {
  const STRICT = path.join(path.dirname(V2_FIXTURE), "strict-legacy.mjs");
  const refusal = async (adapter: McpAdapter): Promise<Error & { code?: string; hint?: string }> => {
    const error = await adapter.listTools().then(
      () => undefined,
      (e: Error & { code?: string; hint?: string }) => e,
    );
    assert.ok(error, "the start failed");
    return error;
  };

  test("stdio: named as the runtime's refusal of that version, with the versions spoken and which side to upgrade; not as a server that stopped by itself", async () => {
    const old = await refusal(track(buildAdapter({ kind: "mcp", command: process.execPath, args: [STRICT], env: { STRICT_LEGACY_VERSION: "2023-01-01" } }, { name: "old" })));
    assert.equal(old.code, "UPSTREAM_ERROR");
    assert.match(old.message, /^MCP server 'old' answered initialize with protocol version "2023-01-01", which this runtime does not speak \(its 2025-era handshake takes 2025-11-25, 2025-06-18, .*; the 2026-07-28 era opens with server\/discover instead\), so the runtime ended the connection/);
    assert.doesNotMatch(old.message, /exited with code|before it finished starting/);
    assert.match(old.hint ?? "", /^The server is too old for this runtime: upgrade it to a release that speaks one of these versions; then call again/);
    assert.doesNotMatch(old.hint ?? "", /stopped by itself|Fix its arguments/);

    const newer = await refusal(track(buildAdapter({ kind: "mcp", command: process.execPath, args: [STRICT], env: { STRICT_LEGACY_VERSION: "2026-09-01" } }, { name: "newer" })));
    assert.match(newer.message, /answered initialize with protocol version "2026-09-01", which this runtime does not speak/);
    assert.match(newer.hint ?? "", /^The server is newer than this runtime: upgrade agent-tools-runtime/);
  });

  test("Streamable HTTP: the same words, not a failed tools/list to call again", async () => {
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        if (req.method !== "POST") return void res.writeHead(405).end();
        const message = JSON.parse(body) as { id?: number | string; method: string };
        if (message.id === undefined) return void res.writeHead(202).end();
        // A 2025-era server: the era probe is an unknown method to it; initialize names a version nobody speaks.
        const answer =
          message.method === "initialize"
            ? { result: { protocolVersion: "2023-01-01", capabilities: { tools: {} }, serverInfo: { name: "old-http", version: "1.0.0" } } }
            : { error: { code: -32601, message: `Method not found: ${message.method}` } };
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: message.id, ...answer }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const error = await refusal(track(buildAdapter({ kind: "mcp", url: `http://127.0.0.1:${port}/mcp` }, { name: "old-http" })));
      assert.match(error.message, /^MCP server 'old-http' answered initialize with protocol version "2023-01-01", which this runtime does not speak/);
      assert.doesNotMatch(error.message, /failed during tools\/list/);
      assert.match(error.hint ?? "", /too old for this runtime/);
      assert.doesNotMatch(error.hint ?? "", /Call again once/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("the era verdict survives a restart of the runtime (catalog cache)", () => {
  test("a modern-only server probed in one run is connected without server/discover in the next; a legacy verdict is kept too", async () => {
    const cacheDir = path.join(tmp, "catalogs");
    const logs = { modern: path.join(tmp, "persist-modern.log"), legacy: path.join(tmp, "persist-legacy.log") };
    const pluginsDir = path.join(tmp, "persist-plugins");
    // The v2 fixture modern-only, and the strict 2025 server (which exits on a probe, so a kept "legacy" is what spares it a restart).
    const spawns = {
      pm: { command: process.execPath, args: ["--import", TSX, V2_FIXTURE, "reject"], env: { V2_OPENING_LOG: logs.modern } },
      pl: { command: process.execPath, args: [path.join(path.dirname(V2_FIXTURE), "strict-legacy.mjs")] },
    };
    for (const [prefix, spawnAs] of Object.entries(spawns)) {
      writePlugin(path.join(pluginsDir, prefix), { name: prefix, prefix, description: "era persistence", adapter: { kind: "mcp", ...spawnAs, timeoutMs: 30_000 } });
    }
    const run = async (): Promise<{ runtime: Runtime; eras: Record<string, unknown> }> => {
      const runtime = await createRuntime({ pluginDirs: Object.keys(spawns).map((p) => path.join(pluginsDir, p)), env: {}, log: silentLogger, catalogCache: createFileCatalogStore(cacheDir) });
      const session = runtime.createSession("persist");
      for (const prefix of Object.keys(spawns)) {
        const answer = await runtime.call(session, prefix, { toolName: "echo", arguments: { text: prefix } });
        assert.equal(answer.isError, false, JSON.stringify(answer.payload));
      }
      const eras = Object.fromEntries(runtime.plugins.map((p) => [p.manifest.prefix, (p.adapter as McpAdapter).era]));
      return { runtime, eras };
    };
    const first = await run();
    assert.deepEqual(first.eras, { pm: "modern", pl: "legacy" });
    // Let the background listing store both catalogs (with their verdicts), then stop the run.
    const storedCount = (): number => (existsSync(cacheDir) ? readdirSync(cacheDir).filter((n) => n.endsWith(".json")).length : 0);
    for (let i = 0; i < 200 && storedCount() < 2; i++) await new Promise((r) => setTimeout(r, 50));
    await first.runtime.close();
    const stored = readdirSync(cacheDir).filter((n) => n.endsWith(".json")).map((n) => JSON.parse(readFileSync(path.join(cacheDir, n), "utf8")) as { prefix: string; protocol?: { kind: string } });
    assert.deepEqual(Object.fromEntries(stored.map((e) => [e.prefix, e.protocol?.kind])), { pm: "modern", pl: "legacy" });
    assert.deepEqual(lines(logs.modern), ["start", "discover"]);

    const second = await run();
    await second.runtime.close();
    assert.deepEqual(second.eras, { pm: "modern", pl: "legacy" });
    assert.deepEqual(lines(logs.modern), ["start", "discover", "start"], "the second run adopted the stored discover result: no probe");
  });
});
