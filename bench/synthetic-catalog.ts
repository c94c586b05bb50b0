import { readTools } from "../src/cli/retrieval-data.js";
import { toolDocument } from "../src/runtime/catalog.js";
import { splitWords } from "../src/runtime/search/tokenize.js";
import type { SearchDocument } from "../src/runtime/search/types.js";
import { GITHUB_CATALOG } from "./retrieval-kit.js";

/**
 * Synthetic catalogs for the scale benchmarks, generated deterministically by recombining the
 * GitHub catalog's words (a seeded PRNG), 50 tools a plugin; and queries of 2–5 of those words.
 */

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const vocabulary = [...new Set(readTools(GITHUB_CATALOG).flatMap((t) => splitWords(`${t.name} ${t.description}`)).filter((w) => w.length > 2))];
const verbs = ["get", "list", "create", "update", "delete", "search", "add", "remove", "set", "run"];

export function synthetic(count: number, seed = 42): Map<string, SearchDocument[]> {
  const random = prng(seed);
  const pick = () => vocabulary[Math.floor(random() * vocabulary.length)]!;
  const groups = new Map<string, SearchDocument[]>();
  for (let i = 0; i < count; i++) {
    const plugin = `svc${Math.floor(i / 50)}`;
    const name = `${verbs[Math.floor(random() * verbs.length)]}_${pick()}_${pick()}_${i}`;
    const description = Array.from({ length: 8 + Math.floor(random() * 14) }, pick).join(" ");
    const properties = Object.fromEntries(Array.from({ length: 1 + Math.floor(random() * 4) }, () => [pick(), { type: "string", description: `${pick()} ${pick()} ${pick()}` }]));
    const docs = groups.get(plugin) ?? [];
    docs.push(toolDocument(plugin, `${plugin} ${pick()} ${pick()}`, { name, description, inputSchema: { type: "object", properties } }));
    groups.set(plugin, docs);
  }
  return groups;
}

/** `count` queries of 2–5 catalog words. */
export function syntheticQueries(count: number, seed = 7): string[] {
  const random = prng(seed);
  return Array.from({ length: count }, () => Array.from({ length: 2 + Math.floor(random() * 4) }, () => vocabulary[Math.floor(random() * vocabulary.length)]).join(" "));
}
