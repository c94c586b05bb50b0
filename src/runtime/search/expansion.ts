import { isOffValue } from "../../env-switch.js";
import type { WeightedTerm } from "./synonyms.js";
import { queryTerms, splitWords, stem, STOP_WORDS } from "./tokenize.js";
import type { Pos, Synset, WordNet } from "./wordnet.js";

/**
 * Intent expansion with WordNet: a short intent shares few words with the tools it needs ("throw
 * a wedding" → a venue, invitations, catering), so each of its words also looks for its WordNet
 * relatives — synonyms, hypernyms one level up and derivationally related forms — at a low
 * weight. Only the senses the sentence model finds nearest the intent are used ("throw" in "throw
 * a wedding" is not "propel"): each candidate sense's lemmas and definition are embedded and
 * compared with the intent's own vector (word-sense choice by meaning). Measured on the visible
 * sets only (docs/search-log.md "WordNet expansion of one-need intents"; what it does: README
 * "Semantic search").
 */

export interface ExpansionSettings {
  /** A word's relatives share this weight: each gets weight / √(how many relatives it has). */
  weight: number;
  /** Senses kept per word, nearest the intent first. */
  sensesPerWord: number;
  /** Of a word's senses (most frequent first, per part of speech), how many are candidates. */
  sensePool: number;
  /** A sense further than this (cosine) from the intent is not kept. */
  minCosine: number;
  /**
   * Expand only an intent whose own words find no tool well: BM25F's best score under this many
   * times the IDF of a word found in one tool. Words that already reach their tools gain nothing
   * from relatives, which only add noise ("retrieve the data" → recover, collection).
   */
  weakMatch: number;
  /**
   * An intent with more words WordNet knows than this is not expanded. Expansion is for short intents
   * (the visible sets' one-need queries have at most 7), and each word costs up to a dozen sense
   * texts for the model: a 500-character query of 89 common words asked it for about 1,000 at
   * once, 40 s of a model thread (every session's queries wait behind it) and 2 GB of memory.
   */
  maxWords: number;
}

export const EXPANSION_DEFAULTS: ExpansionSettings = { weight: 1.5, sensesPerWord: 2, sensePool: 6, minCosine: 0.3, weakMatch: 0.6, maxWords: 8 };

/** `off` turns the expansion off (it is also off when WordNet's files are not installed). */
export const EXPANSION_ENV = "AGENT_TOOLS_SEARCH_EXPANSION";

export function expansionDisabled(env: NodeJS.ProcessEnv): boolean {
  return isOffValue(env[EXPANSION_ENV]);
}

/** Words of a request that say nothing about its task, beyond the index's stop words. */
const INTENT_STOP = new Set("please want need would like could should some any all there here them they their about using use new get make set".split(" "));
const PARTS: readonly Pos[] = ["n", "v"];

function contentWords(text: string): string[] {
  return [...new Set(splitWords(text).filter((w) => w.length > 2 && !STOP_WORDS.has(w) && !INTENT_STOP.has(w) && !/^\d+$/.test(w)))];
}

/** One word of the intent and the senses it may have. */
export interface WordSenses {
  word: string;
  senses: Synset[];
}

/** The intent's content words with their candidate senses (nouns and verbs, the most frequent first); none when more than `maxWords` words have some. */
export function candidateSenses(text: string, wordnet: WordNet, settings: ExpansionSettings): WordSenses[] {
  const out: WordSenses[] = [];
  for (const word of contentWords(text)) {
    const senses: Synset[] = [];
    for (const pos of PARTS) for (const base of wordnet.baseForms(word, pos)) senses.push(...wordnet.senses(base, pos).slice(0, settings.sensePool));
    if (senses.length > 0 && out.push({ word, senses }) > settings.maxWords) return [];
  }
  return out;
}

/** What the model embeds for a sense: its lemmas and its definition. */
export function senseText(synset: Synset): string {
  return `${synset.words.join(", ")}: ${synset.definition}`;
}

/** Each word's senses nearest the intent (`closeness` gives a sense's cosine to it). */
export function chooseSenses(candidates: readonly WordSenses[], closeness: (synset: Synset) => number, settings: ExpansionSettings): WordSenses[] {
  return candidates.map(({ word, senses }) => ({
    word,
    senses: senses
      .map((synset) => ({ synset, cosine: closeness(synset) }))
      .sort((a, b) => b.cosine - a.cosine)
      .slice(0, settings.sensesPerWord)
      .filter((s) => s.cosine >= settings.minCosine)
      .map((s) => s.synset),
  }));
}

/**
 * The search terms the chosen senses add: per word, the lemmas of its senses, of their direct
 * hypernyms and of their derivationally related forms, less what the intent already says; each
 * word's relatives share `weight`. A term two words reach is listed (and counts) twice.
 */
export function expansionTerms(text: string, chosen: readonly WordSenses[], wordnet: WordNet, settings: ExpansionSettings): WeightedTerm[] {
  const ownStems = new Set(splitWords(text).map(stem));
  const added = new Set<string>();
  const out: WeightedTerm[] = [];
  for (const { senses } of chosen) {
    const lemmas: string[] = [];
    for (const synset of senses) {
      lemmas.push(...synset.words);
      for (const p of synset.pointers) {
        if (p.symbol === "@" || p.symbol === "@i") lemmas.push(...wordnet.synset(p.offset, p.pos).words);
        else if (p.symbol === "+") lemmas.push(wordnet.synset(p.offset, p.pos).words[0]!);
      }
    }
    const words: string[] = [];
    for (const lemma of lemmas)
      for (const w of splitWords(lemma)) {
        if (w.length <= 2 || STOP_WORDS.has(w) || INTENT_STOP.has(w) || ownStems.has(stem(w)) || added.has(w)) continue;
        added.add(w);
        words.push(w);
      }
    if (words.length === 0) continue;
    const weight = settings.weight / Math.sqrt(words.length);
    const terms = new Set(words.flatMap((w) => queryTerms(w)));
    for (const term of terms) out.push({ term, weight });
  }
  return out;
}
