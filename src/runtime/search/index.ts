import { tokenize } from "./tokenize.js";

/**
 * The runtime's one search index over every plugin's tools and skills. Scoring is BM25 over
 * weighted fields (a match in the name counts more than one in a parameter description), with
 * length normalised over the weighted document length. Documents are grouped by plugin so one
 * plugin's catalog can be replaced when it changes without rebuilding the others.
 */

export type SearchKind = "tool" | "skill";

export interface SearchFields {
  name: string;
  description?: string;
  /** Parameter names and descriptions. */
  params?: string;
  /** Plugin name, description and discover hint. */
  plugin?: string;
}

export interface SearchDocument {
  plugin: string;
  kind: SearchKind;
  name: string;
  fields: SearchFields;
}

export interface SearchHit {
  plugin: string;
  kind: SearchKind;
  name: string;
  score: number;
}

export interface SearchOptions {
  plugin?: string;
  limit?: number;
}

const FIELD_WEIGHTS: Readonly<Record<keyof SearchFields, number>> = { name: 3, description: 1.5, params: 0.6, plugin: 0.3 };
const K1 = 1.2;
const B = 0.75;

interface IndexedDocument extends SearchDocument {
  termWeights: Map<string, number>;
  length: number;
}

export interface ToolIndex {
  /** Replace every document of one plugin. */
  setPluginDocuments(plugin: string, documents: SearchDocument[]): void;
  removePlugin(plugin: string): void;
  search(query: string, options?: SearchOptions): { hits: SearchHit[]; total: number };
  size(plugin?: string): number;
}

export function createToolIndex(): ToolIndex {
  const byPlugin = new Map<string, IndexedDocument[]>();
  let documentFrequency = new Map<string, number>();
  let totalLength = 0;
  let count = 0;

  function recount(): void {
    documentFrequency = new Map();
    totalLength = 0;
    count = 0;
    for (const docs of byPlugin.values()) {
      for (const doc of docs) {
        count += 1;
        totalLength += doc.length;
        for (const term of doc.termWeights.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
      }
    }
  }

  function indexDocument(doc: SearchDocument): IndexedDocument {
    const termWeights = new Map<string, number>();
    let length = 0;
    for (const [field, weight] of Object.entries(FIELD_WEIGHTS) as [keyof SearchFields, number][]) {
      const text = doc.fields[field];
      if (!text) continue;
      for (const term of tokenize(text)) {
        termWeights.set(term, (termWeights.get(term) ?? 0) + weight);
        length += weight;
      }
    }
    return { ...doc, termWeights, length };
  }

  return {
    setPluginDocuments(plugin, documents) {
      byPlugin.set(plugin, documents.map(indexDocument));
      recount();
    },
    removePlugin(plugin) {
      byPlugin.delete(plugin);
      recount();
    },
    size(plugin) {
      if (plugin !== undefined) return byPlugin.get(plugin)?.length ?? 0;
      return count;
    },
    search(query, options = {}) {
      const terms = [...new Set(tokenize(query))];
      if (terms.length === 0 || count === 0) return { hits: [], total: 0 };
      const averageLength = totalLength / count || 1;
      const pools = options.plugin !== undefined ? [byPlugin.get(options.plugin) ?? []] : [...byPlugin.values()];
      const hits: SearchHit[] = [];
      for (const pool of pools) {
        for (const doc of pool) {
          let score = 0;
          for (const term of terms) {
            const tf = doc.termWeights.get(term);
            if (!tf) continue;
            const df = documentFrequency.get(term) ?? 0;
            const idf = Math.log(1 + (count - df + 0.5) / (df + 0.5));
            score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.length) / averageLength));
          }
          if (score > 0) hits.push({ plugin: doc.plugin, kind: doc.kind, name: doc.name, score });
        }
      }
      hits.sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));
      const limit = options.limit ?? hits.length;
      return { hits: hits.slice(0, limit), total: hits.length };
    },
  };
}
