import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { createHash } from "node:crypto";
import { catalogKey } from "../src/runtime/catalog-cache/key.js";
import { sha256Hex } from "../src/sha256.js";
import { cacheRoot, catalogCacheDir, createFileCatalogStore } from "../src/runtime/catalog-cache/store.js";
import { manifestFromEntry } from "../src/config/mcp-servers.js";
import { callJson, connect, FIXTURES, runCli, baseEnv, type Connected } from "./helpers.js";
import { untilValue } from "./wait.js";

/**
 * The persistent catalog cache, end to end: real runtime processes over stdio, real fixture
 * servers that log each start, a cache folder of the test's own.
 */

const SERVER = path.join(FIXTURES, "mcp", "recording-server.mjs");
const SECRET = "sk-live-4f1d9c7e2b8a";

let dir: string;
let cacheDir: string;
let startLog: string;
let configFile: string;

function writeFleet(extraArgs: Record<string, string[]> = {}): void {
  const servers: Record<string, unknown> = {};
  for (const name of ["alpha", "beta", "gamma"]) {
    servers[name] = {
      command: process.execPath,
      args: [SERVER, ...(extraArgs[name] ?? [])],
      env: { START_LOG: startLog, API_KEY: "${BENCH_SECRET}" },
      readonlyTools: ["add_tool"],
    };
  }
  writeFileSync(configFile, JSON.stringify({ mcpServers: servers }));
}

const starts = (): number => (existsSync(startLog) ? readFileSync(startLog, "utf8").trim().split("\n").filter(Boolean).length : 0);

function start(secret = SECRET): Promise<Connected> {
  return connect(path.join(dir, "no-plugins"), {
    AGENT_TOOLS_CONFIG: configFile,
    AGENT_TOOLS_CATALOG_CACHE: "on",
    AGENT_TOOLS_CACHE_DIR: cacheDir,
    BENCH_SECRET: secret,
  });
}

async function search(client: Connected["client"], query: string) {
  const { payload } = await callJson(client, "agent_tools_search", { query, limit: 50, detail: true });
  const hits = (payload.hits as { plugin: string; name: string }[] | undefined) ?? [];
  return { payload, hits, plugins: new Set(hits.map((h) => h.plugin)) };
}

/** The catalogs folder inside AGENT_TOOLS_CACHE_DIR. */
const catalogs = () => path.join(cacheDir, "catalogs");
const entries = () => (existsSync(catalogs()) ? readdirSync(catalogs()).filter((n) => n.endsWith(".json")) : []);

describe("catalog cache", () => {
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-cache-"));
    cacheDir = path.join(dir, "cache");
    startLog = path.join(dir, "starts.log");
    configFile = path.join(dir, "agent-tools.config.json");
    writeFleet();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("a cold start lists every catalog in the background and stores it, with no secret on disk", async () => {
    const rt = await start();
    try {
      // No search needed: the catalogs the cache lacks are listed in the background.
      await untilValue("three stored catalogs", () => (entries().length === 3 ? true : undefined));
      const { plugins } = await untilValue("hits from all three", async () => {
        const found = await search(rt.client, "echo text back");
        return found.plugins.size === 3 ? found : undefined;
      });
      assert.deepEqual([...plugins].sort(), ["alpha", "beta", "gamma"]);
    } finally {
      await rt.close();
    }
    assert.equal(starts(), 3, "each server was started once, to list it");
    for (const name of entries()) {
      const text = readFileSync(path.join(catalogs(), name), "utf8");
      assert.ok(!text.includes(SECRET) && !name.includes(SECRET), "the secret is neither in the entry nor its name");
      assert.ok(!text.includes(configFile), "no config value is stored");
      const entry = JSON.parse(text) as { prefix: string; server?: { name: string; version: string }; tools: { name: string }[] };
      assert.ok(entry.tools.some((t) => t.name === "echo"));
      assert.deepEqual(entry.server, { name: "fixture-stdio", version: "1.0.0" });
    }
  });

  test("a warm restart answers search and discover from the cache without starting any server", async () => {
    const before = starts();
    const rt = await start();
    try {
      const { plugins, payload } = await search(rt.client, "echo text back");
      assert.equal(plugins.size, 3, JSON.stringify(payload));
      assert.equal(payload.unavailable, undefined);
      const { payload: discovered } = await callJson(rt.client, "agent_tools_beta_discover", {});
      assert.equal((discovered.totals as { tools: number }).tools, 7);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(starts(), before, "no downstream server was started");
      // A call needs the server: only that one starts.
      const { payload: called, isError } = await callJson(rt.client, "agent_tools_alpha_call", { toolName: "echo", arguments: { text: "hi" } });
      assert.equal(isError, false, JSON.stringify(called));
      assert.equal(starts(), before + 1);
    } finally {
      await rt.close();
    }
  });

  test("tools/list_changed updates the stored catalog", async () => {
    const rt = await start();
    try {
      const { isError } = await callJson(rt.client, "agent_tools_gamma_call", { toolName: "add_tool", arguments: { name: "freshly_added_widget" } });
      assert.equal(isError, false);
      await untilValue("the added tool in the index", async () => ((await search(rt.client, "freshly_added_widget")).hits.some((h) => h.name === "freshly_added_widget") ? true : undefined));
      await untilValue("the added tool on disk", () => (entries().some((n) => readFileSync(path.join(catalogs(), n), "utf8").includes("freshly_added_widget")) ? true : undefined));
    } finally {
      await rt.close();
    }
    const before = starts();
    const again = await start();
    try {
      const { hits } = await search(again.client, "freshly_added_widget");
      assert.ok(hits.some((h) => h.plugin === "gamma" && h.name === "freshly_added_widget"));
      assert.equal(starts(), before, "found after restart without starting gamma");
    } finally {
      await again.close();
    }
  });

  test("a config change invalidates that plugin's catalog, and only that one", async () => {
    writeFleet({ beta: ["--tools", "2"] });
    const before = starts();
    const rt = await start();
    try {
      const { payload } = await callJson(rt.client, "agent_tools_beta_discover", {});
      assert.equal((payload.totals as { tools: number }).tools, 9, "beta listed again with its new options");
      await untilValue("beta's new entry", () => (entries().length === 4 ? true : undefined));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(starts(), before + 1, "only beta was started");
    } finally {
      await rt.close();
    }
  });

  test("a different value of a variable the config uses is a different catalog", async () => {
    const before = starts();
    const rt = await start("sk-live-another-account");
    try {
      await untilValue("all three listed again", () => (starts() === before + 3 ? true : undefined));
    } finally {
      await rt.close();
    }
  });

  test("agent-tools cache shows the folder and clear empties it", async () => {
    const env = baseEnv({ AGENT_TOOLS_CATALOG_CACHE: "on", AGENT_TOOLS_CACHE_DIR: cacheDir });
    const shown = await runCli(["cache"], env);
    assert.equal(shown.code, 0, shown.stderr);
    const report = JSON.parse(shown.stdout) as { location: string; entries: number };
    assert.equal(report.location, catalogs());
    assert.ok(report.entries >= 4);
    // The semantic search's vectors are kept beside the catalogs, and cleared with them.
    const embeddings = path.join(path.dirname(catalogs()), "embeddings");
    mkdirSync(embeddings, { recursive: true });
    writeFileSync(path.join(embeddings, "embeddings-use-lite-512-v1.bin"), Buffer.alloc(12));
    const withVectors = JSON.parse((await runCli(["cache"], env)).stdout) as { embeddings: { location: string; files: number; bytes: number } };
    assert.deepEqual(withVectors.embeddings, { location: embeddings, files: 1, bytes: 12 });
    const cleared = await runCli(["cache", "clear"], env);
    assert.equal(cleared.code, 0, cleared.stderr);
    const clearedReport = JSON.parse(cleared.stdout) as { cleared: number; embeddings: { cleared: number } };
    assert.ok(clearedReport.cleared >= 4);
    assert.equal(clearedReport.embeddings.cleared, 1);
    assert.deepEqual(entries(), []);
    assert.deepEqual(readdirSync(embeddings), [], "the embeddings are gone too");
    const off = await runCli(["cache"], { ...env, AGENT_TOOLS_CATALOG_CACHE: "off" });
    assert.equal((JSON.parse(off.stdout) as { location: unknown }).location, null);
    const bad = await runCli(["cache", "wipe"], env);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /unknown action 'wipe'.*cache clear/);
  });
});

describe("agent-tools cache clear in a folder that holds other files", () => {
  test("removes only the catalogs and temporaries the runtime wrote, and names what it left alone", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "agent-tools-cache-mixed-"));
    try {
      // AGENT_TOOLS_CACHE_DIR pointed at a project folder that has a catalogs/ of its own.
      const folder = path.join(root, "catalogs");
      mkdirSync(path.join(folder, "notes"), { recursive: true });
      writeFileSync(path.join(folder, "products.json"), '{"mine":1}');
      writeFileSync(path.join(folder, "readme.tmp"), "mine too");
      const key = "cd".repeat(32);
      await createFileCatalogStore(folder).set(key, { prefix: "x", listedAt: 1, tools: [] });
      writeFileSync(path.join(folder, `${"ef".repeat(32)}.json.4242.1700000000000.tmp`), "{half");
      // A temporary of replace-file.ts's naming (a write that died before its rename).
      writeFileSync(path.join(folder, `.${"ab".repeat(32)}.json.4242.0123456789ab.tmp`), "{half");
      const embeddings = path.join(root, "embeddings");
      mkdirSync(embeddings);
      writeFileSync(path.join(embeddings, "embeddings-use-lite-512-v1.bin"), Buffer.alloc(4));
      writeFileSync(path.join(embeddings, "vectors.bin"), "mine");
      const env = baseEnv({ AGENT_TOOLS_CATALOG_CACHE: "on", AGENT_TOOLS_CACHE_DIR: root });

      const shown = JSON.parse((await runCli(["cache"], env)).stdout) as { entries: number };
      assert.equal(shown.entries, 1, "only the runtime's catalog counts as an entry");
      const run = await runCli(["cache", "clear"], env);
      assert.equal(run.code, 0, run.stderr);
      const report = JSON.parse(run.stdout) as { cleared: number; leftAlone?: string[]; note?: string; embeddings: { cleared: number } };
      assert.equal(report.cleared, 1);
      assert.deepEqual(report.leftAlone, ["notes", "products.json", "readme.tmp"]);
      assert.match(report.note ?? "", new RegExp(`^left alone in ${folder}: what this runtime did not write`));
      assert.deepEqual(readdirSync(folder).sort(), ["notes", "products.json", "readme.tmp"]);
      assert.equal(readFileSync(path.join(folder, "products.json"), "utf8"), '{"mine":1}');
      assert.equal(report.embeddings.cleared, 1);
      assert.deepEqual(readdirSync(embeddings), ["vectors.bin"]);

      // Nothing of the runtime's left: the answer has no leftAlone when the folder held only its own.
      rmSync(folder, { recursive: true });
      await createFileCatalogStore(folder).set(key, { prefix: "x", listedAt: 1, tools: [] });
      const again = JSON.parse((await runCli(["cache", "clear"], env)).stdout) as Record<string, unknown>;
      assert.equal(again.cleared, 1);
      assert.equal("leftAlone" in again, false, JSON.stringify(again));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("catalog cache keys and places", () => {
  const manifest = (args: string[]) => manifestFromEntry("/p/agent-tools.config.json", "svc", { command: "node", args, env: { TOKEN: "${SVC_TOKEN}" } });

  test("same config, same key; a changed option or variable value, another key; an unrelated variable, none", () => {
    const key = catalogKey(manifest(["a.js"]), { SVC_TOKEN: "one" }, "1.0.0");
    assert.match(key, /^[0-9a-f]{64}$/);
    assert.equal(catalogKey(manifest(["a.js"]), { SVC_TOKEN: "one", OTHER: "x" }, "1.0.0"), key);
    assert.notEqual(catalogKey(manifest(["b.js"]), { SVC_TOKEN: "one" }, "1.0.0"), key);
    assert.notEqual(catalogKey(manifest(["a.js"]), { SVC_TOKEN: "two" }, "1.0.0"), key);
    assert.notEqual(catalogKey(manifest(["a.js"]), { SVC_TOKEN: "one" }, "1.0.1"), key);
  });

  test("the cache folder follows the platform and the environment, and can be turned off", () => {
    assert.equal(cacheRoot({ HOME: "/home/u" }, "linux"), "/home/u/.cache/agent-tools-runtime");
    assert.equal(cacheRoot({ HOME: "/home/u", XDG_CACHE_HOME: "/xdg" }, "linux"), "/xdg/agent-tools-runtime");
    assert.equal(cacheRoot({ HOME: "/home/u", XDG_CACHE_HOME: "relative" }, "linux"), "/home/u/.cache/agent-tools-runtime");
    assert.equal(cacheRoot({ HOME: "/Users/u" }, "darwin"), "/Users/u/Library/Caches/agent-tools-runtime");
    assert.equal(cacheRoot({ LOCALAPPDATA: "C:\\Users\\u\\AppData\\Local" }, "win32"), path.join("C:\\Users\\u\\AppData\\Local", "agent-tools-runtime", "Cache"));
    assert.equal(cacheRoot({}, "linux"), undefined, "no home named: no cache");
    assert.equal(catalogCacheDir({ AGENT_TOOLS_CACHE_DIR: "/tmp/c" }, "linux"), "/tmp/c/catalogs");
    assert.equal(catalogCacheDir({ HOME: "/home/u", AGENT_TOOLS_CATALOG_CACHE: "off" }, "linux"), undefined);
  });

  test("the file store treats a damaged entry as a miss and refuses keys that are not digests", async () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), "agent-tools-store-"));
    try {
      const store = createFileCatalogStore(folder);
      const key = "ab".repeat(32);
      await store.set(key, { prefix: "x", listedAt: 1, tools: [{ name: "t", inputSchema: { type: "object" } }] });
      assert.equal((await store.get(key))?.tools[0]?.name, "t");
      writeFileSync(path.join(folder, `${key}.json`), "{not json");
      assert.equal(await store.get(key), undefined);
      await assert.rejects(store.set("../escape", { prefix: "x", listedAt: 1, tools: [] }), /hex digests/);
      assert.equal(await store.clear(), 1);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  test("keys are SHA-256 digests made without node:crypto, equal to node:crypto's, so catalogs stored before still match", () => {
    const texts = ["", "abc", SECRET, "ünïcødé ✓ 🚀", "x".repeat(1000), JSON.stringify({ runtimeVersion: "0.1.0", raw: { url: "${API_URL}" } })];
    for (const text of texts) assert.equal(sha256Hex(text), createHash("sha256").update(text).digest("hex"), `digest of ${JSON.stringify(text.slice(0, 20))}`);
    const bytes = Buffer.from([0, 255, 128, 7]);
    assert.equal(sha256Hex(bytes), createHash("sha256").update(bytes).digest("hex"), "digest of bytes");
    // A key made by the runtime before (node:crypto, commit 4c7937c) for this manifest and value.
    const manifest = manifestFromEntry("/p/agent-tools.config.json", "keyed", { command: "node", args: ["server.mjs"], env: { API_KEY: "${BENCH_SECRET}" } });
    const key = catalogKey(manifest, { BENCH_SECRET: SECRET }, "9.9.9");
    assert.equal(key, "5cd9fc920693eb3d651d95c074d94fdfff29edce2e801f893dbee8242ea562d3", "the same key as before");
    assert.notEqual(key, catalogKey(manifest, { BENCH_SECRET: `${SECRET}x` }, "9.9.9"), "another secret value, another key");
  });
});
