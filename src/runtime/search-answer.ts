import type { FacadeMode } from "./facade-mode.js";

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

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

/** `{"owner":…,"repo":…}` for a schema's required parameters; `{}` when none are required. */
export function argumentSkeleton(schema: Record<string, unknown> | undefined): string {
  const required = schema && Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : [];
  const properties = schema && isPlainObject(schema.properties) ? schema.properties : {};
  const known = required.filter((r) => r in properties || !isPlainObject(schema?.properties));
  return `{${known.map((r) => `"${r}":…`).join(",")}}`;
}

export interface SearchAnswerParts {
  query: string;
  limit: number;
  max: number;
  entries: Record<string, unknown>[];
  total: number;
  /** Prefix → what that server is, for the servers the hits come from, in order of first hit. */
  servers?: Record<string, string>;
  unavailable: Record<string, string>;
  notConfigured: string[];
  mode: FacadeMode;
  /** Said once per runtime: how ranking works when it is not the usual way (semantic model absent). */
  notice?: string;
}

export function searchAnswer(parts: SearchAnswerParts): Record<string, unknown> {
  // A long query is echoed cut: the caller has it, and it would eat the answer's budget.
  const query = parts.query.length > QUERY_ECHO_CHARS ? `${parts.query.slice(0, QUERY_ECHO_CHARS - 1).trimEnd()}…` : parts.query;
  const answer: Record<string, unknown> = { query, shown: parts.entries.length, total: parts.total, hits: parts.entries };
  if (parts.servers && Object.keys(parts.servers).length) answer.servers = parts.servers;
  if (parts.entries.length < parts.total) answer.more = `${parts.total - parts.entries.length} more; refine the query or raise 'limit' (max ${parts.max})`;
  if (parts.total === 0) {
    answer.note =
      parts.mode === "compact"
        ? "nothing matches; try other words, or agent_tools_help for the plugins"
        : "nothing matches; try other words, or a plugin's _discover without a query to list its tools";
  }
  if (Object.keys(parts.unavailable).length) answer.unavailable = parts.unavailable;
  if (parts.notConfigured.length) answer.notConfigured = parts.notConfigured;
  if (parts.notice) answer.notice = parts.notice;
  return answer;
}

/** Tokens (o200k) an answer's JSON text may take; below the 800 promised, for the envelope. */
export const SEARCH_TOKEN_BUDGET = 780;
const SQUEEZED_DESCRIPTION_CHARS = 40;

/**
 * Make sure an answer fits the budget whatever the catalog: first drop the optional-parameter
 * lists, then shorten descriptions, then drop the lowest-ranked hits (said in `more`). Counting
 * uses the real tokenizer, loaded on the first search only.
 */
export async function fitToBudget(answer: Record<string, unknown>, budget = SEARCH_TOKEN_BUDGET): Promise<Record<string, unknown>> {
  const { countTokens } = await import("gpt-tokenizer/encoding/o200k_base");
  const fits = () => countTokens(JSON.stringify(answer)) <= budget;
  if (fits()) return answer;
  const hits = answer.hits as Record<string, unknown>[];
  for (const hit of hits) delete hit.optional;
  if (fits()) return answer;
  delete answer.servers;
  if (fits()) return answer;
  for (const hit of hits) {
    // A skill's argument sentence (original-runtime skills) is squeezed like a description.
    for (const key of ["description", "params"] as const) {
      const text = hit[key];
      if (typeof text === "string" && text.length > SQUEEZED_DESCRIPTION_CHARS) hit[key] = `${text.slice(0, SQUEEZED_DESCRIPTION_CHARS - 1).trimEnd()}…`;
    }
  }
  const total = Number(answer.total ?? hits.length);
  while (!fits() && hits.length > 1) {
    hits.pop();
    answer.shown = hits.length;
    answer.more = `${total - hits.length} more; refine the query (answers are kept under 800 tokens)`;
  }
  return answer;
}
