import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { createBm25fIndex } from "../src/runtime/search/bm25f.js";
import { queryTerms, splitWords, tokenize } from "../src/runtime/search/tokenize.js";
import { callJson, connect, FIXTURES, ROOT, type Connected } from "./helpers.js";

/**
 * Search and discover over localized tools. The tokenizer split on everything but a–z and 0–9, so
 * every other letter was a separator: `agent_tools_search {"query":"搜索文件"}` answered "nothing
 * matches" although 搜索文件 was a tool's exact name, "🎉" did not find `party_🎉`, and "café"
 * matched only because both sides became "caf". Words are now Unicode letters, digits and marks
 * (accents dropped), emoji are words, and Han/Kana/Hangul runs are indexed as character pairs.
 */

/** A server's localized tools: Chinese, Japanese, Korean, Russian, Arabic, emoji, an accent, and two English ones. */
const LOCALIZED_TOOLS = [
  { name: "搜索文件", description: "搜索文件 search files by name 中文" },
  { name: "ファイルを読む", description: "ファイルの内容を読み込みます" },
  { name: "파일_삭제", description: "파일을 삭제합니다" },
  { name: "создать_задачу", description: "Создаёт новую задачу в списке" },
  { name: "إرسال_رسالة", description: "يرسل رسالة مَرْحَبًا إلى القناة" },
  { name: "party_🎉", description: "throw confetti" },
  { name: "café", description: "order a coffee" },
  { name: "list_issues", description: "List issues in a repository." },
  { name: "get_weather", description: "Current weather for a city." },
].map((tool) => ({ ...tool, inputSchema: { type: "object", properties: { text: { type: "string" } } } }));

/** Query → the tool it must find first: by its whole name, a word or a character pair of it, its description, in another case or without accents. */
const FIRST: readonly (readonly [string, string])[] = [
  ["搜索文件", "搜索文件"],
  ["搜索", "搜索文件"],
  ["文件", "搜索文件"],
  ["中文", "搜索文件"],
  ["読む", "ファイルを読む"],
  ["ファイルを読む", "ファイルを読む"],
  ["삭제", "파일_삭제"],
  ["задачу", "создать_задачу"],
  ["ЗАДАЧУ", "создать_задачу"],
  ["создает", "создать_задачу"],
  ["رسالة", "إرسال_رسالة"],
  ["مرحبا", "إرسال_رسالة"],
  ["🎉", "party_🎉"],
  ["🎉\uFE0F", "party_🎉"],
  ["cafe", "café"],
  ["CAFÉ", "café"],
  ["cafe\u0301", "café"],
  ["list issues", "list_issues"],
  ["lsit issues", "list_issues"],
];

describe("search tokenizer beyond ASCII", () => {
  it("splits words of any script, lower-cased, accents dropped, case-folded", () => {
    assert.deepEqual(splitWords("créerFichier Straße ΟΔΟΣ"), ["creer", "fichier", "strasse", "οδοσ"]);
    assert.deepEqual(splitWords("создатьЗадачу"), ["создать", "задачу"]);
    assert.deepEqual(splitWords("مَرْحَبًا بالعالم"), ["مرحبا", "بالعالم"], "Arabic harakat dropped");
    assert.deepEqual(splitWords("ＡＢＣ１２ İstanbul"), ["abc", "12", "istanbul"], "NFKC: full-width letters and digits");
    assert.deepEqual(splitWords("नमस्ते दुनिया"), ["नमस्ते", "दुनिया"], "Indic vowel signs are kept: they make the word");
    assert.deepEqual(splitWords("in\u00ADformation"), ["information"], "a soft hyphen is invisible");
  });

  it("reads 'café' in every spelling as 'cafe'", () => {
    for (const spelling of ["café", "cafe\u0301", "CAFÉ", "Café"]) assert.deepEqual(tokenize(spelling), ["cafe"], spelling);
  });

  it("keeps a Han, Kana or Hangul run as one word and indexes its character pairs", () => {
    assert.deepEqual(splitWords("搜索文件 search"), ["搜索文件", "search"]);
    assert.deepEqual(tokenize("搜索文件"), ["搜索", "索文", "文件"]);
    assert.deepEqual(tokenize("文"), ["文"], "one character is its own term");
    assert.deepEqual(tokenize("v2版本"), ["v", "2", "版本"], "a run ends where another script begins");
    assert.deepEqual(tokenize("ファイルを読む"), ["ファ", "ァイ", "イル", "ルを", "を読", "読む"]);
    assert.deepEqual(tokenize("파일 삭제"), ["파일", "삭제"], "Hangul syllables stay composed");
    assert.deepEqual(queryTerms("搜索文件"), tokenize("搜索文件"), "query and index agree");
  });

  it("makes each emoji a word, without its variation selector, skin tone or joiners", () => {
    assert.deepEqual(splitWords("party_🎉"), ["party", "🎉"]);
    assert.deepEqual(splitWords("🎉\uFE0F 👍🏽"), ["🎉", "👍"]);
    assert.deepEqual(splitWords("👨‍💻"), ["👨", "💻"]);
    assert.deepEqual(splitWords("!!! ???"), [], "punctuation alone is no word");
  });

  it("splits ASCII text with a non-ASCII character in it exactly as ASCII text alone", () => {
    // The dev set's 90 real tools: names and descriptions with every case, digit and punctuation split.
    const tools = JSON.parse(readFileSync(path.join(ROOT, "bench", "data", "mcp-fleet.tools.json"), "utf8")) as { name: string; description?: string }[];
    for (const { name, description = "" } of tools) {
      const text = `${name} ${description}`;
      assert.deepEqual(splitWords(`${text} é`), [...splitWords(text), "e"], text);
    }
  });
});

describe("BM25F over localized tools", () => {
  const index = createBm25fIndex();
  index.setPluginDocuments(
    "uni",
    LOCALIZED_TOOLS.map((t) => ({ plugin: "uni", kind: "tool" as const, name: t.name, fields: { name: t.name, description: t.description } })),
  );
  for (const [query, tool] of FIRST)
    it(`${JSON.stringify(query)} finds ${tool} first`, () => {
      assert.equal(index.search(query, { limit: 3 }).hits[0]?.name, tool);
    });

  it("a query that spells a localized name ranks it above a tool that only shares part of it", () => {
    const both = createBm25fIndex();
    both.setPluginDocuments("uni", [
      { plugin: "uni", kind: "tool", name: "搜索文件", fields: { name: "搜索文件" } },
      { plugin: "uni", kind: "tool", name: "搜索文件夹", fields: { name: "搜索文件夹", description: "搜索文件 搜索文件" } },
    ]);
    assert.equal(both.search("搜索文件").hits[0]?.name, "搜索文件");
  });
});

/** The built server over stdio with one mcpServers entry `uni` serving LOCALIZED_TOOLS (file-tools-server). */
async function serve(dir: string, env: Record<string, string>): Promise<Connected> {
  const tools = path.join(dir, "tools.json");
  writeFileSync(tools, JSON.stringify(LOCALIZED_TOOLS));
  const config = path.join(dir, "config.json");
  const server = path.join(FIXTURES, "mcp", "file-tools-server.mjs");
  writeFileSync(config, JSON.stringify({ mcpServers: { uni: { command: process.execPath, args: [server, tools], description: "Localized tools" } } }));
  return connect(path.join(dir, "no-plugins"), { AGENT_TOOLS_CONFIG: config, ...env });
}

async function searchNames(server: Connected, query: string): Promise<string[]> {
  const { payload, isError } = await callJson(server.client, "agent_tools_search", { query, limit: 3 });
  assert.equal(isError, false, JSON.stringify(payload));
  return (payload.hits as { name: string }[]).map((h) => h.name);
}

async function discoverNames(server: Connected, query: string): Promise<string[]> {
  const { payload, isError } = await callJson(server.client, "agent_tools_uni_discover", { query, limit: 3 });
  assert.equal(isError, false, JSON.stringify(payload));
  return (payload.matches as { name: string }[]).map((m) => m.name);
}

describe("agent_tools_search and _discover over a localized MCP server (stdio, BM25F alone)", () => {
  let dir: string;
  let server: Connected;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-search-unicode-"));
    server = await serve(dir, { AGENT_TOOLS_SEMANTIC: "off" });
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("finds each tool first by its name, a word of it or its description, in any case or accent", async () => {
    for (const [query, tool] of FIRST) {
      assert.equal((await searchNames(server, query))[0], tool, `search ${JSON.stringify(query)}`);
      assert.equal((await discoverNames(server, query))[0], tool, `discover ${JSON.stringify(query)}`);
    }
  });

  it("still says nothing matches for punctuation or a word no tool has", async () => {
    for (const query of ["!!!", "😀", "写真"]) {
      const { payload } = await callJson(server.client, "agent_tools_search", { query });
      assert.deepEqual(payload.hits, [], `${query}: ${JSON.stringify(payload)}`);
      assert.match(String(payload.note), /nothing matches/);
    }
  });
});

describe("agent_tools_search and _discover over a localized MCP server (stdio, with the sentence model)", () => {
  let dir: string;
  let server: Connected;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-search-unicode-model-"));
    // Every answer waits for the model and the catalog's vectors, so each is the hybrid ranking.
    server = await serve(dir, { AGENT_TOOLS_SEMANTIC_WAIT_MS: "ready", AGENT_TOOLS_CACHE_DIR: path.join(dir, "cache") });
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("ranks a localized tool first for its exact name, a word of it and its emoji", async () => {
    for (const [query, tool] of [
      ["搜索文件", "搜索文件"],
      ["搜索", "搜索文件"],
      ["задачу", "создать_задачу"],
      ["🎉", "party_🎉"],
      ["cafe", "café"],
    ] as const) {
      assert.equal((await searchNames(server, query))[0], tool, `search ${JSON.stringify(query)}`);
      assert.equal((await discoverNames(server, query))[0], tool, `discover ${JSON.stringify(query)}`);
    }
    assert.equal((await searchNames(server, "list the issues of a repository"))[0], "list_issues", "English ranks as before");
  });
});
