import { FIELD_NAMES, rankHits, type RowScores, type SearchDocument, type SearchHit, type SearchOptions, type ToolIndex } from "./types.js";
import { expandTerms, hasRelatives, type WeightedTerm } from "./synonyms.js";
import { splitWords, tokenize as defaultTokenize, queryTerms as defaultQueryTerms } from "./tokenize.js";

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
  /**
   * Weight of a vocabulary word one edit (Damerau: a transposition counts as one) away from a
   * query word of 4 or more letters that no document has ("lsit" → list); 0 = no typo matching.
   */
  typo: number;
  tokenize: (text: string) => string[];
  queryTerms: (query: string) => string[];
}

export const BM25F_DEFAULTS: Bm25fSettings = {
  weights: { name: 4, title: 1.5, description: 1.5, params: 0.6, values: 0.6, plugin: 0.2 },
  b: { name: 0.5, title: 0.5, description: 0.75, params: 0.75, values: 0.75, plugin: 0.75 },
  k1: 1.2,
  expansion: 0.5,
  nameFirst: true,
  typo: 0.5,
  tokenize: defaultTokenize,
  queryTerms: defaultQueryTerms,
};

const FIELD_COUNT = FIELD_NAMES.length;

/** Query words shorter than this are never read as typos, nor read as shorter words (one edit from "list" is "lit", "lost", "lisp"…). */
const MIN_TYPO_LENGTH = 4;
/**
 * Query words shorter than this are read only as two letters swapped ("lsit" → list). One letter
 * inserted, dropped or changed in a short word mostly makes another real word: "note" was read as
 * "node" (memory's search_nodes first for "store a note") and "away" as "always".
 */
const FULL_EDIT_LENGTH = 6;
/** At most this many vocabulary words stand for one unknown query word. */
const MAX_TYPO_FIXES = 3;

const LETTERS = "abcdefghijklmnopqrstuvwxyz";

/** Whether `b` is `a` with two adjacent letters swapped. */
function isSwap(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i + 1 < a.length && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
}

/** The first spelling one edit from `word` (as oneEditApart counts them: swaps first) that `wanted` accepts. */
function oneEditSpelling(word: string, wanted: (spelling: string) => boolean): string | undefined {
  for (let i = 0; i + 1 < word.length; i++) {
    const swapped = word.slice(0, i) + word[i + 1]! + word[i]! + word.slice(i + 2);
    if (wanted(swapped)) return swapped;
  }
  for (let i = 1; i <= word.length; i++) {
    if (i < word.length && wanted(word.slice(0, i) + word.slice(i + 1))) return word.slice(0, i) + word.slice(i + 1);
    for (const letter of LETTERS) {
      if (i < word.length && wanted(word.slice(0, i) + letter + word.slice(i + 1))) return word.slice(0, i) + letter + word.slice(i + 1);
      if (wanted(word.slice(0, i) + letter + word.slice(i))) return word.slice(0, i) + letter + word.slice(i);
    }
  }
  return undefined;
}

/**
 * Whether `a` and `b` (different) are one edit apart: two adjacent letters swapped, or one letter
 * inserted, deleted or replaced after the first.
 */
export function oneEditApart(a: string, b: string): boolean {
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > 1) return false;
  let i = 0;
  while (i < la && i < lb && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (la === lb) {
    if (i === la) return false;
    if (i + 1 < la && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2)) return true;
    // Other edits keep the first letter: people seldom mistype it, and one letter changed at the
    // front of a real word makes another real word ("then"/"when", "rust"/"must", "lead"/"read").
    return i > 0 && a.slice(i + 1) === b.slice(i + 1);
  }
  if (i === 0) return false;
  return la > lb ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

const STRIDE = FIELD_COUNT + 1;

const NAME_FIELD = FIELD_NAMES.indexOf("name");
const PLUGIN_FIELD = FIELD_NAMES.indexOf("plugin");

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
  /** Per term id: how many documents have the term in their own fields (see `ownCounts`). */
  own: Int32Array;
}

/** BM25F as the hybrid engine uses it: rows by a query, and rows by weighted terms of its own (an intent's expansion). */
export type Bm25fIndex = ToolIndex &
  Required<Pick<ToolIndex, "scoreRows" | "corrections">> & {
    /** The query with its words read as others by swapped letters spelled so (for the sentence model: "mrege the PR" → "merge the PR"). */
    correctedText(query: string): string;
    /** Rows scored by these terms (already search terms: stemmed) at their weights, without name-first or synonyms. */
    scoreTerms(terms: readonly WeightedTerm[], options?: SearchOptions): RowScores[];
  };

export function createBm25fIndex(overrides: Partial<Bm25fSettings> = {}): Bm25fIndex {
  const settings: Bm25fSettings = { ...BM25F_DEFAULTS, ...overrides };
  const weights = FIELD_NAMES.map((f) => settings.weights[f]);
  const bs = FIELD_NAMES.map((f) => settings.b[f]);
  const byPlugin = new Map<string, PluginPostings>();
  const documentFrequency = new Map<string, number>();
  /**
   * Documents that have the term outside their plugin's text. A term's weight (IDF) is by these
   * when there are any: a word of a plugin's text weighs what the tools' own texts make it weigh.
   * A word only plugin texts have keeps the count of every tool that carries it, so it lifts the
   * plugin it names no more than before (counted once, "everything" in a server's name weighed as
   * a rare word, and "pull up everything linked to it" drew that server's tools above the notes
   * graph's).
   */
  const ownFrequency = new Map<string, number>();
  const weighingFrequency = (term: string): number => ownFrequency.get(term) ?? documentFrequency.get(term) ?? 0;
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
    return { documents: [...documents], terms: termIds, offsets, data, lengths, fieldTotals: totals, own: ownCounts(termIds.size, offsets, data) };
  }

  /**
   * Per term, how many of one plugin's documents have it in their own fields (all but the plugin's
   * text). Every tool of a plugin carries that text (its name, description, and for a config
   * entry without one the words most of its tools share), so counted with it a word the plugin is
   * about ("issues" for a GitHub server) was in all of its tools and weighed nearly nothing:
   * "list open issues" ranked list_dependabot_alerts above list_issues.
   */
  function ownCounts(termCount: number, offsets: Int32Array, data: Int32Array): Int32Array {
    const counts = new Int32Array(termCount);
    for (let t = 0; t < termCount; t++) {
      for (let i = offsets[t]! * STRIDE, end = offsets[t + 1]! * STRIDE; i < end; i += STRIDE) {
        for (let f = 0; f < FIELD_COUNT; f++) {
          if (f === PLUGIN_FIELD || data[i + 1 + f] === 0) continue;
          counts[t]! += 1;
          break;
        }
      }
    }
    return counts;
  }

  function account(entry: PluginPostings, sign: 1 | -1): void {
    byLength = undefined;
    count += sign * entry.documents.length;
    entry.fieldTotals.forEach((total, f) => (fieldTotals[f] = (fieldTotals[f] ?? 0) + sign * total));
    for (const [term, id] of entry.terms) {
      const next = (documentFrequency.get(term) ?? 0) + sign * (entry.offsets[id + 1]! - entry.offsets[id]!);
      if (next > 0) documentFrequency.set(term, next);
      else documentFrequency.delete(term);
      const own = (ownFrequency.get(term) ?? 0) + sign * entry.own[id]!;
      if (own > 0) ownFrequency.set(term, own);
      else ownFrequency.delete(term);
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
    const ownTerms = [...new Set(settings.queryTerms(query))];
    const fixes = typoFixes(ownTerms);
    if (fixes.size === 0) {
      // The query's own words (once each) come first in `weighted`, their relatives after.
      return scoreWeighted(expandTerms(ownTerms, settings.expansion), ownTerms.map((_, i) => i), settings.nameFirst, options);
    }
    // A word no document has stands for the vocabulary words one edit away, at the typo weight:
    // in its own slot (a tool whose name the corrected query spells still comes first).
    const own: WeightedTerm[] = [];
    const slots: number[] = [];
    ownTerms.forEach((term, slot) => {
      for (const fixed of fixes.get(term) ?? [term]) {
        if (own.some((w) => w.term === fixed)) continue;
        own.push({ term: fixed, weight: fixes.has(term) ? settings.typo : 1 });
        slots.push(slot);
      }
    });
    // The relatives of the query's own words and of the corrections, each once.
    const relatives: WeightedTerm[] = [];
    for (const w of [...expandTerms(ownTerms, settings.expansion).slice(ownTerms.length), ...expandTerms(own.map((o) => o.term), settings.expansion).slice(own.length)])
      if (!own.some((o) => o.term === w.term) && !relatives.some((r) => r.term === w.term)) relatives.push(w);
    return scoreWeighted([...own, ...relatives], slots, settings.nameFirst, options);
  }

  /**
   * The query's words read as others, as the query spells them and as a word ("cahnged" as
   * "changed", whose search term "chang" is the vocabulary's): one edit of the word whose term
   * is the correction's, else the correction's term itself.
   */
  function readAs(query: string): { word: string; as: string }[] {
    const fixes = typoFixes([...new Set(settings.queryTerms(query))]);
    if (fixes.size === 0) return [];
    const out: { word: string; as: string }[] = [];
    for (const word of new Set(splitWords(query))) {
      const term = settings.queryTerms(word)[0];
      const fixed = term !== undefined ? fixes.get(term)?.[0] : undefined;
      if (fixed === undefined || out.some((c) => c.word === word)) continue;
      out.push({ word, as: oneEditSpelling(word, (w) => settings.queryTerms(w)[0] === fixed) ?? fixed });
    }
    return out;
  }

  /** Vocabulary words by length, made again when the vocabulary has changed (for typo matching). */
  let byLength: Map<number, string[]> | undefined;

  /** Each query term of 4+ characters that no document has → the vocabulary terms one edit away (none: left out). */
  function typoFixes(terms: readonly string[]): Map<string, string[]> {
    const fixes = new Map<string, string[]>();
    if (settings.typo <= 0) return fixes;
    for (const term of terms) {
      // A word with relatives (synonyms.ts: "save" looks for create and add) is a word, not a typo.
      if (term.length < MIN_TYPO_LENGTH || documentFrequency.has(term) || !/^[a-z]+$/.test(term) || hasRelatives(term)) continue;
      if (!byLength) {
        byLength = new Map();
        for (const word of documentFrequency.keys()) {
          const bucket = byLength.get(word.length);
          if (bucket) bucket.push(word);
          else byLength.set(word.length, [word]);
        }
      }
      const found: string[] = [];
      const near = term.length < FULL_EDIT_LENGTH ? isSwap : oneEditApart;
      for (let length = Math.max(MIN_TYPO_LENGTH, term.length - 1); length <= term.length + 1; length++) for (const word of byLength.get(length) ?? []) if (near(term, word)) found.push(word);
      if (found.length === 0) continue;
      // The commonest first, at most MAX_TYPO_FIXES of them (a short word can be one edit from many).
      found.sort((a, b) => documentFrequency.get(b)! - documentFrequency.get(a)! || a.localeCompare(b));
      fixes.set(term, found.slice(0, MAX_TYPO_FIXES));
    }
    return fixes;
  }

  /**
   * Rows scored by weighted terms; the first `slots.length` are the query's own words, `slots[t]`
   * naming which word of the query term t stands for (the name-first bonus looks at those only,
   * and needs every word of the query). A term listed twice counts twice.
   */
  function scoreWeighted(weighted: readonly WeightedTerm[], slots: readonly number[], nameFirst: boolean, options: SearchOptions): RowScores[] {
    if (weighted.length === 0 || count === 0) return [];
    const terms = weighted.map((w) => w.term);
    const averages = fieldTotals.map((total) => total / count || 1);
    const idfs = weighted.map(({ term, weight }) => weight * bm25Idf(count, weighingFrequency(term)));
    // No document's score reaches the sum of the IDFs (each term adds its IDF times less than 1):
    // added to a tool whose name the query spells, it puts that tool above every other.
    const own = slots.length;
    const words = own > 0 ? Math.max(...slots) + 1 : 0;
    // Which of the query's words a name has is kept as bits: a name-first query has few words.
    const nameBonus = nameFirst && own > 0 && words <= 30 ? idfs.reduce((a, b) => a + b, 0) : 0;
    const pools: [string, PluginPostings][] =
      options.plugin !== undefined ? (byPlugin.has(options.plugin) ? [[options.plugin, byPlugin.get(options.plugin)!]] : []) : [...byPlugin];
    const out: RowScores[] = [];
    for (const [plugin, entry] of pools) {
      const scores = new Map<number, number>();
      /** Per document: how many of the query's own words its name has, and how many of its name's words they are. */
      const inName = nameBonus > 0 ? new Map<number, { words: number; tf: number }>() : undefined;
      const all = (1 << words) - 1;
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
              seen.words |= 1 << slots[t]!;
              seen.tf += nameTf;
            } else inName.set(d, { words: 1 << slots[t]!, tf: nameTf });
          }
        }
      });
      // Spelled: every own word is in the name, and they make up the whole name.
      if (inName) for (const [d, { words: has, tf }] of inName) if (has === all && tf === lengths[d * FIELD_COUNT + NAME_FIELD]) scores.set(d, scores.get(d)! + nameBonus);
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
    scoreTerms: (terms, options = {}) => scoreWeighted(terms, [], false, options),
    corrections(query) {
      return readAs(query).map(({ word, as }) => ({ word, as }));
    },
    correctedText(query) {
      // Only swapped letters: a swap seldom turns one real word into another, while the other
      // edits often do ("date" → "data", "test" → "text"), and the model reads those words right.
      const fixes = readAs(query).filter((f) => isSwap(f.word, f.as));
      if (fixes.length === 0) return query;
      const by = new Map(fixes.map((f) => [f.word, f.as]));
      return query.replace(/[A-Za-z]+/g, (word) => by.get(word.toLowerCase()) ?? word);
    },
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
