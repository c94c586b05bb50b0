import assert from "node:assert/strict";
import { describe, it } from "node:test";
import path from "node:path";
import { readQueries, readTools } from "../src/cli/retrieval-data.js";
import { toolDocument } from "../src/runtime/catalog.js";
import { createBm25fIndex } from "../src/runtime/search/bm25f.js";
import { createToolIndex, NAME_FIRST_ENV, SEARCH_ENGINES } from "../src/runtime/search/index.js";
import { retrievalMetrics } from "../src/runtime/search/evaluate.js";
import { queryTerms, splitWords, tokenize } from "../src/runtime/search/tokenize.js";
import type { SearchHit, ToolIndex } from "../src/runtime/search/types.js";
import { ROOT } from "./helpers.js";

describe("search tokenizer", () => {
  it("splits snake, kebab, camel case and digits, drops stop words and stems", () => {
    assert.deepEqual(splitWords("listIssues get_pr-v2 HTTPServer"), ["list", "issues", "get", "pr", "v", "2", "http", "server"]);
    assert.deepEqual(tokenize("Listing the issues"), ["list", "issue"]);
  });
});

for (const engine of SEARCH_ENGINES) {
  describe(`search index (${engine})`, () => {
    it("ranks a name match above a description match, filters by plugin and counts totals", () => {
      const index = createToolIndex(engine);
      assert.equal(index.engine, engine);
      index.setPluginDocuments("gh", [
        { plugin: "gh", kind: "tool", name: "list_issues", fields: { name: "list_issues", description: "List issues of a repository." } },
        { plugin: "gh", kind: "tool", name: "get_repo", fields: { name: "get_repo", description: "Read a repository, with its open issues count." } },
        { plugin: "gh", kind: "skill", name: "triage", fields: { name: "triage", description: "Sort new issues by label." } },
      ]);
      index.setPluginDocuments("other", [{ plugin: "other", kind: "tool", name: "issues", fields: { name: "issues" } }]);
      assert.equal(index.size(), 4);
      assert.equal(index.size("gh"), 3);
      assert.equal(index.search("issues").total, 4);
      const gh = index.search("list issues", { plugin: "gh", limit: 2 });
      assert.equal(gh.total, 3);
      assert.equal(gh.hits.length, 2);
      assert.equal(gh.hits[0]?.name, "list_issues");
      assert.ok(gh.hits.every((h) => h.plugin === "gh"));
      index.setPluginDocuments("gh", []);
      assert.equal(index.search("issues").total, 1, "replacing a plugin's documents updates the index");
      index.removePlugin("other");
      assert.equal(index.search("issues").total, 0);
      assert.equal(index.search("the of").total, 0, "stop words alone match nothing");
    });

    it("finds a camelCase tool by its words and a parameter by its description", () => {
      const index = createToolIndex(engine);
      index.setPluginDocuments("fin", [
        { plugin: "fin", kind: "tool", name: "getStockPrice", fields: { name: "getStockPrice", description: "Latest trading price.", params: "ticker Ticker symbol" } },
        { plugin: "fin", kind: "tool", name: "convertCurrency", fields: { name: "convertCurrency", description: "Convert money.", params: "amount from to" } },
      ]);
      assert.equal(index.search("stock price").hits[0]?.name, "getStockPrice");
      assert.equal(index.search("ticker symbol").hits[0]?.name, "getStockPrice");
      assert.equal(index.search("currency").hits[0]?.name, "convertCurrency");
    });
  });
}

describe("a query that spells a tool's name (BM25F nameFirst)", () => {
  // The dev set's real catalog (90 tools of 12 MCP servers) and its 45 tasks: bench/data/README.md.
  const tools = readTools(path.join(ROOT, "bench", "data", "mcp-fleet.tools.json"));
  const tasks = readQueries(path.join(ROOT, "bench", "data", "mcp-fleet-tasks.jsonl")).map((q) => q.query);
  const nameQueries = tools.map((t) => splitWords(t.name).join(" "));
  const fill = (index: ToolIndex) => {
    const servers = [...new Set(tools.map((t) => t.server))];
    for (const server of servers) index.setPluginDocuments(server, tools.filter((t) => t.server === server).map((t) => toolDocument(server, server, t)));
    return index;
  };
  /** Whether the query's words (stop words and endings aside) are the name's words, each as often. */
  const spells = (query: string, name: string) => {
    const words = new Set(queryTerms(query));
    const named = tokenize(name);
    return named.length > 0 && named.every((w) => words.has(w)) && words.size === new Set(named).size;
  };
  const key = (h: SearchHit) => `${h.plugin}/${h.name}`;

  it("ranks the tool first for every name of the catalog, spelled in words ('read file' → read_file)", () => {
    const index = fill(createBm25fIndex());
    const missed = nameQueries.filter((query) => !spells(query, index.search(query, { limit: 1 }).hits[0]?.name ?? ""));
    assert.deepEqual(missed, []);
    assert.equal(index.search("read a file", { limit: 1 }).hits[0]?.name, "read_file");
  });

  it("differential: off, every score is BM25F's; on, only the spelled tools gain, and they rank above the rest", () => {
    const on = fill(createBm25fIndex());
    const off = fill(createBm25fIndex({ nameFirst: false }));
    for (const query of [...tasks, ...nameQueries, "read a file", "please read the file"]) {
      const a = on.search(query);
      const b = new Map(off.search(query).hits.map((h) => [key(h), h.score]));
      assert.equal(a.total, b.size, query);
      let spelledSeen = 0;
      a.hits.forEach((hit, rank) => {
        if (spells(query, hit.name)) {
          assert.equal(rank, spelledSeen++, `${query}: spelled ${hit.name} ranks above every tool it does not spell`);
          assert.ok(hit.score > b.get(key(hit))!, query);
        } else assert.equal(hit.score, b.get(key(hit)), `${query}: ${hit.name} keeps its score`);
      });
    }
  });

  it(`${NAME_FIRST_ENV}=off ranks as nameFirst: false, in both engines that rank by BM25F`, () => {
    // Without the rule BM25F ranks get_file_info first here: its description's "retrieve", a
    // relative of "get" (synonyms.ts), adds to the "get" and "file" of its name.
    const query = "get file contents";
    const off = fill(createBm25fIndex({ nameFirst: false })).search(query).hits.map(key);
    assert.notEqual(off[0], "github/get_file_contents", "the rule changes this query's first hit");
    for (const engine of ["bm25f", "hybrid"] as const) {
      assert.equal(fill(createToolIndex(engine, { env: { AGENT_TOOLS_SEMANTIC: "off" } })).search(query).hits.map(key)[0], "github/get_file_contents", engine);
      const index = fill(createToolIndex(engine, { env: { [NAME_FIRST_ENV]: "off", AGENT_TOOLS_SEMANTIC: "off" } }));
      assert.deepEqual(index.search(query).hits.map(key), off, engine);
    }
  });
});

describe("retrieval metrics", () => {
  it("computes recall, nDCG and MRR on binary relevance", () => {
    const m = retrievalMetrics([
      { relevant: ["a"], ranked: ["a", "b"] },
      { relevant: ["a", "b"], ranked: ["c", "a", "x", "y", "z", "b"] },
    ]);
    assert.equal(m.recallAt1, 0.5);
    assert.equal(m.recallAt5, 0.75);
    assert.equal(m.recallAt10, 1);
    assert.equal(m.mrr, 0.75);
    assert.ok(m.ndcgAt10 > 0.5 && m.ndcgAt10 < 1);
  });
});

describe("search answer budget", () => {
  it("drops optional lists, shortens descriptions, then drops the last hits until the answer fits", async () => {
    const { fitEntriesToBudget } = await import("../src/runtime/search-answer.js");
    const { countTokens } = await import("gpt-tokenizer/encoding/o200k_base");
    const hits = Array.from({ length: 10 }, (_, i) => ({
      plugin: "p",
      name: `tool_${i}`,
      description: "A description that goes on and on about what this tool does, well past any one line. ".repeat(3),
      optional: "alpha, beta, gamma +9",
      next: { tool: "agent_tools_call", arguments: { plugin: "p", toolName: `tool_${i}`, arguments: { a_long_required_parameter: "<string>", another_required_parameter: "<string>", and_a_third_one: "<integer>" } } },
    }));
    const answer = await fitEntriesToBudget({ ok: true, query: "q", shown: 10, total: 12, hits, more: undefined as string | undefined }, "hits", 400);
    assert.ok(countTokens(JSON.stringify(answer)) <= 400);
    const kept = answer.hits as { optional?: string; description: string }[];
    assert.ok(kept.length >= 1 && kept.length < 10);
    assert.equal(answer.shown, kept.length);
    assert.match(String(answer.more), new RegExp(`^${12 - kept.length} more`));
    assert.ok(kept.every((h) => h.optional === undefined && h.description.length <= 40));
  });
});
