import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import type { Adapter, Logger, ToolDescriptor } from "../src/adapters/types.js";
import type { LoadedPlugin } from "../src/plugins/loader.js";
import { createCatalog } from "../src/runtime/catalog.js";
import { createFileCatalogStore } from "../src/runtime/catalog-cache/store.js";
import { startCatalogUpkeep } from "../src/runtime/catalog-upkeep.js";
import { sha256Hex } from "../src/sha256.js";
import { createBm25fIndex } from "../src/runtime/search/bm25f.js";

/**
 * What the runtime holds the sentence model's background load behind (runtime.ts
 * startupListingsOver): the upkeep's `begun` (its start-up listings are queued, after the grace)
 * and the catalog's `listed()` (no listing under way). A real file store in a folder of the
 * test's own; adapters whose listing the test ends.
 */

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

function plugin(prefix: string, listTools: () => Promise<{ tools: ToolDescriptor[] }>): LoadedPlugin {
  const adapter = { listTools, call: async () => ({}) } as unknown as Adapter;
  return { manifest: { prefix, name: prefix } as LoadedPlugin["manifest"], adapter, skills: [], missing: {} as LoadedPlugin["missing"], configured: true };
}

/**
 * Whether `promise` has settled within `ms`. A "not yet" check waits a short while (the state it
 * checks holds until the test acts); a "settles" check gets a generous bound, far below the
 * 60 s grace it must not wait for, because the warm catalog's `ready` reads the store from disk
 * and a loaded CI machine took longer than 20 ms for that.
 */
async function settled(promise: Promise<unknown>, ms = 20): Promise<boolean> {
  let done = false;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise.then(() => (done = true), () => (done = true)),
    new Promise((resolve) => (timer = setTimeout(resolve, ms))),
  ]);
  clearTimeout(timer);
  return done;
}
const SETTLES_MS = 10_000;

test("cold cache: begun settles after the grace, listed() once every start-up listing is over; warm: both at once", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-startup-listing-"));
  // The upkeep's timer is unref'd (it must not keep a runtime alive): this test's process needs a ref.
  const alive = setInterval(() => {}, 1000);
  try {
    const store = createFileCatalogStore(dir);
    const releases: (() => void)[] = [];
    const slow = (name: string) =>
      plugin(name, () => new Promise((resolve) => releases.push(() => resolve({ tools: [{ name: `${name}_tool`, description: "x", inputSchema: { type: "object" } }] }))));
    const fleet = [slow("one"), slow("two")];
    const keyOf = (p: LoadedPlugin) => sha256Hex(p.manifest.prefix);
    const catalog = createCatalog(createBm25fIndex(), { timeoutMs: 10_000, plugins: fleet, store: { store, keyOf }, log: silent });
    const upkeep = startCatalogUpkeep(catalog, fleet, silent, { graceMs: 200 });
    assert.equal(await settled(upkeep.begun), false, "not begun within the grace");
    await upkeep.begun;
    await new Promise((resolve) => setImmediate(resolve));
    const listed = catalog.listed();
    assert.equal(await settled(listed), false, "listings under way");
    releases.shift()!();
    assert.equal(await settled(listed), false, "one listing still under way");
    releases.shift()!();
    await listed;
    await catalog.settle();
    upkeep.stop();

    // Every catalog stored: nothing is due, so nothing holds anyone.
    const warm = createCatalog(createBm25fIndex(), { timeoutMs: 10_000, plugins: fleet, store: { store, keyOf }, log: silent });
    const warmUpkeep = startCatalogUpkeep(warm, fleet, silent, { graceMs: 60_000 });
    assert.equal(await settled(warmUpkeep.begun, SETTLES_MS), true, "begun long before the 60 s grace when nothing is due");
    assert.equal(await settled(warm.listed(), SETTLES_MS), true);
    assert.equal(releases.length, 0, "no listing was started");
    warmUpkeep.stop();

    // Stopped before its grace ran out: begun settles too (nothing will be listed).
    const stopped = startCatalogUpkeep(createCatalog(createBm25fIndex(), { timeoutMs: 10_000, plugins: [slow("three")], store: { store, keyOf }, log: silent }), [slow("three")], silent, { graceMs: 60_000 });
    stopped.stop();
    assert.equal(await settled(stopped.begun, SETTLES_MS), true);
  } finally {
    clearInterval(alive);
    rmSync(dir, { recursive: true, force: true });
  }
});
