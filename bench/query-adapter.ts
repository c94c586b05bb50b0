import { readQueries, readTools, type DatasetQuery, type DatasetTool } from "../src/cli/retrieval-data.js";
import { toolDocument } from "../src/runtime/catalog.js";
import { queryClauses } from "../src/runtime/search/clauses.js";
import { embeddingText } from "../src/runtime/search/semantic/document-text.js";
import { embeddingCacheDir, embeddingKey, fileEmbeddingCache, memoryEmbeddingCache } from "../src/runtime/search/semantic/embedding-cache.js";
import { loadSentenceModel } from "../src/runtime/search/semantic/sentence-model.js";
import { apiIntentVariants } from "./api-intents-variants.js";
import { benchData, GITHUB_CATALOG, SEAL_DIR, splitQueries } from "./retrieval-kit.js";

/**
 * The experiment of issue #19, session 8: a learned query-side adapter on the sentence model's
 * query vectors (q → A·q, A = diag(a) or I + U·Vᵀ of rank r), trained on Seal-Tools' tune half
 * (optionally with the dev set), and measured by the semantic side alone (R@5, a query's tools
 * ranked by their best cosine over its clause vectors, as the hybrid engine embeds them) on
 * Seal-Tools' held-out half, the dev set, GitHub and the three API-intents sets. Not kept
 * (docs/search-log.md, "Figures"): nothing is shipped, this reruns the measurement.
 * Training: softmax over the catalog at temperature 0.05, the query's tools as positives, each
 * clause vector against its 512 nearest tools (before adaptation) and its positives; Adam; an L2
 * pull towards the identity.
 * Run: node --import tsx bench/query-adapter.ts [diag|rank16|rank32] [EPOCHS,EPOCHS…] [LEARNING_RATE] [seal|seal+fleet]
 */

const kind = process.argv[2] ?? "diag";
const checkpoints = (process.argv[3] ?? "5,10,20").split(",").map(Number);
const rate = Number(process.argv[4] ?? (kind === "diag" ? 0.01 : 0.002));
const trainOn = process.argv[5] ?? "seal";
if (!/^(diag|rank\d+)$/.test(kind) || checkpoints.some((e) => !Number.isInteger(e) || e < 1) || !(rate > 0) || !/^seal(\+fleet)?$/.test(trainOn)) {
  console.error("usage: query-adapter.ts [diag|rankN] [EPOCHS,EPOCHS…] [LEARNING_RATE > 0] [seal|seal+fleet]");
  process.exit(2);
}
const TEMPERATURE = 0.05;
const NEGATIVES = 512;
const L2 = 1;

const load = await loadSentenceModel(process.env);
if ("unavailable" in load) throw new Error(`the sentence model is needed: ${load.unavailable}`);
const model = load.model;
const dims = model.dimensions;
const dir = embeddingCacheDir(process.env);
const cache = dir ? fileEmbeddingCache(dir, model.id, dims) : memoryEmbeddingCache();

async function embed(texts: readonly string[]): Promise<Float32Array[]> {
  const missing = [...new Set(texts.filter((t) => !cache.get(embeddingKey(model.id, t))))];
  for (let i = 0; i < missing.length; i += 64) {
    const chunk = missing.slice(i, i + 64);
    (await model.embed(chunk)).forEach((v, j) => cache.set(embeddingKey(model.id, chunk[j]!), v));
  }
  cache.flush();
  return texts.map((t) => cache.get(embeddingKey(model.id, t))!);
}

interface Query {
  vectors: Float32Array[];
  relevant: string[];
}
interface EvalSet {
  label: string;
  names: string[];
  docs: Float32Array[];
  queries: Query[];
}

async function evalSet(label: string, tools: readonly DatasetTool[], queries: readonly DatasetQuery[]): Promise<EvalSet> {
  const docs = await embed(tools.map((t) => embeddingText(toolDocument(t.server, t.server, t))));
  const texts = queries.map((q) => {
    const clauses = queryClauses(q.query);
    return clauses.length > 1 ? clauses : [q.query];
  });
  const flat = await embed(texts.flat());
  let at = 0;
  return { label, names: tools.map((t) => t.name), docs, queries: queries.map((q, i) => ({ vectors: flat.slice(at, (at += texts[i]!.length)), relevant: [...new Set(q.relevant)] })) };
}

const dot = (a: Float32Array | Float64Array, b: Float32Array | Float64Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

/** The adapter: its parameters, q → A·q, and the gradient of A·q's loss back to the parameters. */
interface Adapter {
  params: Float64Array[];
  apply(q: Float32Array): Float64Array;
  /** Add to `grads` the gradient for input q whose output's gradient is g. */
  backward(q: Float32Array, g: Float64Array, grads: Float64Array[]): void;
  /** The L2 pull towards the identity, added to `grads`. */
  pull(grads: Float64Array[]): void;
}

function diagonal(): Adapter {
  const a = new Float64Array(dims).fill(1);
  return {
    params: [a],
    apply: (q) => Float64Array.from(q, (v, i) => v * a[i]!),
    backward: (q, g, [ga]) => q.forEach((v, i) => (ga![i]! += g[i]! * v)),
    pull: ([ga]) => a.forEach((v, i) => (ga![i]! += (L2 * (v - 1)) / dims)),
  };
}

function lowRank(rank: number): Adapter {
  // U starts at zero (A = I), V small and seeded so the first steps can move U.
  const u = new Float64Array(dims * rank);
  let seed = 7;
  const v = Float64Array.from({ length: dims * rank }, () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648 - 0.5) * 0.02);
  const project = (q: ArrayLike<number>) => {
    const p = new Float64Array(rank);
    for (let i = 0; i < dims; i++) for (let r = 0; r < rank; r++) p[r]! += q[i]! * v[i * rank + r]!;
    return p;
  };
  return {
    params: [u, v],
    apply(q) {
      const p = project(q);
      return Float64Array.from(q, (x, i) => {
        let s = x;
        for (let r = 0; r < rank; r++) s += u[i * rank + r]! * p[r]!;
        return s;
      });
    },
    backward(q, g, [gu, gv]) {
      const p = project(q);
      const ug = new Float64Array(rank);
      for (let i = 0; i < dims; i++) for (let r = 0; r < rank; r++) {
        gu![i * rank + r]! += g[i]! * p[r]!;
        ug[r]! += u[i * rank + r]! * g[i]!;
      }
      for (let i = 0; i < dims; i++) for (let r = 0; r < rank; r++) gv![i * rank + r]! += q[i]! * ug[r]!;
    },
    pull([gu, gv]) {
      u.forEach((x, i) => (gu![i]! += (L2 * x) / dims));
      v.forEach((x, i) => (gv![i]! += (L2 * x) / dims));
    },
  };
}

/** Semantic-side R@5 of a set, each query's tools ranked by their best cosine over its vectors. */
function recallAt5(set: EvalSet, adapter?: Adapter): number {
  let sum = 0;
  for (const q of set.queries) {
    const best = new Float64Array(set.docs.length).fill(-Infinity);
    for (const raw of q.vectors) {
      const v = adapter ? adapter.apply(raw) : raw;
      const norm = Math.sqrt(dot(v, v)) || 1;
      set.docs.forEach((d, i) => (best[i] = Math.max(best[i]!, dot(v, d) / norm)));
    }
    const top = new Set([...best.keys()].sort((a, b) => best[b]! - best[a]!).slice(0, 5).map((i) => set.names[i]!));
    sum += q.relevant.filter((r) => top.has(r)).length / q.relevant.length;
  }
  return (100 * sum) / set.queries.length;
}

/** One training example: a clause vector, its candidates (nearest tools and positives) and which are positives. */
interface Example {
  q: Float32Array;
  candidates: Float32Array[];
  positive: boolean[];
}

function examples(set: EvalSet): Example[] {
  const out: Example[] = [];
  for (const q of set.queries) {
    const wanted = new Set(q.relevant);
    for (const v of q.vectors) {
      const cos = set.docs.map((d) => dot(v, d));
      const near = [...cos.keys()].sort((a, b) => cos[b]! - cos[a]!).slice(0, NEGATIVES);
      const chosen = [...new Set([...near, ...set.names.flatMap((n, i) => (wanted.has(n) ? [i] : []))])];
      if (!chosen.some((i) => wanted.has(set.names[i]!))) continue;
      out.push({ q: v, candidates: chosen.map((i) => set.docs[i]!), positive: chosen.map((i) => wanted.has(set.names[i]!)) });
    }
  }
  return out;
}

/** One epoch of full-batch Adam on the softmax loss; returns the mean loss. */
function epoch(adapter: Adapter, batch: readonly Example[], state: { m: Float64Array[]; s: Float64Array[]; t: number }): number {
  const grads = adapter.params.map((p) => new Float64Array(p.length));
  let loss = 0;
  for (const ex of batch) {
    const out = adapter.apply(ex.q);
    const norm = Math.sqrt(dot(out, out)) || 1;
    const unit = out.map((x) => x / norm);
    const scores = ex.candidates.map((d) => dot(unit, d) / TEMPERATURE);
    const max = Math.max(...scores);
    const e = scores.map((s) => Math.exp(s - max));
    const all = e.reduce((a, b) => a + b, 0);
    const pos = e.reduce((a, x, i) => a + (ex.positive[i] ? x : 0), 0);
    loss += Math.log(all) - Math.log(pos);
    // d loss / d unit = Σ (p_all − p_pos) · d / T; then through the normalisation.
    const gUnit = new Float64Array(dims);
    ex.candidates.forEach((d, i) => {
      const w = (e[i]! / all - (ex.positive[i] ? e[i]! / pos : 0)) / TEMPERATURE / batch.length;
      if (w !== 0) for (let k = 0; k < dims; k++) gUnit[k]! += w * d[k]!;
    });
    const along = dot(gUnit, unit);
    adapter.backward(ex.q, gUnit.map((g, k) => (g - along * unit[k]!) / norm), grads);
  }
  adapter.pull(grads);
  state.t += 1;
  adapter.params.forEach((p, j) => {
    const m = state.m[j]!;
    const s = state.s[j]!;
    for (let i = 0; i < p.length; i++) {
      m[i] = 0.9 * m[i]! + 0.1 * grads[j]![i]!;
      s[i] = 0.999 * s[i]! + 0.001 * grads[j]![i]! ** 2;
      p[i]! -= (rate * (m[i]! / (1 - 0.9 ** state.t))) / (Math.sqrt(s[i]! / (1 - 0.999 ** state.t)) + 1e-8);
    }
  });
  return loss / batch.length;
}

const sealTools = readTools(`${SEAL_DIR}/tools.json`);
const { tune, heldOut } = splitQueries(readQueries(`${SEAL_DIR}/queries.jsonl`));
const fleetTools = readTools(benchData("mcp-fleet.tools.json"));
const sets: EvalSet[] = [
  await evalSet("seal-tune", sealTools, tune),
  await evalSet("seal-held", sealTools, heldOut),
  await evalSet("fleet", fleetTools, readQueries(benchData("mcp-fleet-tasks.jsonl"))),
  await evalSet("github", readTools(GITHUB_CATALOG), readQueries(benchData("github-queries.jsonl"))),
  ...(await Promise.all(apiIntentVariants().map((s) => evalSet(s.label, s.tools, s.queries)))),
];
const report = (label: string, adapter?: Adapter) => console.log(`${label.padEnd(26)} ${sets.map((s) => `${s.label} ${recallAt5(s, adapter).toFixed(1)}`).join(" | ")}`);
report("no adapter");
const adapter = kind === "diag" ? diagonal() : lowRank(Number(kind.slice(4)));
const batch = [...examples(sets[0]!), ...(trainOn === "seal+fleet" ? examples(sets[2]!) : [])];
const state = { m: adapter.params.map((p) => new Float64Array(p.length)), s: adapter.params.map((p) => new Float64Array(p.length)), t: 0 };
for (let e = 1; e <= Math.max(...checkpoints); e++) {
  const loss = epoch(adapter, batch, state);
  if (checkpoints.includes(e)) report(`${kind} lr ${rate} epoch ${e} (loss ${loss.toFixed(2)})`, adapter);
}
process.exit(0);
