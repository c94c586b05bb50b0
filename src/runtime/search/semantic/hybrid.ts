import { rankHits, type RowScores, type SearchAnswer, type SearchDocument, type SearchHit, type SearchOptions, type ToolIndex } from "../types.js";
import { createDotKernel, dotAt, type DotKernel } from "./dot-kernel.js";
import { positiveInt } from "../../../positive-int.js";
import { bm25Idf, type Bm25fIndex } from "../bm25f.js";
import { candidateSenses, chooseSenses, EXPANSION_DEFAULTS, expansionTerms, senseText } from "../expansion.js";
import type { WeightedTerm } from "../synonyms.js";
import type { WordNet } from "../wordnet.js";
import { queryClauses } from "../clauses.js";
import { queryTerms } from "../tokenize.js";
import { embeddingText, modelQueryText } from "./document-text.js";
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
  /**
   * When no word of the query is found in any tool of the scope ("zzzz", "📁", "42", "a", a query
   * in another language), a document must also be this far above the scope's mean cosine with the
   * query: meaning alone must stand out. Measured 7 December on the dev-set and GitHub catalogs:
   * such queries' nearest tools stood 0.09–0.23 above the mean (0.25–0.48 in all), so 0.27 alone
   * showed a page of confident hits for each; a real paraphrase with no shared word ("how far away
   * is the airport by car") has maps_distance_matrix 0.31 above it. "hello" (Slack's messaging
   * tools, 0.32) is not told apart. Every query of the retrieval sets shares a word with some tool,
   * so this does not touch their figures.
   */
  noLexicalMargin: number;
  /** The fewest documents in scope for noLexicalMargin to apply (its mean means little below that). */
  noLexicalMinScope: number;
  /**
   * Per-server fusion: each hit gains this share of the best fused score among its own server's
   * tools, so the siblings of the server that answers the query rise together.
   */
  serverWeight: number;
  /**
   * A query of at most this many terms (after stop words) is a short intent ("throw a wedding"):
   * its few words say little about which tools it needs, so meaning weighs more.
   */
  shortQueryTerms: number;
  /** `lexicalWeight` for such a short intent. */
  shortLexicalWeight: number;
  /**
   * BM25F scores are scaled by the best hit's, but by at least this many times the weight of a
   * word found in one tool only (its IDF; so the floor follows the catalog's size): when no tool
   * matches the words well (the best is one common word in a long description), the lexical side
   * stays small and meaning decides, instead of a weak match being scaled up to a full one.
   */
  lexicalFloor: number;
  /**
   * The floor of a query that is one need (one clause: "throw a wedding", "parcel never arrived")
   * is `lexicalFloor` times this. Such a query's whole BM25F is all of its lexical side (a query
   * of several clauses gives the whole only `1 - clauseWeight` of it, each clause's best hit the
   * rest), and a short intent shares few words with the tools it needs, so one word met in a
   * name ("rental" → calculatePropertyROI) counted as much as an exact match. 1 = the same floor
   * for every query (the ranking before 4 December, session 6).
   */
  oneNeedFloorFactor: number;
  /**
   * Weight of a one-need query's WordNet expansion (expansion.ts) in its BM25F, when WordNet is
   * there (`HybridOptions.loadWordNet`): each query word's relatives share it. 0 = no expansion.
   */
  expansionWeight: number;
}

export const HYBRID_DEFAULTS: HybridSettings = {
  lexicalWeight: 0.8,
  floorRank: 50,
  mmrLambda: 1,
  mmrPool: 30,
  clauseWeight: 0.5,
  minCosine: 0.27,
  noLexicalMargin: 0.25,
  noLexicalMinScope: 30,
  serverWeight: 0,
  shortQueryTerms: 0,
  shortLexicalWeight: 0.8,
  lexicalFloor: 1.5,
  oneNeedFloorFactor: 2,
  expansionWeight: EXPANSION_DEFAULTS.weight,
};

export interface HybridOptions {
  /** The lexical side: BM25F (it scores by document position, which the fusion indexes by). */
  lexical: Bm25fIndex;
  /**
   * Loads WordNet for one-need intents' expansion (expansion.ts), called on the first such query;
   * resolves to undefined when it is not installed (or turned off): the ranking is as without it.
   */
  loadWordNet?: () => Promise<WordNet | undefined>;
  /** Resolves to the model or to why it is unavailable; called on the first `prepare`. */
  loadModel: () => Promise<ModelLoad>;
  /**
   * Why the model is off before any load is tried (AGENT_TOOLS_SEMANTIC=off): the first `prepare`
   * says only that (the "off" notice), never that a model is loading, and schedules no load.
   */
  modelOff?: string;
  /** Built once the model is known (its id and size name the cache file). */
  cache?: (model: SentenceModel) => EmbeddingCache;
  /**
   * Where WordNet sense vectors outlive the process (a bounded file beside the catalog's,
   * embedding-cache.ts): a restarted server does not embed again the 10–40 sense texts of each
   * intent word it met before. Default: per process only.
   */
  senseCache?: (model: SentenceModel) => EmbeddingCache;
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
  /**
   * From how many texts to embed the catalog is first given the model's approximate vectors
   * (`SentenceModel.approximate`), so it is ranked semantically within seconds while the model
   * embeds it and its vectors replace them. Default: never. On the data this project tunes on they
   * rank no better than BM25F alone does meanwhile (dev set R@5 56.7% against 54.3%, Seal-Tools
   * 92.0% against 94.3%; docs/search-log.md "Speed at 10,000 tools"), so they are a setting, not the default.
   */
  approximateFrom?: number;
  /**
   * With `modelWaitMs: 0`: what the model's background load waits for before it starts. The
   * runtime passes "its cold cache's listings are over (or a few seconds passed)": the load and
   * the first embedding are seconds of CPU on one core, and the model's hundred-odd MiB make every
   * server the listing starts slower to fork (Node's spawn copies the process's page tables), so
   * beside 50 starting servers on two cores they cost the listing about a third of its time
   * (docs/performance-log.md "Cold cache: the 50-server listing and the first start's memory"). A
 * search never waits for it: BM25F answers meanwhile, as before.
   */
  loadAfter?: () => Promise<unknown>;
  settings?: Partial<HybridSettings>;
  log?: (message: string) => void;
}

interface PluginVectors {
  documents: SearchDocument[];
  /** documents.length × dimensions, unit rows; undefined until embedded. */
  vectors?: Float32Array;
  /** Some rows are still approximate vectors, which the model's own will replace. */
  approximate?: boolean;
}

/** Catalog texts per model call: larger batches cost less per text, but a query may wait behind one in a model thread. */
const EMBED_BATCH = 32;
/** Catalog texts gathered (over several plugins) before they are sorted by length and batched. */
const EMBED_GROUP = 256;
/** Groups of EMBED_GROUP texts queued at once: one embedded, the next waiting in the model's queue. */
const GROUPS_AHEAD = 2;
const FLUSH_EVERY = 2000;
const QUERY_CACHE = 1024;
/** WordNet senses whose vectors are kept (a few dozen per new intent). */
const SENSE_CACHE = 8192;
/**
 * An intent's sense texts per model call, shortest together: the model pads a batch to its longest
 * text, and sense texts run from a word to a long definition (median 64 characters, the longest
 * over 300). The same vectors for about a fifth less of the model's time than one call for all
 * (session 10, docs/search-log.md "WordNet expansion's cost").
 */
const SENSE_BATCH = 8;
/** With modelWaitMs 0: how long after the first search the model starts loading (after its answer is written). */
const MODEL_LOAD_DELAY_MS = 100;
/**
 * The environment setting that turns approximate vectors on for catalogs with at least this many
 * texts to embed (AGENT_TOOLS_SEMANTIC_APPROXIMATE_FROM=1000: about 10 s of the model on two
 * threads; below that the model is soon done, and the piece table's one-off build costs about 5 s
 * of CPU). Off by default.
 */
export const APPROXIMATE_ENV = "AGENT_TOOLS_SEMANTIC_APPROXIMATE_FROM";

/** The setting's value as a count of texts; undefined when unset or off; an error naming the fix when malformed. */
export function approximateFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env[APPROXIMATE_ENV]?.trim();
  if (!raw || raw.toLowerCase() === "off") return undefined;
  const value = positiveInt(raw);
  if (value === undefined) throw new Error(`${APPROXIMATE_ENV}='${raw}' is not a count of texts; use a whole number such as 1000, or off`);
  return value;
}
/** Texts per approximate request: the model's thread answers queries in between. */
const APPROXIMATE_CHUNK = 512;

export interface HybridIndex extends ToolIndex {
  /** Whether the model is loaded and every catalog embedded by it (approximate vectors all replaced). */
  ready(): boolean;
  /** Whether every catalog has vectors, approximate ones included: searches are ranked semantically. */
  searchable(): boolean;
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
  let senseCache: EmbeddingCache | undefined;
  let loading: Promise<void> | undefined;
  /** The background load (modelWaitMs 0) has been scheduled; `loading` is set only once it starts. */
  let loadScheduled = false;
  let embedding: Promise<void> | undefined;
  /** Resolves once the current embedding run has given every catalog vectors (approximate or not). */
  let searchable: Promise<void> = Promise.resolve();
  const approximateFrom = options.approximateFrom ?? Number.POSITIVE_INFINITY;
  /**
   * Notices not yet handed to an answer. Each kind is said once: "waiting" (this answer is BM25F
   * alone while the model loads or the catalog is embedded) and "off" (the model is absent or
   * failed: every answer is); an "off" found after a "waiting" was said is still said.
   */
  const said = new Set<NoticeKind>();
  const pendingNotices: string[] = [];
  /** WordNet once loaded (undefined: not asked for yet, or absent); the load is started once. */
  let wordnet: WordNet | undefined;
  let wordnetLoading: Promise<void> | undefined;
  /** Per one-need query: its expansion's terms at weight 1 per word (scaled by expansionWeight when used); [] for none. */
  const expansions = new Map<string, WeightedTerm[]>();
  /** Queries whose expansion is being made (its sense texts embedded): a search that stops waiting meanwhile ranks without it. */
  const expanding = new Map<string, Promise<void>>();
  const senseVectors = new Map<string, Float32Array>();

  function say(kind: NoticeKind, message: string): void {
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
      senseCache = options.senseCache?.(model);
      // Setting documents before the model was there queued nothing: start on them now.
      void embedPending().catch((error: unknown) => drop(`embedding the catalog failed: ${(error as Error).message}`));
    });
    return loading;
  }

  /**
   * Progressive embedding, first step: when many texts are missing, every plugin without vectors
   * gets its cached ones and approximate ones for the rest, so the catalog is ranked semantically
   * within seconds; embedPending then replaces them with the model's. Whether it gave any; never
   * throws: without approximate vectors the catalog waits for the model's, as before.
   */
  async function approximatePending(current: SentenceModel): Promise<boolean> {
    const approximate = current.approximate;
    if (!approximate || approximateFrom === Number.POSITIVE_INFINITY) return false;
    const dims = current.dimensions;
    const group: { plugin: string; entry: PluginVectors; vectors: Float32Array; missing: number }[] = [];
    const missing: { member: number; at: number; text: string }[] = [];
    for (const [plugin, entry] of plugins) {
      if (entry.vectors) continue;
      const vectors = new Float32Array(entry.documents.length * dims);
      const member = group.length;
      const before = missing.length;
      entry.documents.forEach((doc, at) => {
        const text = embeddingText(doc);
        const known = cache!.get(embeddingKey(current.id, text));
        if (known) vectors.set(known, at * dims);
        else missing.push({ member, at, text });
      });
      group.push({ plugin, entry, vectors, missing: missing.length - before });
    }
    if (missing.length < approximateFrom) return false;
    try {
      for (let i = 0; i < missing.length; i += APPROXIMATE_CHUNK) {
        const chunk = missing.slice(i, i + APPROXIMATE_CHUNK);
        const embedded = await approximate.embed(chunk.map((m) => m.text));
        chunk.forEach((m, j) => group[m.member]!.vectors.set(embedded[j]!, m.at * dims));
      }
    } catch (error) {
      options.log?.(`approximate vectors (${approximate.id}) failed: ${(error as Error).message}; the catalog waits for the model's own`);
      return false;
    }
    for (const { plugin, entry, vectors, missing: count } of group) {
      if (plugins.get(plugin) !== entry || entry.vectors) continue;
      entry.vectors = vectors;
      entry.approximate = count > 0;
      generation++;
    }
    return true;
  }

  /** One step of embedPending: plugins taken together, and their texts the cache did not have. */
  interface EmbedGroup {
    members: { plugin: string; entry: PluginVectors; vectors: Float32Array }[];
    /** One per distinct text (a text several tools share is embedded once): where its vector goes. */
    texts: { text: string; key: string; at: { member: number; row: number }[] }[];
  }

  /**
   * Plugins still without their model's vectors and not `taken` by a group in flight, taken
   * together until they have EMBED_GROUP texts to embed, so a plugin's last few texts do not make
   * a small batch of their own; undefined when there are none.
   */
  function nextGroup(current: SentenceModel, taken: Set<PluginVectors>): EmbedGroup | undefined {
    const dims = current.dimensions;
    const group: EmbedGroup = { members: [], texts: [] };
    const byKey = new Map<string, EmbedGroup["texts"][number]>();
    for (const [plugin, entry] of plugins) {
      if ((entry.vectors && !entry.approximate) || taken.has(entry)) continue;
      taken.add(entry);
      const vectors = new Float32Array(entry.documents.length * dims);
      const member = group.members.push({ plugin, entry, vectors }) - 1;
      entry.documents.forEach((doc, row) => {
        const text = embeddingText(doc);
        const key = embeddingKey(current.id, text);
        const known = cache!.get(key);
        if (known) return vectors.set(known, row * dims);
        const same = byKey.get(key);
        if (same) return void same.at.push({ member, row });
        const missing = { text, key, at: [{ member, row }] };
        byKey.set(key, missing);
        group.texts.push(missing);
      });
      if (group.texts.length >= EMBED_GROUP) break;
    }
    return group.members.length > 0 ? group : undefined;
  }

  /** Embed a group's texts and give its plugins their vectors (where the catalog did not change meanwhile). */
  async function embedGroup(current: SentenceModel, group: EmbedGroup): Promise<void> {
    const dims = current.dimensions;
    // The model pads every text of a batch to the batch's longest: texts of like length
    // together waste least (15% less CPU on the synthetic catalog than in catalog order).
    const missing = [...group.texts].sort((a, b) => a.text.length - b.text.length);
    const batches: (typeof missing)[] = [];
    for (let i = 0; i < missing.length; i += EMBED_BATCH) batches.push(missing.slice(i, i + EMBED_BATCH));
    // All of the group's batches at once: the model hands each to a thread as one comes free
    // (two threads on a large catalog), and lets queries go first.
    await Promise.all(
      batches.map(async (batch) => {
        const embedded = await current.embed(
          batch.map((m) => m.text),
          { bulk: true },
        );
        batch.forEach((m, j) => {
          for (const { member, row } of m.at) group.members[member]!.vectors.set(embedded[j]!, row * dims);
          cache!.set(m.key, embedded[j]!);
        });
      }),
    );
    // The catalog may have changed while embedding: keep the vectors only where it did not.
    for (const { plugin, entry, vectors } of group.members) {
      if (plugins.get(plugin) !== entry) continue;
      entry.vectors = vectors;
      entry.approximate = false;
      generation++;
    }
  }

  /**
   * Embed every plugin whose vectors are missing or approximate: from the cache first, the model
   * for the rest (after a first approximate pass on a large catalog, approximatePending), a group
   * of plugins at a time. The next group's batches are queued while one's are embedded, so the
   * model threads never wait for the main thread between groups.
   */
  function embedPending(): Promise<void> {
    if (!model) return Promise.resolve();
    if (embedding) return embedding;
    let markSearchable!: () => void;
    searchable = new Promise<void>((resolve) => (markSearchable = resolve));
    const current = model;
    embedding = (async () => {
      let unsaved = 0;
      const taken = new Set<PluginVectors>();
      const inFlight = new Set<Promise<void>>();
      try {
        // Searchable early only when approximate vectors were given; else when the model is done.
        if (await approximatePending(current)) markSearchable();
        for (;;) {
          const group = nextGroup(current, taken);
          if (!group) {
            if (inFlight.size === 0) break;
            // Plugins set meanwhile (a catalog changed) are looked for again once a group is done.
            await Promise.race(inFlight);
            continue;
          }
          const done = embedGroup(current, group).then(() => {
            inFlight.delete(done);
            // The cache file is rewritten whole: once at the end, and now and then on a long run so
            // an interrupted first embedding keeps most of its work.
            unsaved += group.texts.length;
            if (unsaved >= FLUSH_EVERY) {
              cache!.flush();
              unsaved = 0;
            }
          });
          // A failure is thrown by the race below; the groups still in flight then end unwatched.
          done.catch(() => {});
          inFlight.add(done);
          if (inFlight.size >= GROUPS_AHEAD) await Promise.race(inFlight);
        }
      } finally {
        markSearchable();
        if (unsaved > 0) cache!.flush();
        embedding = undefined;
      }
    })();
    return embedding;
  }

  /** Whether every plugin in scope has vectors; `exact`: the model's own, none approximate. */
  function scopeReady(only: string | undefined, exact = false): boolean {
    if (!model) return false;
    const done = (entry: PluginVectors | undefined) => !!entry?.vectors && !(exact && entry.approximate);
    if (only !== undefined) return done(plugins.get(only)) || !plugins.has(only);
    for (const entry of plugins.values()) if (!done(entry)) return false;
    return true;
  }

  /** What a search waits for: with a bound, any vectors (approximate ones rank well enough); without one (benchmarks, tests), the model's own. */
  function catalogWork(): Promise<void> {
    const done = embedPending();
    return options.waitMs === undefined ? done : searchable;
  }

  async function queryVector(query: string): Promise<void> {
    if (!model || queryVectors.has(query)) return;
    // A task of several clauses is embedded clause by clause, without the whole: each need gets
    // its own vector, and the model's cost grows faster than a text's length, so short clauses
    // are cheaper than the long whole. One model call for all of them.
    // A mistyped word ("mrege") is embedded as the word it was read as, as BM25F matches it.
    const text = modelQueryText(lexical.correctedText(query));
    const clauses = settings.clauseWeight > 0 ? queryClauses(text) : [];
    const vectors = await model.embed(clauses.length > 1 ? clauses : [text]);
    if (queryVectors.size >= QUERY_CACHE) queryVectors.delete(queryVectors.keys().next().value!);
    queryVectors.set(query, vectors);
  }

  function loadedWordNet(): Promise<WordNet | undefined> {
    wordnetLoading ??= (options.loadWordNet?.() ?? Promise.resolve(undefined)).then(
      (loaded) => void (wordnet = loaded),
      (error: unknown) => options.log?.(`intent expansion is off: ${(error as Error).message}`),
    );
    return wordnetLoading.then(() => wordnet);
  }

  /**
   * A one-need query's WordNet expansion (expansion.ts), when its own words find no tool well:
   * its words' senses nearest the query's vector, and their relatives. Needs the query's vector.
   */
  async function expand(query: string): Promise<void> {
    if (!options.loadWordNet || settings.expansionWeight <= 0 || !model || expansions.has(query)) return;
    const vectors = queryVectors.get(query);
    if (!vectors || vectors.length !== 1 || queryClauses(query).length > 1) return;
    // A repeat while it is being made waits for the same work rather than embedding its senses again.
    let running = expanding.get(query);
    if (!running) {
      running = expandNow(query, vectors[0]!).finally(() => expanding.delete(query));
      expanding.set(query, running);
    }
    await running;
  }

  async function expandNow(query: string, qv: Float32Array): Promise<void> {
    if (expansions.size >= QUERY_CACHE) expansions.delete(expansions.keys().next().value!);
    let best = 0;
    for (const { scores } of lexical.scoreRows(query)) for (const value of scores) if (value > best) best = value;
    const wn = best < EXPANSION_DEFAULTS.weakMatch * bm25Idf(lexical.size(), 1) ? await loadedWordNet() : undefined;
    const candidates = wn ? candidateSenses(query, wn, EXPANSION_DEFAULTS) : [];
    const current = model;
    const keep = (key: string, vector: Float32Array): void => {
      if (senseVectors.size >= SENSE_CACHE) senseVectors.delete(senseVectors.keys().next().value!);
      senseVectors.set(key, vector);
    };
    // Senses not in memory: from the file a former process left (keyed by model and sense text), else the model.
    const files = current ? senseCache : undefined;
    const missing = [...new Map(candidates.flatMap((c) => c.senses).filter((s) => !senseVectors.has(s.key)).map((s) => [s.key, s])).values()]
      .map((synset) => {
        const text = senseText(synset);
        // The file's key (a hash), made once per sense: read here, written below when embedded.
        return { synset, text, key: files ? embeddingKey(current!.id, text) : "" };
      })
      .filter(({ synset, key }) => {
        const stored = files?.get(key);
        if (stored) keep(synset.key, stored);
        return !stored;
      });
    if (missing.length > 0 && current) {
      const embedded = await embedByLength(current, missing.map((m) => m.text), SENSE_BATCH);
      missing.forEach((m, i) => {
        keep(m.synset.key, embedded[i]!);
        files?.set(m.key, embedded[i]!);
      });
      // Written at once: an intent's new senses are a few dozen vectors, appended to a bounded
      // file (SENSE_FILE_ENTRIES in index.ts), so a restart finds them.
      files?.flush();
    }
    const closeness = (synset: { key: string }) => {
      const v = senseVectors.get(synset.key);
      return v ? dotAt(qv, 0, v, 0, qv.length) : -1;
    };
    const chosen = chooseSenses(candidates, closeness, EXPANSION_DEFAULTS);
    expansions.set(query, wn ? expansionTerms(query, chosen, wn, { ...EXPANSION_DEFAULTS, weight: 1 }) : []);
    if (lexicalMemo?.query === query) lexicalMemo = undefined;
  }

  /**
   * Every plugin's documents laid end to end, made again only after the catalog or its vectors
   * changed: a document's position here indexes the per-query score arrays, and the dot-product
   * kernel holds the embedded plugins' rows in the same order.
   */
  interface Layout {
    generation: number;
    plugins: { plugin: string; entry: PluginVectors; at: number }[];
    at: Map<string, number>;
    total: number;
    /** Where each embedded plugin's rows start in the kernel; the kernel is loaded on first use. */
    kernelAt?: Map<string, number>;
  }
  let generation = 0;
  let layout: Layout | undefined;
  let kernel: DotKernel | undefined;

  function currentLayout(): Layout {
    if (layout?.generation === generation) return layout;
    const list: Layout["plugins"] = [];
    const at = new Map<string, number>();
    let total = 0;
    for (const [plugin, entry] of plugins) {
      list.push({ plugin, entry, at: total });
      at.set(plugin, total);
      total += entry.documents.length;
    }
    layout = { generation, plugins: list, at, total };
    return layout;
  }

  /** The kernel holding every embedded plugin's rows, (re)loaded when the layout changed. */
  function kernelRows(current: Layout, dims: number): Map<string, number> {
    if (current.kernelAt) return current.kernelAt;
    const embedded = current.plugins.filter((p) => p.entry.vectors);
    const rows = new Float32Array(embedded.reduce((n, p) => n + p.entry.vectors!.length, 0));
    const kernelAt = new Map<string, number>();
    let row = 0;
    for (const p of embedded) {
      rows.set(p.entry.vectors!, row * dims);
      kernelAt.set(p.plugin, row);
      row += p.entry.documents.length;
    }
    kernel ??= createDotKernel(dims);
    kernel.load(rows, dims);
    current.kernelAt = kernelAt;
    return kernelAt;
  }

  /** The BM25F side of one query: a score per layout position (scaled), and which positions have one. */
  interface Lexical {
    query: string;
    plugin: string | undefined;
    generation: number;
    /** Whether weak matches were held under the floor (only when meaning takes part: see lexicalFloor). */
    floored: boolean;
    scores: Float64Array;
  }
  /** What `prepare` computed while the query was being embedded, for the `search` that follows. */
  let lexicalMemo: Lexical | undefined;

  /**
   * BM25F of the whole query and of each clause, each scaled by its best hit, mixed: the whole
   * query keeps `1 - clauseWeight`, and each document gets the best of its clause scores. `floored`:
   * scaled by at least `lexicalFloor` (`oneNeedFloorFactor` times it for a query of one clause;
   * when fused with meaning; BM25F alone ranks as it always did).
   */
  function lexicalScores(query: string, opts: SearchOptions, floored: boolean): Lexical {
    const current = currentLayout();
    const memo = lexicalMemo;
    if (memo && memo.query === query && memo.plugin === opts.plugin && memo.generation === current.generation && memo.floored === floored) return memo;
    const scope = opts.plugin !== undefined ? { plugin: opts.plugin } : {};
    const scores = new Float64Array(current.total);
    // The IDF of a word found in one tool of the catalog (BM25F's formula).
    const unit = floored ? settings.lexicalFloor * bm25Idf(lexical.size(), 1) : 0;
    const add = (text: string, weight: number, into: Float64Array, combine: "sum" | "max", floor: number, expansion?: readonly WeightedTerm[]) => {
      const own = lexical.scoreRows(text, scope);
      const found = expansion?.length ? sumRows(own, lexical.scoreTerms(expansion, scope)) : own;
      let max = 0;
      for (const { scores: s } of found) for (const value of s) if (value > max) max = value;
      if (max <= 0) return;
      max = Math.max(max, floor);
      for (const { plugin, rows, scores: s } of found) {
        const base = current.at.get(plugin);
        if (base === undefined) continue;
        for (let i = 0; i < rows.length; i++) {
          const at = base + rows[i]!;
          const value = (weight * s[i]!) / max;
          into[at] = combine === "sum" ? into[at]! + value : Math.max(into[at]!, value);
        }
      }
    };
    const clauses = queryClauses(query);
    const cw = clauses.length > 1 ? settings.clauseWeight : 0;
    // A one-need query's expansion takes part only beside meaning (it was chosen by meaning, and
    // BM25F alone ranks as it always did).
    const expansion = floored && cw === 0 && settings.expansionWeight > 0 ? expansions.get(query)?.map((t) => ({ term: t.term, weight: t.weight * settings.expansionWeight })) : undefined;
    add(query, 1 - cw, scores, "sum", cw > 0 ? unit : settings.oneNeedFloorFactor * unit, expansion);
    if (cw > 0) {
      const best = new Float64Array(current.total);
      for (const clause of clauses) add(clause, cw, best, "max", unit);
      for (let i = 0; i < best.length; i++) scores[i]! += best[i]!;
    }
    return { query, plugin: opts.plugin, generation: current.generation, floored, scores };
  }

  /**
   * The fused, diversified ranking (best first, scores falling), or the clause-aware BM25F one
   * when the semantic side cannot take part; `limit` bounds how many hits are made, not `total`.
   */
  function rank(query: string, opts: SearchOptions): SearchAnswer {
    const current = currentLayout();
    const qvs = queryVectors.get(query);
    const withMeaning = !!model && !!qvs && scopeReady(opts.plugin);
    const lex = lexicalScores(query, opts, withMeaning).scores;
    const scope = opts.plugin !== undefined ? current.plugins.filter((p) => p.plugin === opts.plugin) : current.plugins;
    const hitAt = (i: number, score: number): SearchHit => {
      const p = pluginAt(scope, i);
      const doc = p.entry.documents[i - p.at]!;
      return { plugin: p.plugin, kind: doc.kind, name: doc.name, score };
    };
    if (!model || !qvs || !withMeaning) {
      const hits: SearchHit[] = [];
      for (const p of scope) for (let i = p.at; i < p.at + p.entry.documents.length; i++) if (lex[i]! > 0) hits.push(hitAt(i, lex[i]!));
      return rankHits(hits, opts.limit);
    }
    const dims = model.dimensions;
    const kernelAt = kernelRows(current, dims);
    const from = scope[0]?.at ?? 0;
    const total = scope.reduce((n, p) => n + p.entry.documents.length, 0);
    if (total === 0) return { hits: [], total: 0 };
    // Each query vector's cosines, scaled between its best document and the one at floorRank; a
    // document's semantic score is its best over the query's vectors (one per clause). Positions
    // below are relative to `from`: the scope is one plugin or the whole layout, contiguous.
    const cosines = new Float32Array(total);
    const semantic = new Float32Array(total);
    const near = new Uint8Array(total);
    let lexicalMatch = false;
    for (let i = from; i < from + total && !lexicalMatch; i++) lexicalMatch = lex[i]! > 0;
    // The margin over the mean is measured on whole catalogs with the model's own vectors. In a
    // small scope (one plugin's few, similar tools) the mean is high and a real paraphrase ("link
    // alice to bob as colleagues" in memory's nine) cannot clear it; approximate vectors spread
    // less. There the plain minCosine holds, as before the margin.
    const meaningMustStandOut = !lexicalMatch && total >= settings.noLexicalMinScope && scopeReady(opts.plugin, true);
    for (const qv of qvs) {
      for (const p of scope) kernel!.dots(qv, kernelAt.get(p.plugin)!, p.entry.documents.length, cosines.subarray(p.at - from, p.at - from + p.entry.documents.length));
      const { top, floor } = topAndFloor(cosines, settings.floorRank);
      const minCosine = meaningMustStandOut ? Math.max(settings.minCosine, mean(cosines) + settings.noLexicalMargin) : settings.minCosine;
      const span = top - floor || 1;
      for (let i = 0; i < total; i++) {
        const c = cosines[i]!;
        if (c >= minCosine) near[i] = 1;
        const value = (c - floor) / span;
        if (value > semantic[i]!) semantic[i] = value;
      }
    }
    const w = settings.shortQueryTerms > 0 && queryTerms(query).length <= settings.shortQueryTerms ? settings.shortLexicalWeight : settings.lexicalWeight;
    const candidates: number[] = [];
    const fused = new Float64Array(total);
    for (let i = 0; i < total; i++) {
      const lexicalScore = lex[from + i]!;
      const score = w * lexicalScore + (1 - w) * (lexicalScore > 0 || near[i] ? semantic[i]! : 0);
      if (score > 0) {
        fused[i] = score;
        candidates.push(i);
      }
    }
    if (settings.serverWeight > 0) addServerShare(scope, from, fused, settings.serverWeight);
    // Best first; equal scores keep catalog order (as the stable sort of every candidate did).
    const lambda = settings.mmrLambda;
    const head = best(candidates, fused, Math.max(opts.limit ?? candidates.length, lambda < 1 ? settings.mmrPool : 0));
    // MMR over the head of the list: each next pick trades relevance against its nearest
    // already-picked neighbour, so near-duplicates (five "search" tools) give way to the other
    // needs of the task. The tail keeps its fused order.
    const pool = lambda < 1 ? head.slice(0, settings.mmrPool) : [];
    const picked: number[] = [];
    const rowOf = (i: number) => {
      const p = pluginAt(scope, from + i);
      return { vectors: p.entry.vectors!, at: (from + i - p.at) * dims };
    };
    while (pool.length) {
      let chosen = 0;
      let bestValue = -Infinity;
      pool.forEach((i, k) => {
        const a = rowOf(i);
        let nearest = 0;
        for (const j of picked) {
          const b = rowOf(j);
          nearest = Math.max(nearest, dotAt(a.vectors, a.at, b.vectors, b.at, dims));
        }
        const value = lambda * fused[i]! - (1 - lambda) * nearest;
        if (value > bestValue) {
          bestValue = value;
          chosen = k;
        }
      });
      picked.push(pool.splice(chosen, 1)[0]!);
    }
    const ordered = [...picked, ...head.slice(picked.length)].slice(0, opts.limit ?? candidates.length);
    return { hits: orderedScores(ordered, fused).map(({ i, score }) => hitAt(from + i, score)), total: candidates.length };
  }

  return {
    engine: "hybrid",
    ready: () => scopeReady(undefined, true),
    searchable: () => scopeReady(undefined),
    tune(changes) {
      // The query vectors are per clause: made again when the cutting changes.
      const cutting = (s: HybridSettings) => s.clauseWeight > 0;
      const before = cutting(settings);
      Object.assign(settings, changes);
      lexicalMemo = undefined;
      if (cutting(settings) !== before) queryVectors.clear();
    },
    setPluginDocuments(plugin, documents) {
      lexical.setPluginDocuments(plugin, documents);
      plugins.set(plugin, { documents: [...documents] });
      generation++;
      // Whether an intent's own words find a tool well depends on the catalog.
      expansions.clear();
      if (model) void embedPending().catch((error: unknown) => drop(`embedding the catalog failed: ${(error as Error).message}`));
    },
    removePlugin(plugin) {
      lexical.removePlugin(plugin);
      if (plugins.delete(plugin)) generation++;
      expansions.clear();
    },
    size: (plugin) => lexical.size(plugin),
    corrections: (query) => lexical.corrections(query),
    async prepare(query, scope) {
      if (options.modelOff !== undefined) {
        drop(options.modelOff);
        return;
      }
      if (!model && !loading && options.modelWaitMs === 0) {
        // Said and scheduled once: later searches while the load is held (loadAfter) only wait.
        if (loadScheduled) return;
        loadScheduled = true;
        // Not waited for, and started only once this answer is out: the model's first import
        // steps are synchronous CPU that would otherwise hold the answer it does not take part in.
        const load = (): void => void ensureModel().catch((error: unknown) => drop(`loading the sentence model failed: ${(error as Error).message}`));
        setTimeout(() => {
          // A gate that fails does not keep the model out: it only said when to start.
          if (options.loadAfter) void options.loadAfter().then(load, load);
          else load();
        }, MODEL_LOAD_DELAY_MS).unref();
        say("waiting", "semantic search is loading its model; answers are ranked by BM25F alone until it is in");
        return;
      }
      // With the model in, the query goes to its thread now (synchronously), so BM25F below runs
      // on this thread while the model embeds the query on the other core.
      const withVector = () => queryVector(query).then(() => expand(query));
      const work = (model ? Promise.all([catalogWork(), withVector()]) : ensureModel().then(() => model && Promise.all([catalogWork(), withVector()]))).catch(
        (error: unknown) => drop((error as Error).message),
      );
      // Floored as rank() will ask when the query's vector arrives (a scope still being embedded ranks without meaning).
      if (scope) lexicalMemo = lexicalScores(query, scope, model !== undefined && scopeReady(scope.plugin));
      const bound = (ms: number | undefined, done: Promise<unknown>): Promise<boolean> => {
        if (ms === undefined) return done.then(() => false);
        let timer: NodeJS.Timeout | undefined;
        return Promise.race([done.then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), ms)))]).finally(() => clearTimeout(timer));
      };
      // The model's own bound (0 on a warm start: its catalogs are there, answer at once), then the
      // bound on the whole: the worker loads and embeds on; this answer is BM25F alone.
      const late = (!model && options.modelWaitMs !== undefined && (await bound(options.modelWaitMs, ensureModel()))) || (await bound(options.waitMs, work));
      // With the query's vector in and its scope embedded, rank() fuses meaning: only the
      // expansion (if one is being made) is left out, and the notice says that, not "BM25F alone".
      const withMeaning = !!model && queryVectors.has(query) && scopeReady(scope?.plugin);
      if (late && withMeaning) {
        if (expanding.has(query))
          say(
            "expansion",
            "this intent's WordNet expansion was not ready within the search's wait: the answer is ranked by BM25F and the query's own meaning, without the related words WordNet adds; the expansion is being finished in the background, so asking again includes it",
          );
      } else if (late) say("waiting", `semantic search is ${!model ? "still loading its model" : scopeReady(undefined) ? "slow to embed the query" : "still embedding the catalog"}; answers are ranked by BM25F alone until it is ready`);
      else if (model && scopeReady(scope?.plugin) && !scopeReady(scope?.plugin, true))
        say("approximate", "semantic search ranks this large catalog with approximate vectors while its model embeds it; answers sharpen once that is done");
    },
    async warm() {
      await ensureModel();
      await embedPending().catch((error: unknown) => options.log?.(`embedding the catalog failed: ${(error as Error).message}`));
    },
    takeNotice() {
      return pendingNotices.length ? pendingNotices.splice(0).join("; ") : undefined;
    },
    search(query, opts = {}) {
      return rank(query, opts);
    },
  };
}

/**
 * The notices an answer may carry, each said once: "waiting" (BM25F alone for now), "approximate"
 * (ranked with approximate vectors for now), "off" (BM25F alone for good), "expansion" (meaning
 * fused, but an intent's WordNet expansion was not ready in time: a repeat has it).
 */
type NoticeKind = "waiting" | "approximate" | "off" | "expansion";

/**
 * Per-server fusion, in place: every hit (score > 0) gains `weight` × the best fused score among
 * its server's documents. `fused` is indexed from `from` over the scope's contiguous plugins.
 */
export function addServerShare(scope: readonly { at: number; entry: { documents: unknown[] } }[], from: number, fused: Float64Array, weight: number): void {
  for (const p of scope) {
    const start = p.at - from;
    const end = start + p.entry.documents.length;
    let top = 0;
    for (let i = start; i < end; i++) if (fused[i]! > top) top = fused[i]!;
    if (top <= 0) continue;
    const share = weight * top;
    for (let i = start; i < end; i++) if (fused[i]! > 0) fused[i]! += share;
  }
}

/**
 * Each ranked candidate with its fused score, held to at most the score of the one before it, so
 * the scores keep the order MMR chose (callers sort by score again) while still saying how good a
 * hit is. Callers weigh hits by score (ranked-window.ts: an unconfigured plugin's hit × 0.9), so
 * the score must be the fused one: a rank position (count − rank, as before 7 December) let that
 * weight push the best unconfigured hit below every configured hit of the first few ranks,
 * however weak they were.
 */
export function orderedScores(ordered: readonly number[], fused: Float64Array): { i: number; score: number }[] {
  let previous = Infinity;
  return ordered.map((i) => {
    previous = Math.min(previous, fused[i]!);
    return { i, score: previous };
  });
}

/** The plugin of the scope (contiguous, in layout order) that holds layout position `i`. */
function pluginAt<P extends { at: number; entry: { documents: unknown[] } }>(scope: readonly P[], i: number): P {
  let lo = 0;
  let hi = scope.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (scope[mid]!.at <= i) lo = mid;
    else hi = mid - 1;
  }
  return scope[lo]!;
}

function mean(values: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i]!;
  return values.length ? sum / values.length : 0;
}

/**
 * The largest value and the one at rank `floorRank` below it (0-based; the smallest when there are
 * fewer), found with a small sorted window instead of sorting every cosine.
 */
export function topAndFloor(values: Float32Array, floorRank: number): { top: number; floor: number } {
  const k = Math.min(floorRank + 1, values.length);
  if (k === 0) return { top: 0, floor: 0 };
  // window[0] is the largest kept; window[k - 1] the k-th largest so far.
  const window = new Float64Array(k).fill(-Infinity);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v <= window[k - 1]!) continue;
    let j = k - 1;
    while (j > 0 && window[j - 1]! < v) {
      window[j] = window[j - 1]!;
      j--;
    }
    window[j] = v;
  }
  return { top: window[0]!, floor: window[k - 1]! };
}

/**
 * The `k` best candidates by score, best first; equal scores keep the candidates' order. A
 * bounded insertion when `k` is small (a search's top ten of thousands), a full sort otherwise.
 */
export function best(candidates: readonly number[], scores: Float64Array, k: number): number[] {
  if (k >= candidates.length / 4) {
    const order = candidates.map((i, position) => ({ i, position }));
    order.sort((a, b) => scores[b.i]! - scores[a.i]! || a.position - b.position);
    return order.slice(0, k).map((o) => o.i);
  }
  const kept: number[] = [];
  for (const i of candidates) {
    const score = scores[i]!;
    if (kept.length === k && score <= scores[kept[k - 1]!]!) continue;
    // After every kept candidate with a score at least as high (they came first).
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (scores[kept[mid]!]! >= score) lo = mid + 1;
      else hi = mid;
    }
    kept.splice(lo, 0, i);
    if (kept.length > k) kept.pop();
  }
  return kept;
}

/** `texts` embedded in batches of at most `size` texts of like length (all sent at once); vectors in the order of `texts`. */
async function embedByLength(model: SentenceModel, texts: readonly string[], size: number): Promise<Float32Array[]> {
  const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length);
  const batches: number[][] = [];
  for (let i = 0; i < order.length; i += size) batches.push(order.slice(i, i + size));
  const vectors: Float32Array[] = new Array<Float32Array>(texts.length);
  await Promise.all(
    batches.map(async (batch) => {
      const embedded = await model.embed(batch.map((i) => texts[i]!));
      batch.forEach((i, j) => (vectors[i] = embedded[j]!));
    }),
  );
  return vectors;
}

/** Row scores of two rankings of the same documents, added per plugin and row. */
export function sumRows(a: readonly RowScores[], b: readonly RowScores[]): RowScores[] {
  if (b.length === 0) return [...a];
  const byPlugin = new Map<string, Map<number, number>>();
  for (const { plugin, rows, scores } of [...a, ...b]) {
    let sums = byPlugin.get(plugin);
    if (!sums) byPlugin.set(plugin, (sums = new Map()));
    for (let i = 0; i < rows.length; i++) sums.set(rows[i]!, (sums.get(rows[i]!) ?? 0) + scores[i]!);
  }
  return [...byPlugin].map(([plugin, sums]) => ({ plugin, rows: [...sums.keys()], scores: [...sums.values()] }));
}
