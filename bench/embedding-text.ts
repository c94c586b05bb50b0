import { inMemoryAdapterKind, inMemoryManifests, IN_MEMORY_KIND } from "../src/cli/in-memory-fleet.js";
import { readQueries, readTools, type DatasetQuery, type DatasetTool } from "../src/cli/retrieval-data.js";
import { createLogger } from "../src/log.js";
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

/**
 * Issue #19, session 9: what the sentence model sees, measured. Each variant changes the texts
 * embedded (query templates, tool text without its name, several vectors per tool) or the vectors
 * (the catalog's mean taken out), and is measured twice on every visible set: by the semantic side
 * alone (each tool's best cosine over the query's clause vectors) and through the hybrid engine's
 * fusion with BM25F (hybrid.ts `rank`, re-done here over any vectors, with HYBRID_DEFAULTS; the
 * `base` variant reproduces `search-bench`'s figures, which checks the re-doing). Not kept (README
 * "Semantic search"): nothing of it is shipped; this reruns the measurement.
 * Run: [AGENT_TOOLS_CACHE_DIR=scratch] [SETS=fleet,api,…] node --import tsx bench/embedding-text.ts [VARIANT,VARIANT…]
 */

type Aggregate = "max" | "softmax";
interface Variant {
  /** Texts embedded for one tool: its cosine to a clause is the aggregate over their vectors. */
  texts(doc: SearchDocument): string[];
  /** The text embedded for one query clause. */
  query(clause: string): string;
  aggregate?: Aggregate;
  /** Take the catalog's mean vector out of tool vectors (and of query vectors with "both"), then renormalise. */
  center?: "docs" | "both";
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
  "m-sentences-soft": { texts: withExtras(3, (d) => sentences(d.fields.description ?? "").map((s) => opening(s, 160))), query: same, aggregate: "softmax" },
  // Centering.
  "c-docs": { texts: (d) => [embeddingText(d)], query: same, center: "docs" },
  "c-both": { texts: (d) => [embeddingText(d)], query: same, center: "both" },
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
  const lexical = set.queries.map((q) => lexicalScores(index, base, docs.length, q.query));
  const clauseTexts = set.queries.map((q) => {
    const clauses = queryClauses(q.query);
    return clauses.length > 1 ? clauses : [q.query];
  });
  for (const name of picked) {
    const variant = VARIANTS[name]!;
    const started = performance.now();
    embeddedNow = 0;
    const texts = docs.map((d) => variant.texts(d));
    const flatVectors = await embed(texts.flat());
    let at = 0;
    let toolVectors = texts.map((t) => flatVectors.slice(at, (at += t.length)));
    const queryTexts = clauseTexts.map((cs) => cs.map(variant.query));
    const flatQueries = await embed(queryTexts.flat());
    at = 0;
    let queryVectors = queryTexts.map((t) => flatQueries.slice(at, (at += t.length)));
    if (variant.center) {
      const mean = new Float32Array(dims);
      const all = toolVectors.flat();
      for (const v of all) for (let i = 0; i < dims; i++) mean[i]! += v[i]! / all.length;
      toolVectors = toolVectors.map((vs) => vs.map((v) => centred(v, mean)));
      if (variant.center === "both") queryVectors = queryVectors.map((vs) => vs.map((v) => centred(v, mean)));
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
    const vectorsPerTool = texts.reduce((n, t) => n + t.length, 0) / texts.length;
    const row = `${label.padEnd(13)} ${name.padEnd(20)} semantic ${line(retrievalMetrics(semanticRankings))} | fused ${line(retrievalMetrics(fusedRankings))} | ${vectorsPerTool.toFixed(2)} vectors a tool, ${embeddedNow} embedded in ${((performance.now() - started) / 1000).toFixed(1)} s`;
    console.log(row);
    rows.push(row);
  }
  await close();
}
process.exit(0);
