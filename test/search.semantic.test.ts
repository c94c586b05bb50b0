import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { DatasetTool } from "../src/cli/retrieval-data.js";
import { toolDocument } from "../src/runtime/catalog.js";
import { createBm25fIndex } from "../src/runtime/search/bm25f.js";
import { queryClauses } from "../src/runtime/search/clauses.js";
import { fileEmbeddingCache } from "../src/runtime/search/semantic/embedding-cache.js";
import { createHybridIndex } from "../src/runtime/search/semantic/hybrid.js";
import { loadSentenceModel, type SentenceModel } from "../src/runtime/search/semantic/sentence-model.js";
import { FAST_LANE_ENV, loadUseModel } from "../src/runtime/search/semantic/use-model.js";
import { embeddingText } from "../src/runtime/search/semantic/document-text.js";
import { useFastKernels, type TfjsKernelApi } from "../src/runtime/search/semantic/wasm-kernels.js";
import type { SearchDocument } from "../src/runtime/search/types.js";
import { callJson, connect, FIXTURES, ROOT, type Connected } from "./helpers.js";

/**
 * The hybrid engine with the real sentence model (the optional @energetic-ai packages, installed
 * by npm ci), its on-disk embedding cache, and the fallback to BM25F when the model is absent.
 */

const FLEET = JSON.parse(readFileSync(path.join(ROOT, "bench", "data", "mcp-fleet.tools.json"), "utf8")) as DatasetTool[];

function fleetDocuments(servers: string[]): Map<string, SearchDocument[]> {
  const groups = new Map<string, SearchDocument[]>();
  for (const tool of FLEET.filter((t) => servers.includes(t.server))) groups.set(tool.server, [...(groups.get(tool.server) ?? []), toolDocument(tool.server, tool.server, tool)]);
  return groups;
}

let model: SentenceModel;
before(async () => {
  const load = await loadSentenceModel({});
  assert.ok("model" in load, `the optional model packages are installed by npm ci: ${"unavailable" in load ? load.unavailable : ""}`);
  model = load.model;
});

/** Poll until `ready` holds (generous bound: the machine may be loaded). */
async function until(ready: () => boolean | Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error("not ready in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The real model, counting what it is asked to embed. */
function countingModel(): { model: SentenceModel; texts: string[] } {
  const texts: string[] = [];
  return { texts, model: { id: model.id, dimensions: model.dimensions, embed: (batch) => (texts.push(...batch), model.embed(batch)) } };
}

/** The longest the event loop stood still while `model` embedded a batch of 64 texts, and how long that took. */
async function stallDuringEmbedding(of: SentenceModel): Promise<{ longestMs: number; tookMs: number }> {
  const texts = Array.from({ length: 64 }, (_, i) => `tool number ${i} reads, writes and lists notes, tasks and files of a project`);
  await of.embed(["the first inference compiles the model's kernels"]);
  let last = performance.now();
  let longestMs = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    longestMs = Math.max(longestMs, now - last);
    last = now;
  }, 10);
  const started = performance.now();
  await of.embed(texts);
  const tookMs = performance.now() - started;
  // One more tick, so a stall that ended with the embedding is seen too.
  await new Promise((resolve) => setTimeout(resolve, 30));
  clearInterval(tick);
  return { longestMs, tookMs };
}

describe("the sentence model runs off the main thread (issue #15)", () => {
  // In the main thread, loading and running it stalled every HTTP session's calls for seconds.
  // The bound scales with the embedding's own duration, so a loaded machine does not fail it.
  it("the event loop keeps turning while a batch is embedded", async () => {
    const { longestMs, tookMs } = await stallDuringEmbedding(model);
    assert.ok(longestMs < Math.max(100, tookMs / 4), `the event loop stood still ${Math.round(longestMs)} ms during an embedding of ${Math.round(tookMs)} ms`);
  });

  it("(control) the same model in this thread stalls it for about the whole embedding", async () => {
    const load = await loadUseModel();
    assert.ok("model" in load);
    const { longestMs, tookMs } = await stallDuringEmbedding(load.model);
    assert.ok(longestMs >= Math.max(100, tookMs / 4), `in-thread: the event loop stood still ${Math.round(longestMs)} ms during ${Math.round(tookMs)} ms`);
  });

  it("catalog batches (bulk) are shared out between model threads and give the same vectors; a query waits behind one batch at most", async () => {
    const texts = Array.from({ length: 6 * 8 }, (_, i) => `tool ${i} reads, writes and lists the notes of project ${i % 7}`);
    const batches = Array.from({ length: 6 }, (_, b) => texts.slice(b * 8, (b + 1) * 8));
    const order: string[] = [];
    const bulk = batches.map((batch, b) => model.embed(batch, { bulk: true }).then((vectors) => (order.push(`batch ${b}`), vectors)));
    const query = model.embed(["find the notes of a project"]).then((vectors) => (order.push("query"), vectors));
    const shared = (await Promise.all(bulk)).flat();
    await query;
    // The first batch went to a thread at once and the query queued behind it, not behind the five
    // that waited (a helper thread still loading could at most finish one of those first).
    assert.ok(order.indexOf("query") <= 2, `answered in the order ${order.join(", ")}`);
    const alone = await model.embed(texts);
    shared.forEach((vector, i) => assert.ok(vector.every((x, d) => Math.abs(x - alone[i]![d]!) < 1e-5), `text ${i} embeds the same in bulk`));
  });
});

describe("the model's fast lane (AGENT_TOOLS_SEMANTIC_FAST_LANE)", () => {
  it("the fast SplitV (wasm-kernels.ts) gives the same vectors, bit for bit, as the backend's own, which AGENT_TOOLS_SEMANTIC_FAST_LANE=off keeps", async () => {
    const tfjsPackage = "@energetic-ai/core";
    const tf = (await import(tfjsPackage)) as TfjsKernelApi;
    // Real catalog texts of unlike lengths (the model pads each batch to its longest), in batches as the catalog is embedded.
    const texts = [...fleetDocuments(["github", "filesystem", "memory"]).values()].flat().map(embeddingText);
    assert.ok(texts.length >= 40, "enough texts for more than one batch");
    const embedAll = async (with_: SentenceModel) => (await Promise.all([texts.slice(0, 32), texts.slice(32)].map((batch) => with_.embed(batch)))).flat();

    const plain = await loadUseModel({ env: { [FAST_LANE_ENV]: "off" } });
    assert.ok("model" in plain);
    const original = tf.getKernel("SplitV", "wasm");
    const before = await embedAll(plain.model);
    const fast = await loadUseModel({ env: {} });
    assert.ok("model" in fast);
    assert.notEqual(tf.getKernel("SplitV", "wasm"), original, "the fast kernel is in place");
    const after = await embedAll(fast.model);
    assert.equal(after.length, texts.length);
    after.forEach((vector, i) => assert.deepEqual(vector, before[i], `text ${i} (${texts[i]}) embeds the same with either kernel`));
    useFastKernels(tf, false);
    assert.equal(tf.getKernel("SplitV", "wasm"), original, "and the backend's own can be put back");
  });
});

describe("hybrid search with the sentence model", () => {
  let cacheDir: string;
  before(() => (cacheDir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-embeddings-"))));
  after(() => rmSync(cacheDir, { recursive: true, force: true }));

  it("finds tools by meaning where no query word is in them, and BM25F alone does not", async () => {
    const index = createHybridIndex({ lexical: createBm25fIndex(), loadModel: async () => ({ model }) });
    const lexical = createBm25fIndex();
    for (const [plugin, docs] of fleetDocuments(["memory", "filesystem", "google-maps", "slack"])) {
      index.setPluginDocuments(plugin, docs);
      lexical.setPluginDocuments(plugin, docs);
    }
    const query = "how far away is the airport by car";
    await index.prepare!(query);
    const top = index.search(query, { limit: 5 }).hits.map((h) => h.name);
    assert.ok(top.includes("maps_distance_matrix") || top.includes("maps_directions"), `a route tool is in the top 5: ${top.join(", ")}`);
    assert.equal(index.takeNotice!(), undefined, "no notice when the model is there");
  });

  it("a task needing two servers gets both in the top five", async () => {
    const index = createHybridIndex({ lexical: createBm25fIndex(), loadModel: async () => ({ model }) });
    for (const [plugin, docs] of fleetDocuments(["memory", "filesystem", "github", "slack", "puppeteer"])) index.setPluginDocuments(plugin, docs);
    const query = "Open the company status page in a browser, take a picture of it and post it to the #incidents channel";
    await index.prepare!(query);
    const hits = index.search(query, { limit: 5 }).hits;
    const servers = new Set(hits.map((h) => h.plugin));
    assert.ok(servers.has("puppeteer") && servers.has("slack"), `puppeteer and slack in the top 5: ${hits.map((h) => `${h.plugin}:${h.name}`).join(", ")}`);
  });

  it("keeps catalog embeddings on disk: a new index (a restart) embeds only the query", async () => {
    const docs = fleetDocuments(["memory", "filesystem"]);
    const first = countingModel();
    const a = createHybridIndex({ lexical: createBm25fIndex(), loadModel: async () => ({ model: first.model }), cache: (m) => fileEmbeddingCache(cacheDir, m.id, m.dimensions) });
    for (const [plugin, list] of docs) a.setPluginDocuments(plugin, list);
    await a.prepare!("remember a fact");
    assert.equal(first.texts.length, 9 + 14 + 1, "every tool once, and the query");

    const second = countingModel();
    const b = createHybridIndex({ lexical: createBm25fIndex(), loadModel: async () => ({ model: second.model }), cache: (m) => fileEmbeddingCache(cacheDir, m.id, m.dimensions) });
    for (const [plugin, list] of docs) b.setPluginDocuments(plugin, list);
    await b.prepare!("remember a fact");
    assert.deepEqual(second.texts, ["remember a fact"], "the catalog came from the cache file");
    assert.deepEqual(b.search("remember a fact", { limit: 3 }).hits, a.search("remember a fact", { limit: 3 }).hits, "and ranks the same");
  });

  it("a text several tools share (the same server configured twice) is embedded once, and each copy is ranked with its vector", async () => {
    const memory = fleetDocuments(["memory"]).get("memory")!;
    const counting = countingModel();
    const index = createHybridIndex({ lexical: createBm25fIndex(), loadModel: async () => ({ model: counting.model }) });
    index.setPluginDocuments("memory", memory);
    index.setPluginDocuments("memory-backup", memory.map((doc) => ({ ...doc, plugin: "memory-backup" })));
    const query = "add facts about a person to the knowledge graph";
    await index.prepare!(query);
    const catalogTexts = counting.texts.filter((text) => text !== query);
    assert.equal(catalogTexts.length, memory.length, `each of the ${memory.length} tools' texts once, not once a plugin: ${catalogTexts.length}`);
    assert.equal(new Set(catalogTexts).size, catalogTexts.length);
    assert.ok(index.ready(), "both copies have the model's vectors");
    // Each copy, searched alone, ranks its tools as the other does: the shared vectors reached both.
    const ranked = (plugin: string) => index.search(query, { plugin, limit: 5 }).hits.map((h) => [h.name, h.score]);
    assert.equal(ranked("memory").length, 5);
    assert.deepEqual(ranked("memory-backup"), ranked("memory"));
  });

  it("a search waits at most waitMs for a model still loading, answers from BM25F meanwhile, and says so once", async () => {
    let release!: () => void;
    const loaded = new Promise<void>((resolve) => (release = resolve));
    const logged: string[] = [];
    const index = createHybridIndex({ lexical: createBm25fIndex(), loadModel: () => loaded.then(() => ({ model })), waitMs: 50, log: (m) => logged.push(m) });
    for (const [plugin, docs] of fleetDocuments(["memory", "filesystem", "google-maps", "slack"])) index.setPluginDocuments(plugin, docs);
    const query = "how far away is the airport by car";
    const started = performance.now();
    await index.prepare!(query);
    // Generous: the bound is 50 ms; only a wait for the (never-released) model would take forever.
    assert.ok(performance.now() - started < 5000, "prepare returned without the model");
    const lexicalOnly = index.search("create entities in the knowledge graph", { limit: 1 }).hits;
    assert.equal(lexicalOnly[0]?.name, "create_entities", "BM25F answers meanwhile");
    assert.match(index.takeNotice!() ?? "", /still loading its model; answers are ranked by BM25F alone until it is ready/);
    await index.prepare!("read a file");
    assert.equal(index.takeNotice!(), undefined, "said once");

    release();
    // A test that checks semantic ranking waits for readiness explicitly.
    await until(() => index.ready());
    await index.prepare!(query);
    await until(async () => (await index.prepare!(query), index.search(query, { limit: 5 }).hits.some((h) => h.name === "maps_distance_matrix" || h.name === "maps_directions")));
    assert.equal(index.takeNotice!(), undefined);
    assert.equal(logged.length, 1, logged.join(" | "));
  });

  it("a cache file that is not ours is rebuilt, with a warning, not trusted", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-embeddings-bad-"));
    try {
      writeFileSync(path.join(dir, `embeddings-${model.id}.bin`), "not a cache");
      const warnings: string[] = [];
      const cache = fileEmbeddingCache(dir, model.id, model.dimensions, (m) => warnings.push(m));
      assert.equal(cache.get("00"), undefined);
      assert.match(warnings[0] ?? "", /not in the expected format; it will be rebuilt/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("while the model loads (modelWaitMs)", () => {
  it("a search does not wait for the model: BM25F answers at once, said once, and the next search after the load is fused", async () => {
    let release!: () => void;
    const loaded = new Promise<void>((resolve) => (release = resolve));
    const counted = countingModel();
    const index = createHybridIndex({ lexical: createBm25fIndex(), loadModel: async () => (await loaded, { model: counted.model }), modelWaitMs: 0 });
    const lexical = createBm25fIndex();
    for (const [plugin, docs] of fleetDocuments(["memory", "filesystem", "google-maps", "slack"])) {
      index.setPluginDocuments(plugin, docs);
      lexical.setPluginDocuments(plugin, docs);
    }
    const query = "how far away is the airport by car";
    await index.prepare!(query);
    assert.deepEqual(index.search(query, { limit: 5 }).hits, lexical.search(query, { limit: 5 }).hits, "ranked by BM25F alone while the model loads");
    assert.match(index.takeNotice!() ?? "", /loading its model; answers are ranked by BM25F alone/);
    assert.equal(counted.texts.length, 0, "nothing embedded before the model is in");
    release();
    // The model loads (and the catalog is embedded) in the background after that first answer.
    for (let waited = 0; !index.ready() && waited < 120_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(index.ready(), "the model loaded and the catalog was embedded in the background");
    await index.prepare!(query);
    const top = index.search(query, { limit: 5 }).hits.map((h) => h.name);
    assert.ok(top.includes("maps_distance_matrix") || top.includes("maps_directions"), `fused once the model is in: ${top.join(", ")}`);
    assert.equal(index.takeNotice!(), undefined, "the notice was given once");
  });
});

describe("the model's background load after loadAfter (the runtime: its start-up listings)", () => {
  it("does not start before the gate settles, starts once it does, and a failed gate does not keep it out", async () => {
    for (const outcome of ["resolve", "reject"] as const) {
      let open!: () => void;
      let fail!: (error: Error) => void;
      const gate = new Promise<void>((resolve, reject) => ((open = resolve), (fail = reject)));
      let loads = 0;
      const counted = countingModel();
      const index = createHybridIndex({ lexical: createBm25fIndex(), loadModel: async () => (loads++, { model: counted.model }), modelWaitMs: 0, loadAfter: () => gate });
      const lexical = createBm25fIndex();
      for (const [plugin, docs] of fleetDocuments(["memory", "filesystem"])) {
        index.setPluginDocuments(plugin, docs);
        lexical.setPluginDocuments(plugin, docs);
      }
      await index.prepare!("read a file");
      assert.match(index.takeNotice!() ?? "", /loading its model; answers are ranked by BM25F alone/);
      // Well past the 100 ms after which the load would otherwise start.
      await new Promise((resolve) => setTimeout(resolve, 400));
      assert.equal(loads, 0, "the model waits for the gate");
      const names = (hits: { name: string }[]) => hits.map((h) => h.name);
      assert.deepEqual(names(index.search("read a file", { limit: 5 }).hits), names(lexical.search("read a file", { limit: 5 }).hits), "BM25F ranks meanwhile");
      if (outcome === "resolve") open();
      else fail(new Error("the gate failed"));
      await until(() => index.ready());
      assert.equal(loads, 1, `loaded once the gate ${outcome === "resolve" ? "opened" : "failed"}`);
      assert.ok(counted.texts.length > 0, "and the catalog was embedded");
    }
  });
});

describe("without the model", () => {
  it("searches with BM25F (clause-aware) and says so once", async () => {
    const logged: string[] = [];
    const index = createHybridIndex({ lexical: createBm25fIndex(), loadModel: async () => ({ unavailable: "test: no model" }), log: (m) => logged.push(m) });
    for (const [plugin, docs] of fleetDocuments(["memory", "filesystem"])) index.setPluginDocuments(plugin, docs);
    for (const query of ["create entities in the knowledge graph", "read a file", "move a file"]) await index.prepare!(query);
    assert.equal(index.search("create entities in the knowledge graph", { limit: 1 }).hits[0]?.name, "create_entities");
    assert.equal(logged.length, 1, `one log line: ${logged.join(" | ")}`);
    assert.match(logged[0]!, /semantic search is off \(test: no model\); ranking with BM25F alone/);
    assert.match(index.takeNotice!() ?? "", /semantic search is off/);
    assert.equal(index.takeNotice!(), undefined, "the notice is given once");
  });

  it("cuts a multi-step task into clauses", () => {
    assert.deepEqual(queryClauses("Find the cheapest flight and add it to my calendar"), ["Find the cheapest flight", "add it to my calendar"]);
    assert.deepEqual(queryClauses("Get the SLA of the service. Then back up /home/data. Finally, update shipment 7."), ["Get the SLA of the service.", "back up /home/data.", "update shipment 7."]);
    assert.deepEqual(queryClauses("list issues"), ["list issues"]);
    assert.deepEqual(queryClauses("Find the director of the movie as well as the opening hours of the cinema"), ["Find the director of the movie", "the opening hours of the cinema"]);
  });

  // Waiting for the model (the test default without a catalog cache) and not waiting (the default
  // with one: the model would load in the background): either way "off" is all that is said.
  for (const [label, wait] of [["waiting for the model", {}], ["not waiting for the model", { AGENT_TOOLS_SEMANTIC_MODEL_WAIT_MS: "0" }]] as const)
    describe(`through the MCP server with AGENT_TOOLS_SEMANTIC=off, ${label}`, () => {
      let server: Connected;
      before(async () => {
        server = await connect(path.join(FIXTURES, "plugins"), { AGENT_TOOLS_SEMANTIC: "off", ...wait });
      });
      after(async () => {
        await server.close();
      });

      it("agent_tools_search answers, and the first answer only carries the notice", async () => {
        const first = await callJson(server.client, "agent_tools_search", { query: "add a note" });
        assert.equal(first.isError, false, JSON.stringify(first.payload));
        assert.ok((first.payload.hits as unknown[]).length > 0, "hits from BM25F");
        assert.match(String(first.payload.notice), /semantic search is off \(AGENT_TOOLS_SEMANTIC=off\)/);
        assert.doesNotMatch(String(first.payload.notice), /loading/, "no model load is announced");
        const second = await callJson(server.client, "agent_tools_search", { query: "list notes" });
        assert.ok((second.payload.hits as unknown[]).length > 0);
        assert.equal(second.payload.notice, undefined, "said once");
        assert.equal(server.stderr().match(/semantic search is off/g)?.length, 1, `logged once:\n${server.stderr()}`);
        assert.doesNotMatch(server.stderr(), /loading its model/, "nothing announces a model load");
      });
    });
});
