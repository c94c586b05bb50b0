import { cjkTerms, isCjkWord, unicodeWords } from "./unicode-words.js";

/**
 * Text → search terms. Tool names arrive as snake_case, kebab-case, camelCase or with digits
 * (`listIssues`, `get_pr_v2`), so names are split into words before anything else; words are
 * lower-cased, stop words dropped and a light suffix stemmer applied so "issues"/"issue" and
 * "listing"/"list" meet. Text with any letter or symbol beyond ASCII is split by unicode-words.ts
 * (accents dropped, emoji as words, Han/Kana/Hangul runs indexed as character pairs).
 */

export const STOP_WORDS = new Set(
  "a an and are as at be by for from has have in into is it its of on or that the this to was were will with your you i me my we our can do does how what which who".split(" "),
);

/** Words that carry no meaning in a request to a tool ("please show me …"); dropped from queries only. */
const QUERY_STOP_WORDS = new Set("please want need would like could should some any all there here them they their about using use".split(" "));

/** Any code point beyond ASCII. */
const NON_ASCII = /[\u0080-\uffff]/;
/** ASCII that is neither letter nor digit: where a piece of text with non-ASCII letters in it is cut first. */
const ASCII_SEPARATORS = /[^A-Za-z0-9\u0080-\uffff]+/;

/** Split identifiers and prose into lower-case words. */
export function splitWords(text: string): string[] {
  // Most text is already lower case prose: the case and digit splits only run when they can matter.
  const cased = /[A-Z0-9]/.test(text);
  const split = cased ? splitAsciiCase(text) : text;
  if (!NON_ASCII.test(text)) return nonEmpty((cased ? split.toLowerCase() : split).split(/[^a-z0-9]+/));
  // Unicode character classes cost about ten times as much as ASCII ones: only the pieces between
  // ASCII separators that hold a non-ASCII character go through unicode-words.ts.
  const words: string[] = [];
  for (const piece of split.split(ASCII_SEPARATORS)) {
    if (!piece) continue;
    if (NON_ASCII.test(piece)) for (const word of unicodeWords(piece)) words.push(word);
    else words.push(piece.toLowerCase());
  }
  return words;
}

/** A space where an ASCII identifier changes case or between letters and digits (`listIssues`, `HTTPServer`, `v2`). */
function splitAsciiCase(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .replace(/([a-zA-Z])(\d)/g, "$1 $2")
    .replace(/(\d)([a-zA-Z])/g, "$1 $2");
}

/** Splitting leaves at most an empty first and last piece; drop them without a second array. */
function nonEmpty(parts: string[]): string[] {
  if (parts.length && parts[parts.length - 1] === "") parts.pop();
  if (parts.length && parts[0] === "") parts.shift();
  return parts;
}

/** A small, predictable stemmer: enough to join plural and verb forms of tool vocabulary. */
export function stem(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith("sses")) return word.slice(0, -2);
  if (word.endsWith("ing") && word.length > 5) return dedouble(word.slice(0, -3));
  if (word.endsWith("ed") && word.length > 4) return dedouble(word.slice(0, -2));
  if (word.endsWith("es") && /(ch|sh|x|z|ss)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith("s") && !word.endsWith("ss") && !word.endsWith("us")) return word.slice(0, -1);
  return word;
}

function dedouble(word: string): string {
  return /([b-df-hj-np-tv-z])\1$/.test(word) ? word.slice(0, -1) : word;
}

export interface TokenizerOptions {
  stem?: boolean;
  stopWords?: boolean;
}

/** Tool vocabulary is small and repetitive, so each word is stemmed once (bounded, so memory stays flat). */
const stemCache = new Map<string, string>();
const STEM_CACHE_LIMIT = 200_000;

function cachedStem(word: string): string {
  if (word.length <= 3) return word;
  let stemmed = stemCache.get(word);
  if (stemmed === undefined) {
    stemmed = stem(word);
    if (stemCache.size < STEM_CACHE_LIMIT) stemCache.set(word, stemmed);
  }
  return stemmed;
}

export function makeTokenizer(options: TokenizerOptions = {}): (text: string) => string[] {
  const useStem = options.stem ?? true;
  const useStop = options.stopWords ?? true;
  // One pass and one array per text: at 100,000 tools the intermediate arrays were GC work.
  return (text) => {
    const out: string[] = [];
    for (const word of splitWords(text)) {
      if (isCjkWord(word)) {
        for (const term of cjkTerms(word)) out.push(term);
        continue;
      }
      if (useStop && STOP_WORDS.has(word)) continue;
      out.push(useStem ? cachedStem(word) : word);
    }
    return out;
  };
}

export function makeQueryTokenizer(options: TokenizerOptions = {}): (query: string) => string[] {
  const base = makeTokenizer(options);
  const useStop = options.stopWords ?? true;
  return (query) => base(useStop ? splitWords(query).filter((w) => !QUERY_STOP_WORDS.has(w)).join(" ") : query);
}

export const tokenize = makeTokenizer();
export const queryTerms = makeQueryTokenizer();
