import MiniSearch from "minisearch";
import { expandTerms } from "./synonyms.js";
import { queryTerms as defaultQueryTerms, splitWords, tokenize as defaultTokenize } from "./tokenize.js";
import { FIELD_NAMES, rankHits, type SearchDocument, type SearchHit, type ToolIndex } from "./types.js";

/**
 * The same contract on minisearch 7 (BM25+ per field, summed with field boosts). Our tokenizer
 * does the word splitting and stemming, so both engines see the same terms and differ only in
 * scoring. Documents are keyed plugin/kind/name; a plugin's documents are discarded and re-added
 * when its catalog changes.
 */

export interface MiniSearchSettings {
  boost: Readonly<Record<(typeof FIELD_NAMES)[number], number>>;
  bm25: { k: number; b: number; d: number };
  /** Prefix matching of the last query word (as-you-type); off by default: it adds noise to full queries. */
  prefix: boolean;
  fuzzy: number | false;
  /** Weight of a query word's relatives (synonyms.ts); 0 = no expansion. */
  expansion: number;
  tokenize: (text: string) => string[];
  queryTerms: (query: string) => string[];
}

export const MINISEARCH_DEFAULTS: MiniSearchSettings = {
  boost: { name: 4, title: 1.5, description: 1.5, params: 0.6, values: 0.6, plugin: 0.2 },
  bm25: { k: 1.2, b: 0.7, d: 0.5 },
  prefix: false,
  fuzzy: false,
  expansion: 0.5,
  tokenize: defaultTokenize,
  queryTerms: defaultQueryTerms,
};

interface Stored extends SearchDocument {
  id: string;
}

export function createMiniSearchIndex(overrides: Partial<MiniSearchSettings> = {}): ToolIndex {
  const settings: MiniSearchSettings = { ...MINISEARCH_DEFAULTS, ...overrides };
  const idsByPlugin = new Map<string, string[]>();
  const byId = new Map<string, Stored>();
  /** The weights of the query being run, read by boostTerm. */
  let termWeights = new Map<string, number>();
  const mini = new MiniSearch<Stored>({
    fields: [...FIELD_NAMES],
    idField: "id",
    extractField: (doc, field) => (field === "id" ? doc.id : doc.fields[field as keyof SearchDocument["fields"]]),
    // Terms arrive already processed from our tokenizer, so minisearch's own steps are identity.
    tokenize: (text) => settings.tokenize(text),
    processTerm: (term) => term,
    searchOptions: {
      tokenize: (text) => {
        const weighted = expandTerms(settings.queryTerms(text), settings.expansion);
        termWeights = new Map(weighted.map((w) => [w.term, w.weight]));
        return weighted.map((w) => w.term);
      },
      processTerm: (term) => term,
      boostTerm: (term) => termWeights.get(term) ?? 1,
      boost: { ...settings.boost },
      bm25: settings.bm25,
      prefix: settings.prefix,
      fuzzy: settings.fuzzy,
      combineWith: "OR",
    },
    autoVacuum: false,
  });

  function removePlugin(plugin: string): void {
    const ids = idsByPlugin.get(plugin);
    if (!ids) return;
    for (const id of ids) {
      mini.discard(id);
      byId.delete(id);
    }
    idsByPlugin.delete(plugin);
    if (mini.dirtCount > 1000) void mini.vacuum();
  }

  return {
    engine: "minisearch",
    setPluginDocuments(plugin, documents) {
      removePlugin(plugin);
      const stored = new Map<string, Stored>();
      for (const doc of documents) {
        const id = `${doc.plugin}\u0000${doc.kind}\u0000${doc.name}`;
        stored.set(id, { ...doc, id });
      }
      mini.addAll([...stored.values()]);
      for (const [id, doc] of stored) byId.set(id, doc);
      idsByPlugin.set(plugin, [...stored.keys()]);
    },
    removePlugin,
    size(plugin) {
      return plugin !== undefined ? (idsByPlugin.get(plugin)?.length ?? 0) : mini.documentCount;
    },
    search(query, options = {}) {
      if (splitWords(query).length === 0 || mini.documentCount === 0) return { hits: [], total: 0 };
      const results = mini.search(query, options.plugin !== undefined ? { filter: (r) => byId.get(r.id as string)?.plugin === options.plugin } : {});
      const hits: SearchHit[] = [];
      for (const result of results) {
        const doc = byId.get(result.id as string);
        if (doc) hits.push({ plugin: doc.plugin, kind: doc.kind, name: doc.name, score: result.score });
      }
      return rankHits(hits, options.limit);
    },
  };
}
