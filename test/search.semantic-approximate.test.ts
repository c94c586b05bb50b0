import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { DatasetTool } from "../src/cli/retrieval-data.js";
import { toolDocument } from "../src/runtime/catalog.js";
import { createBm25fIndex } from "../src/runtime/search/bm25f.js";
import { fileEmbeddingCache } from "../src/runtime/search/semantic/embedding-cache.js";
import { createHybridIndex } from "../src/runtime/search/semantic/hybrid.js";
import { pieceTableFile } from "../src/runtime/search/semantic/piece-vectors.js";
import type { SentenceModel } from "../src/runtime/search/semantic/sentence-model.js";
import { loadUseModel, USE_DIMENSIONS, USE_MODEL_ID } from "../src/runtime/search/semantic/use-model.js";
import type { SearchDocument } from "../src/runtime/search/types.js";
import { ROOT } from "./helpers.js";

/**
 * Approximate vectors distilled from the real sentence model (piece-vectors.ts): the piece table is
 * built once and kept on disk, and a large catalog is ranked with them at once while the model's
 * own vectors are computed and replace them (the progressive embedding of hybrid.ts). The model
 * runs in this thread here: these tests check vectors and ordering, not the event loop.
 */

const FLEET = JSON.parse(readFileSync(path.join(ROOT, "bench", "data", "mcp-fleet.tools.json"), "utf8")) as DatasetTool[];

function fleetDocuments(servers: string[]): Map<string, SearchDocument[]> {
  const groups = new Map<string, SearchDocument[]>();
  for (const tool of FLEET.filter((t) => servers.includes(t.server))) groups.set(tool.server, [...(groups.get(tool.server) ?? []), toolDocument(tool.server, tool.server, tool)]);
  return groups;
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

async function until(ready: () => boolean, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error("not ready in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

let dir: string;
let model: SentenceModel;
before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-pieces-"));
  const load = await loadUseModel({ pieceDir: path.join(dir, "pieces") });
  assert.ok("model" in load, `the optional model packages are installed by npm ci: ${"unavailable" in load ? load.unavailable : ""}`);
  model = load.model;
  assert.ok(model.approximate, "the USE model offers approximate vectors");
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe("approximate vectors from the model's word pieces", () => {
  it("are built once into the cache folder (over a file that is not a whole table), read back on the next load, and lie in the model's space", async () => {
    const texts = ["read a file from the disk", "send a message to a chat channel", "how far is the airport by car"];
    const file = pieceTableFile(path.join(dir, "pieces"), USE_MODEL_ID);
    // Left by an interrupted or older run: not trusted, built again (the table is built on first use).
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, "not a piece table");
    const approximate = await model.approximate!.embed(texts);
    const vocabulary = (JSON.parse(readFileSync(path.join(ROOT, "node_modules", "@energetic-ai", "model-embeddings-en", "dist", "vocab.json"), "utf8")) as unknown[]).length;
    assert.equal(statSync(file).size, 12 + vocabulary * USE_DIMENSIONS * 4, "a header and one vector per piece");
    for (const v of approximate) assert.ok(Math.abs(dot(v, v) - 1) < 1e-4, "unit length");
    // Each text's approximate vector is nearer the model's vector of the same text than of the others.
    const exact = await model.embed(texts);
    approximate.forEach((v, i) => {
      const own = dot(v, exact[i]!);
      exact.forEach((other, j) => j !== i && assert.ok(own > dot(v, other), `text ${i}: ${own.toFixed(3)} to its own, ${dot(v, other).toFixed(3)} to text ${j}`));
    });

    const written = statSync(file).mtimeMs;
    const again = await loadUseModel({ pieceDir: path.join(dir, "pieces") });
    assert.ok("model" in again);
    const reread = await again.model.approximate!.embed(texts);
    assert.equal(statSync(file).mtimeMs, written, "the table was read, not built again");
    reread.forEach((v, i) => assert.deepEqual(v, approximate[i]));
  });
});

describe("progressive embedding of a large catalog", () => {
  it("is off by default: a search bounded in time ranks by BM25F while the model embeds, and says so", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const gated: SentenceModel = { id: model.id, dimensions: model.dimensions, approximate: model.approximate!, embed: async (texts, o) => (o?.bulk && (await gate), model.embed(texts, o)) };
    const index = createHybridIndex({ lexical: createBm25fIndex(), loadModel: async () => ({ model: gated }), waitMs: 200 });
    const lexical = createBm25fIndex();
    for (const [plugin, list] of fleetDocuments(["memory", "filesystem", "google-maps", "slack"])) {
      index.setPluginDocuments(plugin, list);
      lexical.setPluginDocuments(plugin, list);
    }
    const query = "how far away is the airport by car";
    await index.prepare!(query);
    assert.ok(!index.searchable() && !index.ready());
    assert.deepEqual(index.search(query, { limit: 5 }).hits, lexical.search(query, { limit: 5 }).hits, "BM25F alone");
    assert.match(index.takeNotice!() ?? "", /still embedding the catalog; answers are ranked by BM25F alone/);
    release();
    await until(() => index.ready());
  });

  it("ranks with approximate vectors at once, says so once, then the model's own replace them and only those are cached", async () => {
    const cacheDir = path.join(dir, "embeddings");
    // The model's catalog batches wait for `release`: the test sees the approximate stage for sure.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const bulk: string[] = [];
    const gated: SentenceModel = {
      id: model.id,
      dimensions: model.dimensions,
      approximate: model.approximate!,
      embed: async (texts, options) => {
        if (options?.bulk) {
          await gate;
          bulk.push(...texts);
        }
        return model.embed(texts, options);
      },
    };
    const logged: string[] = [];
    const docs = fleetDocuments(["memory", "filesystem", "google-maps", "slack"]);
    const total = [...docs.values()].reduce((n, list) => n + list.length, 0);
    const index = createHybridIndex({
      lexical: createBm25fIndex(),
      loadModel: async () => ({ model: gated }),
      cache: (m) => fileEmbeddingCache(cacheDir, m.id, m.dimensions),
      // A bound, as the runtime sets one (long: the machine may be loaded); 10 texts count as large.
      waitMs: 600_000,
      approximateFrom: 10,
      log: (m) => logged.push(m),
    });
    for (const [plugin, list] of docs) index.setPluginDocuments(plugin, list);

    const query = "how far away is the airport by car";
    await index.prepare!(query);
    assert.ok(index.searchable() && !index.ready(), "searchable with approximate vectors, not yet embedded by the model");
    assert.equal(bulk.length, 0, "no catalog text went to the model yet");
    const early = index.search(query, { limit: 5 }).hits.map((h) => h.name);
    assert.ok(early.includes("maps_distance_matrix") || early.includes("maps_directions"), `ranked by meaning already: ${early.join(", ")}`);
    assert.match(index.takeNotice!() ?? "", /approximate vectors while its model embeds it/);
    await index.prepare!("read a file");
    assert.equal(index.takeNotice!(), undefined, "said once");
    assert.equal(existsSync(path.join(cacheDir, `embeddings-${model.id}.bin`)), false, "approximate vectors are not cached");

    release();
    await until(() => index.ready());
    assert.equal(bulk.length, total, "then every tool was embedded by the model");
    // The model's vectors replaced the approximate ones: the same ranking as an index that never had any.
    const exact = createHybridIndex({ lexical: createBm25fIndex(), loadModel: async () => ({ model }), approximateFrom: Number.POSITIVE_INFINITY });
    for (const [plugin, list] of docs) exact.setPluginDocuments(plugin, list);
    for (const q of [query, "read a file", "post a message to the team", "remember that Alice works at Acme"]) {
      await index.prepare!(q);
      await exact.prepare!(q);
      assert.deepEqual(index.search(q, { limit: 10 }).hits, exact.search(q, { limit: 10 }).hits, `same ranking for '${q}'`);
    }
    // And the cache holds the model's vectors: a restart embeds nothing of the catalog.
    const restartTexts: string[] = [];
    const counting: SentenceModel = { id: model.id, dimensions: model.dimensions, approximate: model.approximate!, embed: (texts, o) => (restartTexts.push(...texts), model.embed(texts, o)) };
    const restarted = createHybridIndex({ lexical: createBm25fIndex(), loadModel: async () => ({ model: counting }), cache: (m) => fileEmbeddingCache(cacheDir, m.id, m.dimensions), approximateFrom: 10 });
    for (const [plugin, list] of docs) restarted.setPluginDocuments(plugin, list);
    await restarted.prepare!(query);
    assert.deepEqual(restartTexts, [query], "only the query was embedded");
    assert.ok(restarted.ready());
    assert.equal(logged.length, 1, logged.join(" | "));
  });
});
