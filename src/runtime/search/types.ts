/**
 * The shapes every search engine shares: documents (one per tool or skill, grouped by plugin so a
 * plugin's catalog can be swapped when it changes), hits, and the ToolIndex contract the runtime
 * and the benchmarks program against.
 */

export type SearchKind = "tool" | "skill";

export interface SearchFields {
  /** The tool's name (and title). Split into words by the tokenizer. */
  name: string;
  /** A human-readable title (MCP `title` or `annotations.title`). */
  title?: string;
  description?: string;
  /** Parameter names and descriptions. */
  params?: string;
  /** String values of small parameter enums (the operations of a tool that folds several). */
  values?: string;
  /** Plugin name, description and discover hint. */
  plugin?: string;
}

export const FIELD_NAMES = ["name", "title", "description", "params", "values", "plugin"] as const satisfies readonly (keyof SearchFields)[];
export type FieldName = (typeof FIELD_NAMES)[number];

export interface SearchDocument {
  plugin: string;
  kind: SearchKind;
  name: string;
  fields: SearchFields;
  /** Parameter names alone (the semantic engine embeds these, not their descriptions). */
  paramNames?: string[];
}

export interface SearchHit {
  plugin: string;
  kind: SearchKind;
  name: string;
  score: number;
}

export interface SearchOptions {
  /** Only this plugin's documents. */
  plugin?: string;
  limit?: number;
}

/** One plugin's matching documents: `rows[i]` (a position in the documents it was given) scored `scores[i]`. */
export interface RowScores {
  plugin: string;
  rows: number[];
  scores: number[];
}

export interface SearchAnswer {
  hits: SearchHit[];
  /** How many documents matched at all (before the limit). */
  total: number;
}

export interface ToolIndex {
  /** Which engine ranks (bm25f, minisearch, bm25). */
  readonly engine: string;
  /** Replace every document of one plugin. */
  setPluginDocuments(plugin: string, documents: readonly SearchDocument[]): void;
  removePlugin(plugin: string): void;
  search(query: string, options?: SearchOptions): SearchAnswer;
  /** The same matches as `search`, by document position and unordered (engines that can: BM25F). */
  scoreRows?(query: string, options?: SearchOptions): RowScores[];
  size(plugin?: string): number;
  /**
   * The query's words no document has that are read as a vocabulary word one edit away ("lsit" as
   * "list"), for the answer to say so (engines that match typos: BM25F and hybrid).
   */
  corrections?(query: string): { word: string; as: string }[];
  /**
   * Engines with asynchronous work (the semantic layer embeds the query and any catalog text not
   * embedded yet) do it here; the runtime awaits it before the synchronous `search`. `scope`, when
   * given, is the options of that search: the engine may do its lexical part while it waits.
   */
  prepare?(query: string, scope?: SearchOptions): Promise<void>;
  /**
   * Do ahead of the first query what `prepare` would do then (load the model, embed the catalog),
   * so a server with many sessions does not make its first searches wait for it. Never rejects.
   */
  warm?(): Promise<void>;
  /** A one-time notice about how this engine ranks (e.g. the semantic model is absent); undefined after the first read. */
  takeNotice?(): string | undefined;
}

/** Order hits by score, ties by name so answers are stable, and cut to the limit. */
export function rankHits(hits: SearchHit[], limit: number | undefined): SearchAnswer {
  hits.sort((a, b) => b.score - a.score || a.name.localeCompare(b.name) || a.plugin.localeCompare(b.plugin));
  return { hits: hits.slice(0, limit ?? hits.length), total: hits.length };
}
