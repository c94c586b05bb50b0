import { rankHits, type SearchDocument, type SearchHit, type SearchOptions, type ToolIndex } from "../types.js";
import { queryClauses } from "../clauses.js";
import { embeddingText } from "./document-text.js";
import { embeddingKey, memoryEmbeddingCache, type EmbeddingCache } from "./embedding-cache.js";
import type { ModelLoad, SentenceModel } from "./sentence-model.js";

/**
 * The default engine: BM25F beside sentence embeddings, fused by a weighted sum of scores. A task
 * of several clauses is ranked clause by clause on both sides (each document keeps its best clause
 * score), so each need of the task reaches the top five rather than five variants of one; maximal
 * marginal relevance over embeddings is there too, off by default (it measured worse).
 *
 * Scores are put on one scale per query before the sum: BM25F by its best hit; cosine similarity
 * by min–max between the best document and the one at rank `floorRank`, so a document only gets a
 * semantic share when it is among the nearest few dozen (cosines of unrelated texts are far from 0).
 *
 * `search` stays synchronous (discover and call repairs use it); `prepare(query)` does the async
 * part: it loads the model on first use, embeds catalog text that is not embedded yet (from the
 * cache when it can), and embeds the query. It waits at most `waitMs` for that: BM25F can always
 * answer, so a search never waits seconds for a model that is still loading or a catalog still
 * being embedded; until both are ready, ranking is BM25F alone, said once through `takeNotice`.
 */

export interface HybridSettings {
  /** Share of BM25F in the fused score (the rest is semantic). */
  lexicalWeight: number;
  /** The rank whose cosine is the zero of the semantic score. */
  floorRank: number;
  /**
   * MMR: weight of relevance against novelty (1 = no diversification). Off by default: on the dev
   * set it cost Recall@5 and coverage at every λ tried (0.85, 0.7); the clauses are what cover the
   * distinct needs of a task.
   */
  mmrLambda: number;
  /** How many of the best fused candidates MMR re-orders. */
  mmrPool: number;
  /** Share of the lexical score taken from the query's clauses when it has several (clauses.ts). */
  clauseWeight: number;
  /**
   * A document no query word reaches must be at least this close in meaning to be a hit at all:
   * without it every query "found" its nearest few dozen tools, and "nothing matches" was never said.
   */
  minCosine: number;
}

export const HYBRID_DEFAULTS: HybridSettings = { lexicalWeight: 0.8, floorRank: 50, mmrLambda: 1, mmrPool: 30, clauseWeight: 0.5, minCosine: 0.27 };

export interface HybridOptions {
  lexical: ToolIndex;
  /** Resolves to the model or to why it is unavailable; called on the first `prepare`. */
  loadModel: () => Promise<ModelLoad>;
  /** Built once the model is known (its id and size name the cache file). */
  cache?: (model: SentenceModel) => EmbeddingCache;
  /**
   * How long a `prepare` waits for the model, the catalog's embedding and the query's before
   * ranking with BM25F alone (default: until done: tests and benchmarks that must be exact).
   */
  waitMs?: number;
  /**
   * How long a `prepare` waits for the model itself to load (default: until loaded, within
   * `waitMs` when that is set). Loading it
   * takes seconds of CPU; with a bound, the searches before it is in are ranked by BM25F alone
   * and the model loads (and embeds the catalog) in the background.
   */
  modelWaitMs?: number;
  settings?: Partial<HybridSettings>;
  log?: (message: string) => void;
}

interface PluginVectors {
  documents: SearchDocument[];
  /** Each document's key in the lexical scores (keyOf), made once rather than per query. */
  keys: string[];
  /** documents.length × dimensions, unit rows; undefined until embedded. */
  vectors?: Float32Array;
}

/** Catalog texts per model call: larger batches cost less per text, but a query waits behind them in the worker. */
const EMBED_BATCH = 32;
const FLUSH_EVERY = 2000;
const QUERY_CACHE = 1024;
/** With modelWaitMs 0: how long after the first search the model starts loading (after its answer is written). */
const MODEL_LOAD_DELAY_MS = 100;

export interface HybridIndex extends ToolIndex {
  /** Whether the model is loaded and every catalog embedded. */
  ready(): boolean;
  /** Change the fusion settings in place (the tuning script tries many on one embedded catalog). */
  tune(settings: Partial<HybridSettings>): void;
}

export function createHybridIndex(options: HybridOptions): HybridIndex {
  const settings: HybridSettings = { ...HYBRID_DEFAULTS, ...options.settings };
  const { lexical } = options;
  const plugins = new Map<string, PluginVectors>();
  /** Per query: its own vector, then one per clause when it has several. */
  const queryVectors = new Map<string, Float32Array[]>();
  let model: SentenceModel | undefined;
  let cache: EmbeddingCache | undefined;
  let loading: Promise<void> | undefined;
  let embedding: Promise<void> | undefined;
  /**
   * Notices not yet handed to an answer. Each kind is said once: "waiting" (this answer is BM25F
   * alone while the model loads or the catalog is embedded) and "off" (the model is absent or
   * failed: every answer is); an "off" found after a "waiting" was said is still said.
   */
  const said = new Set<"waiting" | "off">();
  const pendingNotices: string[] = [];

  function say(kind: "waiting" | "off", message: string): void {
    if (said.has(kind) || said.has("off")) return;
    said.add(kind);
    pendingNotices.push(message);
    options.log?.(message);
  }

  /** The semantic side is gone for this process (the model failed): BM25F ranks from now on. */
  function drop(reason: string): void {
    model = undefined;
    say("off", `semantic search is off (${reason}); ranking with BM25F alone`);
  }

  function ensureModel(): Promise<void> {
    loading ??= options.loadModel().then((load) => {
      if ("unavailable" in load) {
        drop(load.unavailable);
        return;
      }
      model = load.model;
      cache = options.cache?.(model) ?? memoryEmbeddingCache();
      // Setting documents before the model was there queued nothing: start on them now.
      void embedPending().catch((error: unknown) => drop(`embedding the catalog failed: ${(error as Error).message}`));
    });
    return loading;
  }

  /** Embed every plugin whose vectors are missing: from the cache first, the model for the rest. */
  function embedPending(): Promise<void> {
    if (!model) return Promise.resolve();
    embedding ??= (async () => {
      let unsaved = 0;
      try {
        for (;;) {
          const pending = [...plugins].find(([, entry]) => !entry.vectors);
          if (!pending) break;
          const [plugin, entry] = pending;
          const { documents } = entry;
          const dims = model.dimensions;
          const vectors = new Float32Array(documents.length * dims);
          const missing: { at: number; text: string; key: string }[] = [];
          documents.forEach((doc, at) => {
            const text = embeddingText(doc);
            const key = embeddingKey(model!.id, text);
            const known = cache!.get(key);
            if (known) vectors.set(known, at * dims);
            else missing.push({ at, text, key });
          });
          for (let i = 0; i < missing.length; i += EMBED_BATCH) {
            const batch = missing.slice(i, i + EMBED_BATCH);
            const embedded = await model.embed(batch.map((m) => m.text));
            batch.forEach((m, j) => {
              vectors.set(embedded[j]!, m.at * dims);
              cache!.set(m.key, embedded[j]!);
            });
          }
          // The catalog may have changed while embedding: keep the vectors only if it did not.
          if (plugins.get(plugin) === entry) entry.vectors = vectors;
          // The cache file is rewritten whole: once at the end, and now and then on a long run so
          // an interrupted first embedding keeps most of its work.
          unsaved += missing.length;
          if (unsaved >= FLUSH_EVERY) {
            cache!.flush();
            unsaved = 0;
          }
        }
      } finally {
        if (unsaved > 0) cache!.flush();
        embedding = undefined;
      }
    })();
    return embedding;
  }

  function scopeReady(only: string | undefined): boolean {
    if (!model) return false;
    if (only !== undefined) return !!plugins.get(only)?.vectors || !plugins.has(only);
    for (const entry of plugins.values()) if (!entry.vectors) return false;
    return true;
  }

  async function queryVector(query: string): Promise<void> {
    if (!model || queryVectors.has(query)) return;
    // A task of several clauses is embedded clause by clause, without the whole: each need gets
    // its own vector, and the model's cost grows faster than a text's length, so short clauses
    // are cheaper than the long whole. One model call for all of them.
    const clauses = settings.clauseWeight > 0 ? queryClauses(query) : [];
    const vectors = await model.embed(clauses.length > 1 ? clauses : [query]);
    if (queryVectors.size >= QUERY_CACHE) queryVectors.delete(queryVectors.keys().next().value!);
    queryVectors.set(query, vectors);
  }

  const keyOf = (plugin: string, kind: string, name: string) => `${plugin}\0${kind}\0${name}`;

  /**
   * BM25F of the whole query and of each clause, each scaled by its best hit, mixed: the whole
   * query keeps `1 - clauseWeight`, and each document gets the best of its clause scores.
   */
  function lexicalScores(query: string, opts: SearchOptions): Map<string, { hit: SearchHit; score: number }> {
    const scope = opts.plugin !== undefined ? { plugin: opts.plugin } : {};
    const out = new Map<string, { hit: SearchHit; score: number }>();
    const add = (text: string, weight: number, combine: (old: number, add: number) => number, into = out) => {
      const hits = lexical.search(text, scope).hits;
      const max = hits[0]?.score ?? 0;
      if (max <= 0) return;
      for (const hit of hits) {
        const key = keyOf(hit.plugin, hit.kind, hit.name);
        const old = into.get(key);
        const value = (weight * hit.score) / max;
        into.set(key, { hit, score: old ? combine(old.score, value) : value });
      }
    };
    const clauses = queryClauses(query);
    const cw = clauses.length > 1 ? settings.clauseWeight : 0;
    add(query, 1 - cw, (a, b) => a + b);
    if (cw > 0) {
      const best = new Map<string, { hit: SearchHit; score: number }>();
      for (const clause of clauses) add(clause, cw, Math.max, best);
      for (const [key, entry] of best) {
        const old = out.get(key);
        out.set(key, { hit: entry.hit, score: (old?.score ?? 0) + entry.score });
      }
    }
    return out;
  }

  /** a·b over n values at the given offsets, four at a time (the loop V8 keeps tight). */
  function dot(a: Float32Array, at: number, b: Float32Array, bt: number, n: number): number {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let i = 0;
    for (; i + 3 < n; i += 4) {
      s0 += a[at + i]! * b[bt + i]!;
      s1 += a[at + i + 1]! * b[bt + i + 1]!;
      s2 += a[at + i + 2]! * b[bt + i + 2]!;
      s3 += a[at + i + 3]! * b[bt + i + 3]!;
    }
    for (; i < n; i++) s0 += a[at + i]! * b[bt + i]!;
    return s0 + s1 + s2 + s3;
  }

  /** The fused, diversified ranking, or the clause-aware BM25F one when the semantic side cannot take part. */
  function rank(query: string, opts: SearchOptions): SearchHit[] {
    const lex = lexicalScores(query, opts);
    const qvs = queryVectors.get(query);
    if (!model || !qvs || !scopeReady(opts.plugin)) return [...lex.values()].map(({ hit, score }) => ({ ...hit, score }));
    const dims = model.dimensions;
    const scope = opts.plugin !== undefined ? (plugins.has(opts.plugin) ? [[opts.plugin, plugins.get(opts.plugin)!] as const] : []) : [...plugins];
    const total = scope.reduce((n, [, entry]) => n + entry.documents.length, 0);
    if (total === 0) return [];
    // Each query vector's cosines (one pass over each plugin's contiguous rows), scaled between
    // its best document and the one at floorRank; a document's semantic score is its best over
    // the query's vectors (one per clause). Typed arrays, no object per document.
    const cosines = new Float32Array(total);
    const semantic = new Float32Array(total);
    const near = new Uint8Array(total);
    for (const qv of qvs) {
      let at = 0;
      for (const [, entry] of scope) {
        const vectors = entry.vectors!;
        for (let row = 0; row < entry.documents.length; row++) cosines[at++] = dot(vectors, row * dims, qv, 0, dims);
      }
      const sorted = cosines.slice().sort();
      const top = sorted[total - 1]!;
      const floor = sorted[Math.max(0, total - 1 - settings.floorRank)]!;
      const span = top - floor || 1;
      for (let i = 0; i < total; i++) {
        if (cosines[i]! >= settings.minCosine) near[i] = 1;
        const value = (cosines[i]! - floor) / span;
        if (value > semantic[i]!) semantic[i] = value;
      }
    }
    interface Candidate { plugin: string; doc: SearchDocument; vectors: Float32Array; row: number }
    const w = settings.lexicalWeight;
    const scored: { c: Candidate; score: number }[] = [];
    let at = 0;
    for (const [plugin, entry] of scope) {
      entry.documents.forEach((doc, row) => {
        const i = at++;
        const lexicalScore = lex.get(entry.keys[row]!)?.score ?? 0;
        const score = w * lexicalScore + (1 - w) * (lexicalScore > 0 || near[i] ? semantic[i]! : 0);
        if (score > 0) scored.push({ c: { plugin, doc, vectors: entry.vectors!, row }, score });
      });
    }
    scored.sort((a, b) => b.score - a.score);
    // MMR over the head of the list: each next pick trades relevance against its nearest
    // already-picked neighbour, so near-duplicates (five "search" tools) give way to the other
    // needs of the task. The tail keeps its fused order.
    const lambda = settings.mmrLambda;
    const pool = lambda < 1 ? scored.slice(0, settings.mmrPool) : [];
    const picked: typeof pool = [];
    while (pool.length) {
      let best = 0;
      let bestValue = -Infinity;
      pool.forEach((s, i) => {
        let nearest = 0;
        for (const p of picked) nearest = Math.max(nearest, dot(s.c.vectors, s.c.row * dims, p.c.vectors, p.c.row * dims, dims));
        const value = lambda * s.score - (1 - lambda) * nearest;
        if (value > bestValue) {
          bestValue = value;
          best = i;
        }
      });
      picked.push(pool.splice(best, 1)[0]!);
    }
    const ordered = [...picked, ...scored.slice(picked.length)];
    // Scores that keep this order (rankHits sorts by score).
    return ordered.map((s, i) => ({ plugin: s.c.plugin, kind: s.c.doc.kind, name: s.c.doc.name, score: ordered.length - i }));
  }

  return {
    engine: "hybrid",
    ready: () => scopeReady(undefined),
    tune: (changes) => void Object.assign(settings, changes),
    setPluginDocuments(plugin, documents) {
      lexical.setPluginDocuments(plugin, documents);
      plugins.set(plugin, { documents: [...documents], keys: documents.map((doc) => keyOf(plugin, doc.kind, doc.name)) });
      if (model) void embedPending().catch((error: unknown) => drop(`embedding the catalog failed: ${(error as Error).message}`));
    },
    removePlugin(plugin) {
      lexical.removePlugin(plugin);
      plugins.delete(plugin);
    },
    size: (plugin) => lexical.size(plugin),
    async prepare(query) {
      if (!model && !loading && options.modelWaitMs === 0) {
        // Not waited for, and started only once this answer is out: the model's first import
        // steps are synchronous CPU that would otherwise hold the answer it does not take part in.
        setTimeout(() => void ensureModel().catch((error: unknown) => drop(`loading the sentence model failed: ${(error as Error).message}`)), MODEL_LOAD_DELAY_MS).unref();
        say("waiting", "semantic search is loading its model; answers are ranked by BM25F alone until it is in");
        return;
      }
      const work = (async () => {
        await ensureModel();
        if (model) await Promise.all([embedPending(), queryVector(query)]);
      })().catch((error: unknown) => drop((error as Error).message));
      const bound = (ms: number | undefined, done: Promise<unknown>): Promise<boolean> => {
        if (ms === undefined) return done.then(() => false);
        let timer: NodeJS.Timeout | undefined;
        return Promise.race([done.then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), ms)))]).finally(() => clearTimeout(timer));
      };
      // The model's own bound (0 on a warm start: its catalogs are there, answer at once), then the
      // bound on the whole: the worker loads and embeds on; this answer is BM25F alone.
      const late = (!model && options.modelWaitMs !== undefined && (await bound(options.modelWaitMs, ensureModel()))) || (await bound(options.waitMs, work));
      if (late) say("waiting", `semantic search is ${!model ? "still loading its model" : scopeReady(undefined) ? "slow to embed the query" : "still embedding the catalog"}; answers are ranked by BM25F alone until it is ready`);
    },
    async warm() {
      await ensureModel();
      await embedPending().catch((error: unknown) => options.log?.(`embedding the catalog failed: ${(error as Error).message}`));
    },
    takeNotice() {
      return pendingNotices.length ? pendingNotices.splice(0).join("; ") : undefined;
    },
    search(query, opts = {}) {
      return rankHits(rank(query, opts), opts.limit);
    },
  };
}
