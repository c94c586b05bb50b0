import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createBm25fIndex } from "../src/runtime/search/bm25f.js";
import { createDotKernel } from "../src/runtime/search/semantic/dot-kernel.js";
import { best, createHybridIndex, topAndFloor } from "../src/runtime/search/semantic/hybrid.js";
import type { SentenceModel } from "../src/runtime/search/semantic/sentence-model.js";
import type { SearchDocument } from "../src/runtime/search/types.js";

/**
 * The pieces of the hybrid engine's ranking that are there for speed (issue #19): the SIMD dot
 * kernel against its JavaScript twin, the partial selections against a full sort, BM25F's scores by
 * position against its hits, and a search prepared with its scope against one that is not.
 * Exact arithmetic checks on seeded data; the real model is covered by search.semantic.
 */

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

describe("dot kernel", () => {
  it("the WebAssembly SIMD kernel gives the JavaScript one's dot products, for any row range", () => {
    const random = seeded(1);
    const dims = 512;
    const rows = Float32Array.from({ length: 300 * dims }, () => random() - 0.5);
    const query = Float32Array.from({ length: dims }, () => random() - 0.5);
    const simd = createDotKernel(dims);
    const js = createDotKernel(dims, "js");
    assert.equal(simd.kind, "simd", "Node 20 runs WebAssembly SIMD");
    assert.equal(js.kind, "js");
    simd.load(rows, dims);
    js.load(rows, dims);
    for (const [from, count] of [[0, 300], [17, 50], [299, 1], [40, 0]] as const) {
      const a = new Float32Array(count);
      const b = new Float32Array(count);
      simd.dots(query, from, count, a);
      js.dots(query, from, count, b);
      for (let i = 0; i < count; i++) assert.ok(Math.abs(a[i]! - b[i]!) < 1e-5, `row ${from + i}: ${a[i]} vs ${b[i]}`);
    }
    // Reloading with more rows grows its memory.
    const more = Float32Array.from({ length: 5000 * dims }, () => random() - 0.5);
    simd.load(more, dims);
    js.load(more, dims);
    const a = new Float32Array(5000);
    const b = new Float32Array(5000);
    simd.dots(query, 0, 5000, a);
    js.dots(query, 0, 5000, b);
    assert.ok(a.every((v, i) => Math.abs(v - b[i]!) < 1e-5));
  });

  it("says which rows were asked for when they are out of range", () => {
    const kernel = createDotKernel(8);
    kernel.load(new Float32Array(16), 8);
    assert.throws(() => kernel.dots(new Float32Array(8), 1, 2, new Float32Array(2)), /rows 1\.\.3 of 2/);
    assert.throws(() => kernel.dots(new Float32Array(4), 0, 1, new Float32Array(1)), /query of 4 for 8 dimensions/);
  });

  it("falls back to JavaScript when the size is not a multiple of eight", () => {
    assert.equal(createDotKernel(12).kind, "js");
  });
});

describe("partial selection", () => {
  it("topAndFloor gives the largest value and the one floorRank below it, as a full sort does", () => {
    const random = seeded(2);
    for (const n of [0, 1, 10, 51, 52, 1000]) {
      const values = Float32Array.from({ length: n }, () => Math.round(random() * 50) / 50);
      const sorted = values.slice().sort();
      const expected = n === 0 ? { top: 0, floor: 0 } : { top: sorted[n - 1]!, floor: sorted[Math.max(0, n - 1 - 50)]! };
      assert.deepEqual(topAndFloor(values, 50), expected, `n = ${n}`);
    }
  });

  it("best keeps the k highest scores, best first, equal scores in candidate order (as a stable sort does)", () => {
    const random = seeded(3);
    const scores = Float64Array.from({ length: 2000 }, () => Math.round(random() * 20));
    const candidates = [...scores.keys()].filter((i) => scores[i]! > 0);
    const stable = [...candidates].sort((a, b) => scores[b]! - scores[a]!);
    for (const k of [1, 10, 30, 400, candidates.length]) assert.deepEqual(best(candidates, scores, k), stable.slice(0, k), `k = ${k}`);
  });
});

function doc(plugin: string, name: string, description: string): SearchDocument {
  return { plugin, kind: "tool", name, fields: { name: name.replace(/_/g, " "), description } };
}

const CATALOG: Record<string, SearchDocument[]> = {
  notes: [doc("notes", "create_note", "write a new note"), doc("notes", "search_notes", "find notes by words"), doc("notes", "delete_note", "remove a note")],
  tracker: [doc("tracker", "create_issue", "open an issue in the tracker"), doc("tracker", "list_issues", "issues of a project, newest first"), doc("tracker", "close_issue", "close a finished issue")],
  files: [doc("files", "read_file", "read a file's text"), doc("files", "write_file", "write text into a file"), doc("files", "search_files", "find files by name")],
};

describe("BM25F by position", () => {
  it("scoreRows gives search's scores, keyed by each document's position in its plugin", () => {
    const index = createBm25fIndex();
    for (const [plugin, docs] of Object.entries(CATALOG)) index.setPluginDocuments(plugin, docs);
    for (const query of ["create a note", "find files", "issue", "nothing like this"]) {
      const fromRows = new Map<string, number>();
      for (const { plugin, rows, scores } of index.scoreRows(query)) rows.forEach((row, i) => fromRows.set(`${plugin}/${CATALOG[plugin]![row]!.name}`, scores[i]!));
      const fromSearch = new Map(index.search(query).hits.map((h) => [`${h.plugin}/${h.name}`, h.score]));
      assert.deepEqual(fromRows, fromSearch, query);
    }
    assert.deepEqual(index.scoreRows("note", { plugin: "files" }), []);
  });
});

/** A stand-in model that knows one meaning: texts matching `means` share one vector, every other text another, orthogonal one. */
function oneMeaningModel(id: string, means: RegExp): SentenceModel {
  const meant = new Float32Array(16);
  meant[0] = 1;
  const other = new Float32Array(16);
  other[1] = 1;
  return { id, dimensions: 16, embed: async (texts) => texts.map((text) => (means.test(text) ? meant : other)) };
}

describe("hybrid ranking", () => {
  /** A deterministic stand-in model (the real one is search.semantic's): one vector per distinct word set. */
  const model: SentenceModel = {
    id: "test",
    dimensions: 16,
    async embed(texts) {
      return texts.map((text) => {
        const v = new Float32Array(16);
        for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) v[[...word].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 16, 7)]! += 1;
        const norm = Math.hypot(...v) || 1;
        return v.map((x) => x / norm);
      });
    },
  };

  it("a search prepared with its scope ranks as one that is not, across plugins and within one", async () => {
    const make = () => {
      const index = createHybridIndex({ lexical: createBm25fIndex(), loadModel: async () => ({ model }) });
      for (const [plugin, docs] of Object.entries(CATALOG)) index.setPluginDocuments(plugin, docs);
      return index;
    };
    const scoped = make();
    const plain = make();
    for (const [query, plugin] of [["write a note then open an issue", undefined], ["find things", undefined], ["search", "files"], ["close it", "tracker"]] as const) {
      const opts = plugin ? { plugin } : {};
      await scoped.prepare!(query, opts);
      await plain.prepare!(query);
      const a = scoped.search(query, { ...opts, limit: 5 });
      const b = plain.search(query, { ...opts, limit: 5 });
      assert.deepEqual(a, b, query);
      assert.ok(a.hits.length > 0, `${query} finds something`);
      if (plugin) assert.ok(a.hits.every((h) => h.plugin === plugin));
    }
    // The catalog changes after prepare: the search ranks the new catalog, not the prepared one.
    await scoped.prepare!("remove a note", {});
    scoped.setPluginDocuments("notes", [doc("notes", "archive_note", "put a note away")]);
    await scoped.prepare!("anything else");
    assert.ok(!scoped.search("remove a note", {}).hits.some((h) => h.name === "delete_note"));
  });

  it("a weak word match is not scaled up to a full one: the tool that means the query outranks it (lexicalFloor)", async () => {
    // The query's only word match is one word deep in a long description; the tool that means
    // "sign in" shares no word with it. Scaled by its own best, the weak match counted as a
    // perfect one and won; held under the floor, meaning decides.
    const meaning = oneMeaningModel("test-meaning", /sign into|admin area/);
    const filler = "it keeps counters of requests and replies and writes a line for each of them with the time taken";
    const catalog = [
      doc("ops", "toggle_tracing", `Turns tracing of the server on or off; ${filler}, and a sign of trouble is kept too`),
      doc("ops", "open_admin", "Enter the admin area with a password"),
      ...["list_users", "read_config", "restart", "get_status", "list_jobs"].map((name) => doc("ops", name, `${name.replace("_", " ")} of the server`)),
    ];
    const ranked = async (settings: { lexicalFloor?: number }) => {
      const index = createHybridIndex({ lexical: createBm25fIndex(), loadModel: async () => ({ model: meaning }), settings });
      index.setPluginDocuments("ops", catalog);
      await index.prepare!("sign into");
      return index.search("sign into", { limit: 3 }).hits.map((h) => h.name);
    };
    assert.equal((await ranked({}))[0], "open_admin");
    assert.equal((await ranked({ lexicalFloor: 0 }))[0], "toggle_tracing", "without the floor the weak match wins (what the setting changes)");
  });

  it("a query that is one need holds a word match under a higher floor (oneNeedFloorFactor); a task of several clauses keeps the floor it had", async () => {
    // "throw a wedding" meets one tool by one word of its description (a photo tool that mentions
    // weddings) and none by meaning; the tool that means it (a party hall) shares no word with it.
    // Under the plain floor the word match still wins; under the one-need floor meaning decides.
    const meaning = oneMeaningModel("test-one-need", /throw a wedding|hall for the party/);
    const catalog = [
      doc("events", "get_destination_photos", "Photos of destinations for a wedding abroad"),
      doc("events", "book_venue", "Reserve a hall for the party"),
      ...["list_guests", "send_reminder", "get_weather", "pay_invoice", "list_vendors", "get_budget"].map((name) => doc("events", name, `${name.replace("_", " ")} of the event`)),
    ];
    const ranked = async (query: string, settings: { oneNeedFloorFactor?: number }) => {
      const index = createHybridIndex({ lexical: createBm25fIndex(), loadModel: async () => ({ model: meaning }), settings });
      index.setPluginDocuments("events", catalog);
      await index.prepare!(query);
      return index.search(query, { limit: 4 }).hits.map((h) => h.name);
    };
    assert.deepEqual((await ranked("throw a wedding", {})).slice(0, 2), ["book_venue", "get_destination_photos"]);
    assert.deepEqual((await ranked("throw a wedding", { oneNeedFloorFactor: 1 })).slice(0, 2), ["get_destination_photos", "book_venue"], "with the factor at 1 (off) the word match wins, as before");
    const task = "throw a wedding and then pay the invoice";
    assert.deepEqual(await ranked(task, {}), await ranked(task, { oneNeedFloorFactor: 1 }), "a query of several clauses ranks the same either way");
  });
});

describe("BM25F typo fallback", () => {
  const docs = (names: string[]): SearchDocument[] => names.map((name) => ({ plugin: "fs", kind: "tool", name, fields: { name, description: `${name.replace(/_/g, " ")} in the project` } }));
  const index = createBm25fIndex();
  index.setPluginDocuments("fs", docs(["list_directory", "read_file", "create_directory", "merge_branch", "get_date"]));
  const top = (query: string) => index.search(query).hits.map((h) => h.name);

  it("reads a word no tool has as the vocabulary word one swap away, and says so", () => {
    assert.equal(top("lsit directory")[0], "list_directory", "the corrected query spells the name: name first");
    assert.equal(top("mrege")[0], "merge_branch");
    assert.deepEqual(index.corrections("lsit the drectory"), [{ word: "lsit", as: "list" }, { word: "drectory", as: "directory" }]);
    assert.equal(index.correctedText("Mrege the branch"), "merge the branch", "swaps are spelled out for the sentence model");
    assert.equal(index.correctedText("drectory"), "drectory", "an insertion is matched but not rewritten for the model");
  });

  it("leaves known words, short words, first-letter changes and words with synonyms alone", () => {
    assert.deepEqual(index.corrections("list files"), [], "known words");
    assert.deepEqual(index.corrections("gte date"), [], "three letters are too short to read as a typo");
    assert.deepEqual(index.corrections("rile"), [], "a changed first letter (rile/file) is another word, not a typo");
    assert.deepEqual(index.corrections("save"), [], "save has relatives (create, add): a word, not a typo of 'same'");
    assert.deepEqual(index.corrections("zzzz"), []);
    assert.equal(index.search("zzzz").total, 0);
  });

  it("a word one edit from a known one ranks below the same query spelled right", () => {
    const right = index.search("merge").hits[0]!.score;
    const typo = index.search("mrege").hits[0]!.score;
    assert.ok(typo < right, `${typo} < ${right}`);
  });
});
