import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { before, describe, it } from "node:test";
import type { DatasetTool } from "../src/cli/retrieval-data.js";
import { toolDocument } from "../src/runtime/catalog.js";
import { pickRanked } from "../src/runtime/ranked-window.js";
import { createBm25fIndex } from "../src/runtime/search/bm25f.js";
import { modelQueryText } from "../src/runtime/search/semantic/document-text.js";
import { createHybridIndex, orderedScores, type HybridIndex } from "../src/runtime/search/semantic/hybrid.js";
import { loadSentenceModel, type SentenceModel } from "../src/runtime/search/semantic/sentence-model.js";
import type { SearchDocument, SearchHit, ToolIndex } from "../src/runtime/search/types.js";
import { ROOT } from "./helpers.js";

const FLEET = JSON.parse(readFileSync(path.join(ROOT, "bench", "data", "mcp-fleet.tools.json"), "utf8")) as DatasetTool[];

function fill(index: ToolIndex, servers: string[]): void {
  const groups = new Map<string, SearchDocument[]>();
  for (const tool of FLEET.filter((t) => servers.includes(t.server))) groups.set(tool.server, [...(groups.get(tool.server) ?? []), toolDocument(tool.server, tool.server, tool)]);
  for (const [plugin, docs] of groups) index.setPluginDocuments(plugin, docs);
}

describe("hybrid hits carry their fused score; an unconfigured plugin's hits are named, not ranked", () => {
  it("orderedScores keeps each fused score, held to at most the one before it", () => {
    const fused = Float64Array.from([0.2, 0.95, 0.5, 0.6]);
    assert.deepEqual(orderedScores([1, 3, 2, 0], fused), [
      { i: 1, score: 0.95 },
      { i: 3, score: 0.6 },
      { i: 2, score: 0.5 },
      { i: 0, score: 0.2 },
    ]);
    // An order MMR chose against the scores: the later one is held down, the order kept.
    assert.deepEqual(orderedScores([2, 3], fused).map((s) => s.score), [0.5, 0.5]);
  });

  it("an unconfigured plugin's best hit is never an entry, however it scores: it is named, after the configured entries", () => {
    const hits: SearchHit[] = [
      { plugin: "github", kind: "tool", name: "create_issue", score: 0.95 },
      { plugin: "filesystem", kind: "tool", name: "write_file", score: 0.45 },
      { plugin: "memory", kind: "tool", name: "add_observations", score: 0.4 },
      { plugin: "github", kind: "tool", name: "update_issue", score: 0.3 },
    ];
    const { entries, total, unconfigured } = pickRanked({
      search: (limit) => ({ hits: hits.slice(0, limit), total: hits.length }),
      limit: 3,
      configured: (plugin) => plugin !== "github",
      pass: () => true,
      build: (hit) => `${hit.plugin}:${hit.name}`,
      allCounted: false,
    });
    assert.deepEqual(entries, ["filesystem:write_file", "memory:add_observations"]);
    assert.equal(total, 2, "only configured hits count");
    // update_issue ranks 4th, past the first 3 places: not named.
    assert.deepEqual([...unconfigured], [["github", ["create_issue"]]]);
  });
});

describe("the query text the sentence model is given", () => {
  it("a query typed in capitals is lowered; ordinary case and acronyms are kept", () => {
    assert.equal(modelQueryText("CREATE A GITHUB ISSUE"), "create a github issue");
    assert.equal(modelQueryText("Merge the PR and post to Slack"), "Merge the PR and post to Slack");
    assert.equal(modelQueryText("读取文件"), "读取文件");
  });
});

describe("hybrid search with the real model", () => {
  let model: SentenceModel;
  let index: HybridIndex;
  before(async () => {
    const load = await loadSentenceModel();
    assert.ok("model" in load, "the sentence model is installed");
    model = load.model;
    index = createHybridIndex({ lexical: createBm25fIndex(), loadModel: async () => ({ model }) });
    fill(index, ["memory", "filesystem", "github", "git", "slack"]);
  });

  const top = async (query: string, limit = 5) => {
    await index.prepare!(query);
    return index.search(query, { limit });
  };

  for (const query of ["zzzz", "📁", "读取文件", "42", "a"]) {
    it(`a query no tool's words match and no tool is close to in meaning finds nothing: ${JSON.stringify(query)}`, async () => {
      const answer = await top(query);
      assert.deepEqual(answer.hits.map((h) => h.name), [], `no hits for ${query}`);
      assert.equal(answer.total, 0);
    });
  }

  it("a query typed in capitals ranks as it does in lower case", async () => {
    const lower = (await top("create a pull request")).hits.map((h) => `${h.plugin}:${h.name}`);
    const upper = (await top("CREATE A PULL REQUEST")).hits.map((h) => `${h.plugin}:${h.name}`);
    assert.deepEqual(upper, lower);
    assert.equal(upper[0], "github:create_pull_request");
  });
});

describe("action words (synonyms.ts) in BM25F alone", () => {
  const lexical = createBm25fIndex();
  fill(lexical, ["memory", "filesystem", "github"]);
  const names = (query: string, limit = 3) => lexical.search(query, { limit }).hits.map((h) => h.name);

  it("renaming a file finds move_file", () => {
    assert.ok(names("rename a file").includes("move_file"), names("rename a file").join(", "));
  });

  for (const query of ["remember that Alice likes tea", "store a note", "save a fact about a person"]) {
    it(`a request to remember something finds memory's writing tools first: ${query}`, () => {
      const found = names(query);
      assert.ok(found[0] === "create_entities" || found[0] === "add_observations", `${query} → ${found.join(", ")}`);
      assert.ok(!found.some((n) => n.startsWith("delete")), `no deleting tool for ${query}: ${found.join(", ")}`);
    });
  }
});
