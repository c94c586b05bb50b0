/**
 * Words of text that is not plain ASCII (tokenize.ts keeps its ASCII path for everything else).
 * Servers with localized tool names and descriptions are common ("搜索文件", "создать_задачу",
 * "café", "party_🎉"), and splitting on everything but a–z made every such letter a separator: a
 * tool was not found even by its own name. Here:
 *  - the text is NFKC-normalized (full-width "ＡＢＣ" is "ABC", "ﬁ" is "fi"), split at case and
 *    digit changes like an ASCII identifier ("créerFichier" → créer fichier), lower-cased and
 *    case-folded (ß → ss, final ς → σ);
 *  - accents are dropped so that "cafe" finds "café" (and "CAFÉ", "cafe\u0301"): the combining
 *    diacritics of Latin, Greek and Cyrillic, Arabic harakat and the tatweel, Hebrew points. Not
 *    every mark: Indic vowel signs are marks too, and dropping them would merge different words;
 *  - a word is a run of letters, digits and marks (`\p{L}\p{N}\p{M}`); a run in a script written
 *    without spaces (Han, Hiragana, Katakana, Hangul) is a word of its own, cut into character
 *    pairs by `cjkTerms` when indexed;
 *  - each emoji or other symbol (`\p{Extended_Pictographic}`, `\p{So}`) is a word of its own, without
 *    its variation selector, skin tone or joiner, so "🎉" finds `party_🎉`.
 */

/** Marks that only accent a letter (see above), and the tatweel (U+0640), which only stretches one. */
const ACCENTS = /[\u0300-\u036f\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7\u064b-\u065f\u0670\u0640]/g;
/**
 * The blocks where, once NFKC-normalized, a letter can carry one of those accents or be ß or ς
 * (Latin-1 to Arabic, Latin Extended Additional, Greek Extended): text with none of them skips
 * decomposing and composing again, most of this path's cost (a CJK or Hangul text, say).
 */
const MAY_BE_ACCENTED = /[\u00c0-\u06ff\u1e00-\u1fff]/;
/** Code points that are invisible by definition (joiners, variation selectors, soft hyphen, BOM). */
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
/** Where an identifier changes case or between letters and digits ("créerFichier2" → créer Fichier 2), as tokenize.ts splits ASCII. */
const HAS_UPPER_OR_DIGIT = /[\p{Lu}\p{N}]/u;
const CASE_OR_DIGIT_CHANGE = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/gu;

/** A letter of a script written without spaces between words (ー and 々 included, by their script extensions). */
const CJK = String.raw`\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}`;
const HAS_CJK = new RegExp(`[${CJK}]`, "u");
const SYMBOL = String.raw`[\p{Extended_Pictographic}\p{So}]`;
/** Words of text without CJK letters: runs of letters, digits and marks; each symbol alone. */
const WORD = new RegExp(String.raw`[\p{L}\p{N}\p{M}]+|${SYMBOL}`, "gu");
/** The same, with a CJK run a word of its own (the lookaheads cost: only for text that has one). */
const WORD_OR_CJK_RUN = new RegExp(String.raw`(?:(?=[\p{L}\p{N}\p{M}])[${CJK}])+|${SYMBOL}|(?:(?![${CJK}])[\p{L}\p{N}\p{M}])+`, "gu");
const CJK_START = new RegExp(`^(?=[\\p{L}\\p{N}\\p{M}])[${CJK}]`, "u");

/** The words of `text`, lower case and without accents, as described above. */
export function unicodeWords(text: string): string[] {
  let folded = text.normalize("NFKC");
  // The lookbehinds cost 2 µs a word, twenty times the test.
  if (HAS_UPPER_OR_DIGIT.test(folded)) folded = folded.replace(CASE_OR_DIGIT_CHANGE, " ");
  folded = folded.toLowerCase();
  if (MAY_BE_ACCENTED.test(folded)) {
    // Decomposed, an accent is a mark of its own; composed again, so a Hangul syllable stays one letter.
    folded = folded.normalize("NFD").replace(ACCENTS, "").normalize("NFC").replace(/ß/g, "ss").replace(/ς/g, "σ");
  }
  folded = folded.replace(IGNORABLE, "");
  return folded.match(HAS_CJK.test(folded) ? WORD_OR_CJK_RUN : WORD) ?? [];
}

/** Whether a word of `unicodeWords` is a run of Han, Hiragana, Katakana or Hangul. */
export function isCjkWord(word: string): boolean {
  // Every such letter is past U+1100 (Hangul Jamo): most words are rejected by one comparison.
  return word.charCodeAt(0) >= 0x1100 && CJK_START.test(word);
}

/**
 * The search terms of a CJK word: its overlapping character pairs ("搜索文件" → 搜索, 索文, 文件),
 * or the character itself for a word of one. Without spaces there are no words to split on, and a
 * dictionary per language is large; pairs let "搜索" or "文件" find "搜索文件", and a query that
 * spells the whole name has every pair of it (name first, bm25f.ts).
 */
export function cjkTerms(word: string): string[] {
  const chars = Array.from(word);
  if (chars.length <= 2) return [word];
  const pairs: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) pairs.push(chars[i]! + chars[i + 1]!);
  return pairs;
}
