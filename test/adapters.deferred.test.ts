import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { silentLogger } from "../src/log.js";
import { createFileCatalogStore } from "../src/runtime/catalog-cache/store.js";
import { createRuntime, type Runtime } from "../src/runtime/runtime.js";
import { until } from "./wait.js";

/**
 * Adapters built on first use (src/plugins/deferred-adapter.ts): with its catalog in the cache, a
 * plugin's adapter is not built at start (nor its module imported: a module adapter is imported
 * and constructed in one step, loader.ts); search and help answer without it, and the first use
 * that needs it builds it. The adapter writes a file each time it is constructed, so the test sees
 * exactly when that happens (in one process the module itself is imported once and cached).
 */

let dir: string;
let pluginDir: string;
let cacheDir: string;
let marks: string;

const builds = (): number => (existsSync(marks) ? readdirSync(marks).length : 0);

function writePlugin(): void {
  mkdirSync(pluginDir, { recursive: true });
  writeFileSync(path.join(pluginDir, "plugin.json"), JSON.stringify({ name: "lazy", prefix: "lazy", description: "A module adapter that records each time it is built", adapter: "./adapter.mjs" }));
  writeFileSync(
    path.join(pluginDir, "adapter.mjs"),
    `import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
const marks = ${JSON.stringify(marks)};
const broken = ${JSON.stringify(path.join(dir, "broken"))};
const hang = ${JSON.stringify(path.join(dir, "hang"))};
export default class LazyAdapter {
  constructor() {
    if (existsSync(broken)) throw new Error("the weather service is misconfigured");
    // A constructor may return a promise; this one never settles.
    if (existsSync(hang)) return new Promise(() => {});
    // One file per construction: the test counts them.
    mkdirSync(marks, { recursive: true });
    writeFileSync(path.join(marks, String(process.hrtime.bigint())), "");
  }
  async listTools() {
    return { tools: [{ name: "weather_report", description: "Report the weather for a city", inputSchema: { type: "object", properties: { city: { type: "string" } } }, annotations: { readOnlyHint: true } }] };
  }
  async call(name, args) {
    return { content: [{ type: "text", text: name + " for " + args.city }] };
  }
  async discoverContext() {
    return { units: "metric" };
  }
}
`,
  );
}

async function runtimeWithCache(env: NodeJS.ProcessEnv = {}): Promise<Runtime> {
  return createRuntime({ pluginDirs: [pluginDir], env, log: silentLogger, catalogCache: createFileCatalogStore(cacheDir) });
}

describe("adapters built on first use", () => {
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-deferred-"));
    pluginDir = path.join(dir, "agent-tools-plugin-lazy");
    cacheDir = path.join(dir, "catalogs");
    marks = path.join(dir, "builds");
    writePlugin();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("with the catalog cache on, the adapter waits for its first use: the background listing of a cold cache, or on a warm one the first discover or call, after search and help answered without it", async () => {
    const cold = await runtimeWithCache();
    assert.equal(builds(), 0, "nothing stored yet, and still not built while loading");
    // The background listing (a second after start) builds it and stores the catalog.
    await until(() => existsSync(cacheDir) && readdirSync(cacheDir).some((n) => n.endsWith(".json")), "the background listing to store the catalog").catch(() => undefined);
    await cold.close();
    assert.ok(readdirSync(cacheDir).some((n) => n.endsWith(".json")), "the catalog was stored");
    assert.equal(builds(), 1);

    const warm = await runtimeWithCache();
    try {
      const session = warm.createSession("deferred");
      const found = await warm.search(session, { query: "weather for a city" });
      assert.equal(found.isError, false, JSON.stringify(found.payload));
      assert.match(JSON.stringify(found.payload), /weather_report/);
      const help = warm.help("lazy", session);
      assert.match(JSON.stringify(help), /weather_report|lazy/);
      assert.equal(builds(), 1, "search and help answered from the stored catalog without building the adapter");

      // discover asks for the plugin's context, which only the module knows: that builds it.
      const discovered = await warm.discover(session, "lazy", {});
      assert.equal(discovered.isError, false, JSON.stringify(discovered.payload));
      assert.deepEqual((discovered.payload as { context?: unknown }).context, { units: "metric" });
      assert.equal(builds(), 2);

      const called = await warm.call(session, "lazy", { toolName: "weather_report", arguments: { city: "Oslo" } });
      assert.equal(called.isError, false, JSON.stringify(called.payload));
      assert.match(JSON.stringify(called.payload), /weather_report for Oslo/);
      assert.equal(builds(), 2, "built once");
      assert.equal(warm.plugins[0]!.adapter!.constructor.name, "LazyAdapter", "the plugin points at the built adapter from then on");
    } finally {
      await warm.close();
    }
  });

  test("without a catalog cache the adapter is built while loading, as before", async () => {
    const before = builds();
    const runtime = await createRuntime({ pluginDirs: [pluginDir], env: {}, log: silentLogger, catalogCache: false });
    try {
      assert.equal(builds(), before + 1);
      assert.equal(runtime.plugins[0]!.adapter!.constructor.name, "LazyAdapter");
    } finally {
      await runtime.close();
    }
  });

  test("a warm start's first call builds the adapter; a failing build is reported by the call and retried by the next", async () => {
    const warm = await runtimeWithCache();
    try {
      const before = builds();
      const session = warm.createSession("deferred-call");
      const called = await warm.call(session, "lazy", { toolName: "weather_report", arguments: { city: "Lima" } });
      assert.equal(called.isError, false, JSON.stringify(called.payload));
      assert.match(JSON.stringify(called.payload), /weather_report for Lima/);
      assert.equal(builds(), before + 1);
    } finally {
      await warm.close();
    }
    // Building fails on this host now: the call says why, and the next call tries again.
    const broken = await runtimeWithCache();
    try {
      const session = broken.createSession("deferred-broken");
      writeFileSync(path.join(dir, "broken"), "");
      const failed = await broken.call(session, "lazy", { toolName: "weather_report", arguments: { city: "Quito" } });
      assert.equal(failed.isError, true);
      assert.match(JSON.stringify(failed.payload), /could not be loaded from '\.\/adapter\.mjs': the weather service is misconfigured/);
      // The plugin's code is at fault, not the call: the hint says who fixes it.
      const error = (failed.payload as { error: { hint: string } }).error;
      assert.match(error.hint, /^Plugin 'lazy' is broken: its adapter module \(.*adapter\.mjs\) could not be built, so none of its tools can run\. No arguments or retry can fix this/);
      // Help says it is failing and why, and lists it under problems, until a build succeeds.
      const status = () => ((broken.help(undefined, session) as { plugins: { prefix: string; status: string }[] }).plugins.find((p) => p.prefix === "lazy")?.status);
      assert.match(status() ?? "", /^failing: its adapter could not be built: .*the weather service is misconfigured/);
      assert.deepEqual(broken.problems(session, "lazy").length, 1);
      assert.match(broken.problems(session)[0] ?? "", /^plugin 'lazy' cannot be used: .*the weather service is misconfigured/);
      rmSync(path.join(dir, "broken"));
      const again = await broken.call(session, "lazy", { toolName: "weather_report", arguments: { city: "Quito" } });
      assert.equal(again.isError, false, JSON.stringify(again.payload));
      assert.match(JSON.stringify(again.payload), /weather_report for Quito/);
      assert.equal(status(), "ready");
      assert.deepEqual(broken.problems(session), []);
    } finally {
      await broken.close();
    }
  });

  test("a first use whose build never settles fails past the import deadline, and the next use tries again", async () => {
    const warm = await runtimeWithCache({ AGENT_TOOLS_IMPORT_TIMEOUT_MS: "1500" });
    try {
      const session = warm.createSession("deferred-hang");
      writeFileSync(path.join(dir, "hang"), "");
      const failed = await warm.call(session, "lazy", { toolName: "weather_report", arguments: { city: "Bern" } });
      assert.equal(failed.isError, true);
      assert.match(JSON.stringify(failed.payload), /could not be loaded from '\.\/adapter\.mjs': export 'default' of \.\/adapter\.mjs returned a promise that did not settle within 1500 ms/);
      rmSync(path.join(dir, "hang"));
      const again = await warm.call(session, "lazy", { toolName: "weather_report", arguments: { city: "Bern" } });
      assert.equal(again.isError, false, JSON.stringify(again.payload));
    } finally {
      await warm.close();
    }
  });
});
