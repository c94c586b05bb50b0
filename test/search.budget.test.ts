import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { IN_MEMORY_KIND, inMemoryAdapterKind, inMemoryManifests } from "../src/cli/in-memory-fleet.js";
import { readQueries, readTools, type DatasetTool } from "../src/cli/retrieval-data.js";
import { silentLogger } from "../src/log.js";
import { createRuntime } from "../src/runtime/runtime.js";
import { estimateTokens } from "../src/runtime/search-answer.js";
import { FIXTURES } from "./helpers.js";

/**
 * agent_tools_search keeps its answers under 800 tokens with an upper estimate instead of loading
 * the o200k tables (66 MiB, 150 ms+). Here the estimate is held above the real o200k count on
 * every answer: the fixture catalog, the Seal-Tools dev set when present, and catalogs written to
 * be hard (CJK, emoji, hex and base64 identifiers, digits, punctuation runs).
 */

const SEAL = "/work/shared/data/retrieval/seal-tools";

function hardCatalog(): DatasetTool[] {
  const hex = (n: number) => Array.from({ length: n }, (_, i) => ((i * 2654435761) >>> 0).toString(16).slice(-1)).join("");
  const texts = [
    "検索してファイルを読み込みます。リポジトリの課題を一覧表示し、ラベルで絞り込みます。",
    "Создать задачу в трекере и назначить исполнителя; вернуть её номер.",
    "🚀🔥 deploy 🧪 tests ✅ 📦 release — ship it 🎉 with émojis and àccents",
    `id ${hex(64)} checksum ${hex(40)}`,
    "Base64 blob aGVsbG8gd29ybGQhIHRoaXMgaXMgYSB0ZXN0IG9mIHRoZSBlc3RpbWF0b3I=QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=",
    "1234567890 0987654321 3141592653 2718281828 1618033988 digits 000111222333444555",
    "{[(<>)]} ;;;;;; :::::: ?!?!?! ..... ----- ===== +++++ ***** ##### @@@@@ ~~~~~ |||||",
  ];
  const tools: DatasetTool[] = [];
  texts.forEach((description, i) => {
    for (let j = 0; j < 6; j++) {
      tools.push({
        server: `hard${i}`,
        name: `t${i}_${hex(12)}_${j}`,
        description: `${description} search find list ${j}`,
        inputSchema: { type: "object", properties: { [`p_${hex(8)}`]: { type: "string", description }, q: { type: "string" } }, required: ["q"] },
      });
    }
  });
  return tools;
}

async function answersFor(tools: DatasetTool[], queries: string[], env: Record<string, string> = {}): Promise<string[]> {
  const runtime = await createRuntime({ manifests: inMemoryManifests(tools, "budget"), adapterKinds: { [IN_MEMORY_KIND]: inMemoryAdapterKind }, log: silentLogger, env });
  try {
    const session = runtime.createSession("budget");
    const texts: string[] = [];
    for (const query of queries) {
      for (const limit of [5, 10, 50]) {
        const { payload } = await runtime.search(session, { query, limit });
        texts.push(JSON.stringify(payload));
      }
    }
    return texts;
  } finally {
    await runtime.close();
  }
}

function check(texts: string[]): void {
  assert.ok(texts.length > 0);
  for (const text of texts) {
    const real = countTokens(text);
    assert.ok(estimateTokens(text) >= real, `estimate ${estimateTokens(text)} under the real ${real} for ${text.slice(0, 200)}`);
    assert.ok(real <= 800, `an answer of ${real} tokens`);
  }
}

describe("search answer token budget", () => {
  test("the estimate is never under o200k on answers over hard catalogs", async () => {
    check(await answersFor(hardCatalog(), ["search", "find list", "検索", "задачу", "deploy release", "checksum", "digits", "t0", "zzz unknown"]));
  });

  test("the estimate is never under o200k on answers over the fixture catalog", async () => {
    const file = path.join(FIXTURES, "retrieval", "tools.json");
    const queries = readQueries(path.join(FIXTURES, "retrieval", "queries.jsonl")).map((q) => q.query);
    check(await answersFor(readTools(file), queries));
  });

  test("the estimate is never under o200k on answers over Seal-Tools", { skip: existsSync(SEAL) ? false : `${SEAL} is not on this machine` }, async () => {
    const queries = readQueries(path.join(SEAL, "queries.jsonl")).slice(0, 150).map((q) => q.query);
    // The model off: embedding Seal-Tools' 4,076 tools kept the model's threads on both cores for
    // the whole test (cut off unfinished when the runtime closed), slowing every test beside it,
    // while the searches answered from BM25F anyway (they wait 250 ms for the catalog's vectors):
    // 89 of 90 answers were the same bytes with it off. The estimate is a property of the text.
    check(await answersFor(readTools(path.join(SEAL, "tools.json")), queries, { AGENT_TOOLS_SEMANTIC: "off" }));
  });
});
