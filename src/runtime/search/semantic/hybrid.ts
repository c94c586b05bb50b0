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
 * cache when it can), and embeds the query. Until the model and the whole catalog in scope are
 * ready, ranking is BM25F alone, said once through `takeNotice`.
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
  /** How long a `prepare` waits for a large catalog's embedding before ranking without it (default: until done). */
  waitMs?: number;
  /**
   * How long a `prepare` waits for the model itself to load (default: until loaded). Loading it
   * takes seconds of CPU; with a bound, the searches before it is in are ranked by BM25F alone
   * and the model loads (and embeds the catalog) in the background.
   */
  modelWaitMs?: number;
  settings?: Partial<HybridSettings>;
  log?: (message: string) => void;
}

interface PluginVectors {
  documents: SearchDocument[];
  /** documents.length × dimensions, unit rows; undefined until embedded. */
  vectors?: Float32Array;
}

const EMBED_BATCH = 16;
const FLUSH_EVERY = 2000;
/** Up to this many documents to embed, a search waits for them whatever `waitMs` says. */
const WAIT_ALWAYS_BELOW = 1000;
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
  let notice: string | undefined;
  let noticeTaken = false;

  function say(message: string): void {
    if (notice !== undefined) return;
    notice = message;
    options.log?.(message);
  }

  function ensureModel(): Promise<void> {
    loading ??= options.loadModel().then((load) => {
      if ("unavailable" in load) {
        say(`semantic search is off (${load.unavailable}); ranking with BM25F alone`);
        return;
      }
      model = load.model;
      cache = options.cache?.(model) ?? memoryEmbeddingCache();
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

  function dot(a: Float32Array, at: number, b: Float32Array, bt: number, n: number): number {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += a[at + i]! * b[bt + i]!;
    return sum;
  }

  /** The fused, diversified ranking, or the clause-aware BM25F one when the semantic side cannot take part. */
  function rank(query: string, opts: SearchOptions): SearchHit[] {
    const lex = lexicalScores(query, opts);
    const qvs = queryVectors.get(query);
    if (!model || !qvs || !scopeReady(opts.plugin)) return [...lex.values()].map(({ hit, score }) => ({ ...hit, score }));
    const dims = model.dimensions;
    const scope = opts.plugin !== undefined ? (plugins.has(opts.plugin) ? [[opts.plugin, plugins.get(opts.plugin)!] as const] : []) : [...plugins];
    interface Candidate { plugin: string; doc: SearchDocument; vectors: Float32Array; row: number; semantic: number; near: boolean }
    const candidates: Candidate[] = [];
    for (const [plugin, entry] of scope) {
      const vectors = entry.vectors!;
      entry.documents.forEach((doc, row) => candidates.push({ plugin, doc, vectors, row, semantic: 0, near: false }));
    }
    if (candidates.length === 0) return [];
    // Each query vector's cosines, scaled between its best document and the one at floorRank; a
    // document's semantic score is its best over the query's vectors (one per clause).
    const cosines = new Float32Array(candidates.length);
    for (const qv of qvs) {
      candidates.forEach((c, i) => (cosines[i] = dot(c.vectors, c.row * dims, qv, 0, dims)));
      const sorted = Float32Array.from(cosines).sort().reverse();
      const top = sorted[0]!;
      const floor = sorted[Math.min(sorted.length - 1, settings.floorRank)]!;
      const span = top - floor || 1;
      candidates.forEach((c, i) => {
        if (cosines[i]! >= settings.minCosine) c.near = true;
        c.semantic = Math.max(c.semantic, Math.max(0, (cosines[i]! - floor) / span));
      });
    }
    const w = settings.lexicalWeight;
    const scored = candidates
      .map((c) => {
        const lexicalScore = lex.get(keyOf(c.plugin, c.doc.kind, c.doc.name))?.score ?? 0;
        return { c, score: w * lexicalScore + (1 - w) * (lexicalScore > 0 || c.near ? c.semantic : 0) };
      })
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score);
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
      plugins.set(plugin, { documents: [...documents] });
      if (model) void embedPending().catch((error: unknown) => options.log?.(`embedding the catalog failed: ${(error as Error).message}`));
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
        setTimeout(() => void ensureModel().then(() => embedPending()).catch((error: unknown) => options.log?.(`loading the sentence model failed: ${(error as Error).message}`)), MODEL_LOAD_DELAY_MS).unref();
        say("semantic search is loading its model; answers are ranked by BM25F alone until it is in");
        return;
      }
      const loaded = ensureModel();
      if (!model && options.modelWaitMs !== undefined) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([loaded, new Promise<void>((resolve) => (timer = setTimeout(resolve, options.modelWaitMs)))]);
        clearTimeout(timer);
        if (!model) {
          // Once it is in, embed the catalog at once, so the next search does not wait for that either.
          void loaded.then(() => embedPending()).catch((error: unknown) => options.log?.(`embedding the catalog failed: ${(error as Error).message}`));
          say("semantic search is loading its model; answers are ranked by BM25F alone until it is in");
          return;
        }
      }
      await loaded;
      if (!model) return;
      // A failed embedding (the model's thread died) leaves this answer to BM25F, said once.
      const work = Promise.all([embedPending(), queryVector(query)]).then(
        () => undefined,
        (error: unknown) => say(`semantic search failed (${(error as Error).message}); ranking with BM25F alone`),
      );
      // A small catalog is embedded in a few seconds: wait, so answers do not depend on timing.
      const unembedded = [...plugins.values()].reduce((n, entry) => n + (entry.vectors ? 0 : entry.documents.length), 0);
      if (options.waitMs === undefined || unembedded <= WAIT_ALWAYS_BELOW) await work;
      else {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, options.waitMs)))]);
        clearTimeout(timer);
        // Still embedding: this answer is BM25F alone; the next ones use both once it is done.
        if (!scopeReady(undefined)) say("semantic search is still embedding the catalog; this answer is ranked by BM25F alone");
      }
    },
    async warm() {
      await ensureModel();
      await embedPending().catch((error: unknown) => options.log?.(`embedding the catalog failed: ${(error as Error).message}`));
    },
    takeNotice() {
      if (noticeTaken || notice === undefined) return undefined;
      noticeTaken = true;
      return notice;
    },
    search(query, opts = {}) {
      return rankHits(rank(query, opts), opts.limit);
    },
  };
}
