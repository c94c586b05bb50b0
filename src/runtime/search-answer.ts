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

/** Characters of description per hit in a cross-plugin answer. */
export const SEARCH_DESCRIPTION_CHARS = 90;

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
  unavailable: Record<string, string>;
  notConfigured: string[];
  mode: FacadeMode;
}

export function searchAnswer(parts: SearchAnswerParts): Record<string, unknown> {
  const answer: Record<string, unknown> = { query: parts.query, shown: parts.entries.length, total: parts.total, hits: parts.entries };
  if (parts.entries.length < parts.total) answer.more = `${parts.total - parts.entries.length} more; refine the query or raise 'limit' (max ${parts.max})`;
  if (parts.total === 0) {
    answer.note =
      parts.mode === "compact"
        ? "nothing matches; try other words, or agent_tools_help for the plugins"
        : "nothing matches; try other words, or a plugin's _discover without a query to list its tools";
  }
  if (Object.keys(parts.unavailable).length) answer.unavailable = parts.unavailable;
  if (parts.notConfigured.length) answer.notConfigured = parts.notConfigured;
  return answer;
}
