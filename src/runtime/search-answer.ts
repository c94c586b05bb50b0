import type { CatalogEntry, SearchAnswer } from "./answers.js";
import type { FacadeMode } from "./facade-mode.js";
import { isPlainObject } from "../plain-object.js";
import { placeholderFor } from "./placeholders.js";

/**
 * The shape of agent_tools_search's answer, kept small on purpose: at limit 10 it stays under
 * 800 tokens (descriptions cut to one short line; schemas only with `detail: true`, or in the
 * validation error a wrong _call gets back).
 */

export interface SearchArgs {
  query?: unknown;
  limit?: unknown;
  plugin?: unknown;
  detail?: unknown;
}

const QUERY_ECHO_CHARS = 80;

/** Characters of description per hit in a cross-plugin answer. */
export const SEARCH_DESCRIPTION_CHARS = 72;

/** `{"owner":"<string>","repo":"<string>"}` for a schema's required parameters; `{}` when none are required. */
export function argumentSkeleton(schema: Record<string, unknown> | undefined): Record<string, string> {
  const required = schema && Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : [];
  const properties = schema && isPlainObject(schema.properties) ? schema.properties : undefined;
  const skeleton: Record<string, string> = {};
  for (const name of required) if (!properties || name in properties) skeleton[name] = placeholderFor(properties?.[name]);
  return skeleton;
}

export interface SearchAnswerParts {
  limit: number;
  max: number;
  entries: CatalogEntry[];
  total: number;
  /** Prefix → what that server is, for the servers the hits come from, in order of first hit. */
  servers?: Record<string, string>;
  unavailable: Record<string, string>;
  notConfigured: string[];
  /** Prefix → what to set and what matched, for each plugin that is not configured with a match among the first `limit` places (never hits). */
  setup?: Record<string, string>;
  mode: FacadeMode;
  /** Said once per runtime: how ranking works when it is not the usual way (semantic model absent). */
  notice?: string;
}

/** A query as an answer repeats it: a long one cut, since the caller has it and it would eat the answer's budget. */
export function echoQuery(query: string): string {
  return query.length > QUERY_ECHO_CHARS ? `${query.slice(0, QUERY_ECHO_CHARS - 1).trimEnd()}…` : query;
}

/**
 * What a query that matched nothing is told to try. The index (its words, synonyms and sentence
 * model) is English, and tool descriptions mostly are: "créer une tâche" or "删除库存物品" find
 * nothing there, and "try other words" sent the model on to more words of its own language.
 */
export const ENGLISH_INDEX = "the index is English: try English words for the action and object";

const NOTHING_CONFIGURED_MATCHES = "no configured plugin's tool matches; the plugins under 'setup' have tools that do once configured: tell the user what to set";

export function searchAnswer(parts: SearchAnswerParts): SearchAnswer {
  // The query is not echoed: the caller has it (a repair that changed it says so in `repairs`).
  const answer: SearchAnswer = { ok: true, shown: parts.entries.length, total: parts.total, hits: parts.entries };
  if (parts.servers && Object.keys(parts.servers).length) answer.servers = parts.servers;
  if (parts.entries.length < parts.total) answer.more = `${parts.total - parts.entries.length} more; refine the query or raise 'limit' (max ${parts.max})`;
  // Plugins that are not configured matched, and nothing configured did: 'try other words' would mislead.
  if (parts.total === 0 && parts.setup && Object.keys(parts.setup).length) answer.note = NOTHING_CONFIGURED_MATCHES;
  else if (parts.total === 0) {
    answer.note =
      parts.mode === "compact"
        ? `nothing matches; ${ENGLISH_INDEX}, or help for the plugins`
        : `nothing matches; ${ENGLISH_INDEX}, or a plugin's discover without a query to list its tools`;
  }
  if (Object.keys(parts.unavailable).length) answer.unavailable = parts.unavailable;
  if (parts.notConfigured.length) answer.notConfigured = parts.notConfigured;
  if (parts.setup && Object.keys(parts.setup).length) answer.setup = parts.setup;
  if (parts.notice) answer.notice = parts.notice;
  return answer;
}

/** The answer's note on the query's words read as others ("read 'lsit' as 'list'"), added to any note it has. */
export function withCorrections<A extends { note?: string }>(answer: A, corrections: readonly { word: string; as: string }[] | undefined): A {
  if (!corrections?.length) return answer;
  const said = `read ${corrections.map((c) => `'${c.word}' as '${c.as}'`).join(", ")}`;
  answer.note = answer.note ? `${said}; ${answer.note}` : said;
  return answer;
}

/** Tokens (o200k) an answer's JSON text may take; below the 800 promised, for the envelope. */
export const SEARCH_TOKEN_BUDGET = 780;
const SQUEEZED_DESCRIPTION_CHARS = 40;

/**
 * An upper estimate of the o200k tokens of `text`, without the tokenizer. o200k never joins a
 * run of letters with digits or with punctuation, so each class is counted on its own: letters
 * at 3 a token (words are mostly one token; search answers measure 3.9–4.4 characters a token
 * overall), digits by o200k's own rule of at most 3 a token per run, spaces and punctuation at
 * 2 a token, anything else at one token per UTF-8 byte (a token is never less than a byte). The
 * o200k tables cost 66 MiB of memory and 150 ms or more to load; this costs one pass over the
 * string, and answers well under the budget never need them. test/search.budget.test.ts holds
 * it above the real count.
 */
export function estimateTokens(text: string): number {
  let letters = 0;
  let digitTokens = 0;
  let digitRun = 0;
  let other = 0;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const digit = code >= 0x30 && code <= 0x39;
    if (!digit && digitRun) {
      digitTokens += Math.ceil(digitRun / 3);
      digitRun = 0;
    }
    if (digit) digitRun += 1;
    else if ((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) letters += 1;
    else if (code < 0x80) other += 1;
    else if (code < 0x800) bytes += 2;
    // A surrogate pair is one 4-byte character: 2 + 2.
    else if (code >= 0xd800 && code <= 0xdfff) bytes += 2;
    else bytes += 3;
  }
  if (digitRun) digitTokens += Math.ceil(digitRun / 3);
  return Math.ceil(letters / 3) + digitTokens + Math.ceil(other / 2) + bytes;
}

/**
 * Make sure an answer fits its token budget whatever the catalog: first drop the optional-parameter
 * lists, then the `servers` block, then shorten descriptions, then drop the lowest-ranked entries
 * (said in `more`). `sentWith`: fields the answer is sent with but gets later (its `repairs`),
 * counted in the budget. An answer the upper estimate already puts under the budget fits without the
 * tokenizer; only one near or over it loads the real o200k tokenizer (once per process) to count
 * exactly, so an answer is never cut more than the real count requires.
 */
let tokenCounter: Promise<(text: string) => number> | undefined;
/** The o200k tokenizer's counter, imported once per process (its tables take a few hundred ms to build). */
export function loadTokenCounter(): Promise<(text: string) => number> {
  tokenCounter ??= import("gpt-tokenizer/encoding/o200k_base").then((m) => m.countTokens);
  return tokenCounter;
}

export async function fitEntriesToBudget<A extends { shown: number; total: number; more?: string; servers?: Record<string, string> }>(answer: A, key: keyof A & string, budget: number, sentWith?: Record<string, unknown>): Promise<A> {
  let count: ((text: string) => number) | undefined;
  const fits = async () => {
    // Counted as sent: with what the frame adds afterwards (`repairs`), which made a search answer
    // 787 tokens whose `more` said they are kept under 780.
    const text = JSON.stringify(sentWith ? { ...answer, ...sentWith } : answer);
    if (estimateTokens(text) <= budget) return true;
    count ??= await loadTokenCounter();
    return count(text) <= budget;
  };
  if (await fits()) return answer;
  const entries = answer[key] as unknown as CatalogEntry[];
  for (const entry of entries) delete entry.optional;
  if (await fits()) return answer;
  if (answer.servers) {
    delete answer.servers;
    if (await fits()) return answer;
  }
  for (const entry of entries) {
    // A skill's argument sentence (original-runtime skills) is squeezed like a description.
    for (const key of ["description", "params"] as const) {
      const text = entry[key];
      if (typeof text === "string" && text.length > SQUEEZED_DESCRIPTION_CHARS) entry[key] = `${text.slice(0, SQUEEZED_DESCRIPTION_CHARS - 1).trimEnd()}…`;
    }
  }
  if (entries.length <= 1 || (await fits())) return answer;
  // The most entries that fit, by halving (each try serialises the answer and may run the
  // tokenizer): fewer entries never make the answer longer, so this is the count that dropping
  // one entry at a time would reach, in about log2(n) tries instead of up to n.
  const all = entries.slice();
  const keep = (n: number) => {
    entries.length = 0;
    entries.push(...all.slice(0, n));
    answer.shown = n;
    answer.more = `${answer.total - n} more; refine the query (answers are kept under ${budget} tokens)`;
  };
  let fitting = 1;
  let tooMany = all.length;
  while (tooMany - fitting > 1) {
    const middle = Math.floor((fitting + tooMany) / 2);
    keep(middle);
    if (await fits()) fitting = middle;
    else tooMany = middle;
  }
  keep(fitting);
  return answer;
}
