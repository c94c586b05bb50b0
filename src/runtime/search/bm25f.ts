import { FIELD_NAMES, rankHits, type RowScores, type SearchDocument, type SearchHit, type SearchOptions, type ToolIndex } from "./types.js";
import { expandTerms, type WeightedTerm } from "./synonyms.js";
import { tokenize as defaultTokenize, queryTerms as defaultQueryTerms } from "./tokenize.js";

/** BM25's inverse document frequency of a term found in `df` of `count` documents (never negative). */
export function bm25Idf(count: number, df: number): number {
  return Math.log(1 + (count - df + 0.5) / (df + 0.5));
}

/**
 * The owned engine: BM25F (Robertson & Zaragoza). Each field's term frequency is normalised by
 * that field's own length against its own average, weighted, summed, and only then saturated with
 * k1 — so a word in a short name counts for more than the same word in a long description, and
 * one word repeated across fields does not add up linearly. Postings are kept per plugin, so a
 * plugin's catalog is replaced without touching the others; document frequencies are global and
 * updated incrementally.
 */

export interface Bm25fSettings {
  weights: Readonly<Record<(typeof FIELD_NAMES)[number], number>>;
  /** Length normalisation per field (0 = none, 1 = full). */
  b: Readonly<Record<(typeof FIELD_NAMES)[number], number>>;
  k1: number;
  /** Weight of a query word's action/vocabulary relatives (synonyms.ts); 0 = no expansion. */
  expansion: number;
  /**
   * A tool whose name the query spells (the query's own words are the name's words, stop words
   * and endings aside: "read a file" → read_file) ranks above every tool whose name it does not.
   */
  nameFirst: boolean;
  tokenize: (text: string) => string[];
  queryTerms: (query: string) => string[];
}

export const BM25F_DEFAULTS: Bm25fSettings = {
  weights: { name: 4, title: 1.5, description: 1.5, params: 0.6, values: 0.6, plugin: 0.2 },
  b: { name: 0.5, title: 0.5, description: 0.75, params: 0.75, values: 0.75, plugin: 0.75 },
  k1: 1.2,
  expansion: 0.5,
  nameFirst: true,
  tokenize: defaultTokenize,
  queryTerms: defaultQueryTerms,
};

const FIELD_COUNT = FIELD_NAMES.length;

const STRIDE = FIELD_COUNT + 1;

const NAME_FIELD = FIELD_NAMES.indexOf("name");

/**
 * One plugin's postings in compressed-row form: `terms` gives a term's id, its postings are
 * entries offsets[id] … offsets[id + 1] − 1 of `data`, each [docIndex, tf per field]. Typed arrays
 * instead of an array per term keep 100,000 tools to a few allocations per plugin.
 */
interface PluginPostings {
  documents: SearchDocument[];
  terms: Map<string, number>;
  offsets: Int32Array;
  data: Int32Array;
  /** FIELD_COUNT lengths per document, flat. */
  lengths: Float64Array;
  /** Sum of each field's length over the plugin's documents. */
  fieldTotals: number[];
}

/** BM25F as the hybrid engine uses it: rows by a query, and rows by weighted terms of its own (an intent's expansion). */
export type Bm25fIndex = ToolIndex &
  Required<Pick<ToolIndex, "scoreRows">> & {
    /** Rows scored by these terms (already search terms: stemmed) at their weights, without name-first or synonyms. */
    scoreTerms(terms: readonly WeightedTerm[], options?: SearchOptions): RowScores[];
  };

export function createBm25fIndex(overrides: Partial<Bm25fSettings> = {}): Bm25fIndex {
  const settings: Bm25fSettings = { ...BM25F_DEFAULTS, ...overrides };
  const weights = FIELD_NAMES.map((f) => settings.weights[f]);
  const bs = FIELD_NAMES.map((f) => settings.b[f]);
  const byPlugin = new Map<string, PluginPostings>();
  const documentFrequency = new Map<string, number>();
  const fieldTotals = new Array<number>(FIELD_COUNT).fill(0);
  let count = 0;

  function build(documents: readonly SearchDocument[]): PluginPostings {
    const termIds = new Map<string, number>();
    /** [termId, docIndex, tf per field] per (document, term), in document order. */
    let entries = new Int32Array(256 * (STRIDE + 1));
    let used = 0;
    const lengths = new Float64Array(documents.length * FIELD_COUNT);
    const totals = new Array<number>(FIELD_COUNT).fill(0);
    // Every tool of a plugin carries the same plugin text: tokenize it once.
    const seen = new Map<string, string[]>();
    const terms = (text: string) => {
      let found = seen.get(text);
      if (!found) seen.set(text, (found = settings.tokenize(text)));
      return found;
    };
    // One scratch table reused for every document (term → its row of per-field counts): a
    // Map and an array per document made the garbage collector the main cost at 100,000 tools.
    const slots = new Map<string, number>();
    let rows = new Int32Array(64 * FIELD_COUNT);
    documents.forEach((doc, d) => {
      slots.clear();
      for (let f = 0; f < FIELD_COUNT; f++) {
        const field = FIELD_NAMES[f]!;
        const text = doc.fields[field];
        if (!text) continue;
        const words = field === "plugin" ? terms(text) : settings.tokenize(text);
        lengths[d * FIELD_COUNT + f] = words.length;
        totals[f] = (totals[f] ?? 0) + words.length;
        for (const term of words) {
          let slot = slots.get(term);
          if (slot === undefined) {
            slot = slots.size;
            slots.set(term, slot);
            if ((slot + 1) * FIELD_COUNT > rows.length) {
              const grown = new Int32Array(rows.length * 2);
              grown.set(rows);
              rows = grown;
            }
            rows.fill(0, slot * FIELD_COUNT, (slot + 1) * FIELD_COUNT);
          }
          rows[slot * FIELD_COUNT + f]! += 1;
        }
      }
      for (const [term, slot] of slots) {
        let id = termIds.get(term);
        if (id === undefined) termIds.set(term, (id = termIds.size));
        if (used + STRIDE + 1 > entries.length) {
          const grown = new Int32Array(entries.length * 2);
          grown.set(entries);
          entries = grown;
        }
        entries[used++] = id;
        entries[used++] = d;
        for (let f = 0; f < FIELD_COUNT; f++) entries[used++] = rows[slot * FIELD_COUNT + f]!;
      }
    });
    // Group the entries by term: count, prefix sums, fill.
    const offsets = new Int32Array(termIds.size + 1);
    for (let i = 0; i < used; i += STRIDE + 1) offsets[entries[i]! + 1]! += 1;
    for (let t = 0; t < termIds.size; t++) offsets[t + 1]! += offsets[t]!;
    const cursor = offsets.slice(0, termIds.size);
    const data = new Int32Array(offsets[termIds.size]! * STRIDE);
    for (let i = 0; i < used; i += STRIDE + 1) {
      const at = cursor[entries[i]!]!++ * STRIDE;
      data.set(entries.subarray(i + 1, i + 1 + STRIDE), at);
    }
    return { documents: [...documents], terms: termIds, offsets, data, lengths, fieldTotals: totals };
  }

  function account(entry: PluginPostings, sign: 1 | -1): void {
    count += sign * entry.documents.length;
    entry.fieldTotals.forEach((total, f) => (fieldTotals[f] = (fieldTotals[f] ?? 0) + sign * total));
    for (const [term, id] of entry.terms) {
      const next = (documentFrequency.get(term) ?? 0) + sign * (entry.offsets[id + 1]! - entry.offsets[id]!);
      if (next > 0) documentFrequency.set(term, next);
      else documentFrequency.delete(term);
    }
  }

  function removePlugin(plugin: string): void {
    const old = byPlugin.get(plugin);
    if (!old) return;
    account(old, -1);
    byPlugin.delete(plugin);
  }

  /**
   * Each matching document's score by its position in its plugin's documents, in no order: the
   * hybrid engine fuses these by position, without a hit object or a sort per document.
   */
  function scoreRows(query: string, options: SearchOptions = {}): RowScores[] {
    const ownTerms = settings.queryTerms(query);
    // The query's own words (once each) come first in `weighted`, their relatives after.
    return scoreWeighted(expandTerms(ownTerms, settings.expansion), new Set(ownTerms).size, settings.nameFirst, options);
  }

  /**
   * Rows scored by weighted terms; the first `own` are the query's own words (the name-first
   * bonus looks at those only). A term listed twice counts twice.
   */
  function scoreWeighted(weighted: readonly WeightedTerm[], own: number, nameFirst: boolean, options: SearchOptions): RowScores[] {
    if (weighted.length === 0 || count === 0) return [];
    const terms = weighted.map((w) => w.term);
    const averages = fieldTotals.map((total) => total / count || 1);
    const idfs = weighted.map(({ term, weight }) => {
      const df = documentFrequency.get(term) ?? 0;
      return weight * bm25Idf(count, df);
    });
    // No document's score reaches the sum of the IDFs (each term adds its IDF times less than 1):
    // added to a tool whose name the query spells, it puts that tool above every other.
    const nameBonus = nameFirst && own > 0 ? idfs.reduce((a, b) => a + b, 0) : 0;
    const pools: [string, PluginPostings][] =
      options.plugin !== undefined ? (byPlugin.has(options.plugin) ? [[options.plugin, byPlugin.get(options.plugin)!]] : []) : [...byPlugin];
    const out: RowScores[] = [];
    for (const [plugin, entry] of pools) {
      const scores = new Map<number, number>();
      /** Per document: how many of the query's own words its name has, and how many of its name's words they are. */
      const inName = nameBonus > 0 ? new Map<number, { words: number; tf: number }>() : undefined;
      const { data, offsets, lengths } = entry;
      terms.forEach((term, t) => {
        const id = entry.terms.get(term);
        if (id === undefined) return;
        for (let i = offsets[id]! * STRIDE, end = offsets[id + 1]! * STRIDE; i < end; i += STRIDE) {
          const d = data[i]!;
          let weighted = 0;
          for (let f = 0; f < FIELD_COUNT; f++) {
            const tf = data[i + 1 + f]!;
            if (tf === 0) continue;
            const norm = 1 - bs[f]! + (bs[f]! * lengths[d * FIELD_COUNT + f]!) / averages[f]!;
            weighted += (weights[f]! * tf) / norm;
          }
          scores.set(d, (scores.get(d) ?? 0) + (idfs[t]! * weighted) / (settings.k1 + weighted));
          const nameTf = data[i + 1 + NAME_FIELD]!;
          if (inName && t < own && nameTf > 0) {
            const seen = inName.get(d);
            if (seen) {
              seen.words += 1;
              seen.tf += nameTf;
            } else inName.set(d, { words: 1, tf: nameTf });
          }
        }
      });
      // Spelled: every own word is in the name, and they make up the whole name.
      if (inName) for (const [d, { words, tf }] of inName) if (words === own && tf === lengths[d * FIELD_COUNT + NAME_FIELD]) scores.set(d, scores.get(d)! + nameBonus);
      if (scores.size > 0) out.push({ plugin, rows: [...scores.keys()], scores: [...scores.values()] });
    }
    return out;
  }

  return {
    engine: "bm25f",
    setPluginDocuments(plugin, documents) {
      removePlugin(plugin);
      const entry = build(documents);
      byPlugin.set(plugin, entry);
      account(entry, 1);
    },
    removePlugin,
    size(plugin) {
      return plugin !== undefined ? (byPlugin.get(plugin)?.documents.length ?? 0) : count;
    },
    scoreRows,
    scoreTerms: (terms, options = {}) => scoreWeighted(terms, 0, false, options),
    search(query, options = {}) {
      const hits: SearchHit[] = [];
      for (const { plugin, rows, scores } of scoreRows(query, options)) {
        const documents = byPlugin.get(plugin)!.documents;
        rows.forEach((d, i) => {
          const doc = documents[d]!;
          hits.push({ plugin, kind: doc.kind, name: doc.name, score: scores[i]! });
        });
      }
      return rankHits(hits, options.limit);
    },
  };
}
