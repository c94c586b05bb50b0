import { splitWords } from "./tokenize.js";
import { rankHits, type SearchDocument, type SearchHit, type ToolIndex } from "./types.js";

/**
 * The yardstick, not an engine to ship: plain single-field BM25 (k1 = 1.2, b = 0.75) over the
 * tool name split into words, the description, and parameter names and descriptions. No field
 * weights, no stemming, no stop words, no plugin text. Benchmarks run it in the same process as
 * the real engines so the comparison is like for like.
 */

const K1 = 1.2;
const B = 0.75;

interface Doc {
  source: SearchDocument;
  tf: Map<string, number>;
  length: number;
}

export function createPlainBm25Index(): ToolIndex {
  const byPlugin = new Map<string, Doc[]>();
  const df = new Map<string, number>();
  let count = 0;
  let totalLength = 0;

  function account(docs: Doc[], sign: 1 | -1): void {
    for (const doc of docs) {
      count += sign;
      totalLength += sign * doc.length;
      for (const term of doc.tf.keys()) df.set(term, (df.get(term) ?? 0) + sign);
    }
  }

  function removePlugin(plugin: string): void {
    const old = byPlugin.get(plugin);
    if (old) account(old, -1);
    byPlugin.delete(plugin);
  }

  return {
    engine: "bm25",
    setPluginDocuments(plugin, documents) {
      removePlugin(plugin);
      const docs = documents.map((source) => {
        const terms = splitWords([source.fields.name, source.fields.description ?? "", source.fields.params ?? ""].join(" "));
        const tf = new Map<string, number>();
        for (const term of terms) tf.set(term, (tf.get(term) ?? 0) + 1);
        return { source, tf, length: terms.length };
      });
      byPlugin.set(plugin, docs);
      account(docs, 1);
    },
    removePlugin,
    size(plugin) {
      return plugin !== undefined ? (byPlugin.get(plugin)?.length ?? 0) : count;
    },
    search(query, options = {}) {
      const terms = [...new Set(splitWords(query))];
      if (terms.length === 0 || count === 0) return { hits: [], total: 0 };
      const average = totalLength / count || 1;
      const pools = options.plugin !== undefined ? [byPlugin.get(options.plugin) ?? []] : [...byPlugin.values()];
      const hits: SearchHit[] = [];
      for (const pool of pools) {
        for (const doc of pool) {
          let score = 0;
          for (const term of terms) {
            const tf = doc.tf.get(term);
            if (!tf) continue;
            const n = df.get(term) ?? 0;
            const idf = Math.log(1 + (count - n + 0.5) / (n + 0.5));
            score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.length) / average));
          }
          if (score > 0) hits.push({ plugin: doc.source.plugin, kind: doc.source.kind, name: doc.source.name, score });
        }
      }
      return rankHits(hits, options.limit);
    },
  };
}
