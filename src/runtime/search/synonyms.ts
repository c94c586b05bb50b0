import { stem } from "./tokenize.js";

/**
 * Query expansion for the words people use for tool actions. Tool names settle on a few verbs
 * (get, list, create, update, delete, search, run, send) while requests say "fetch", "show",
 * "remove", "find", "start"… Each group is symmetric: a query word of a group also looks for the
 * others, at a lower weight than the word itself. The table is general tool vocabulary, written
 * without looking at any benchmark's failures; it was kept because it held up on held-out queries
 * (README "Discovery").
 */

const GROUPS: readonly (readonly string[])[] = [
  ["get", "fetch", "retrieve", "read", "show", "view", "display", "obtain", "lookup"],
  ["list", "enumerate", "browse"],
  ["create", "make", "new", "add", "generate", "register"],
  ["update", "edit", "modify", "change", "rename", "set"],
  // Renaming a file is moving it (move_file); "rename" is in both groups.
  ["move", "rename", "relocate"],
  ["delete", "remove", "erase", "drop", "destroy", "discard"],
  ["search", "find", "look", "query", "locate"],
  ["run", "execute", "trigger", "start", "launch", "invoke"],
  ["send", "post", "publish", "submit"],
  ["info", "information", "details"],
  ["config", "configuration", "settings"],
  ["doc", "document"],
  ["db", "database"],
  ["dir", "directory", "folder"],
  ["org", "organization", "organisation"],
  ["msg", "message"],
  ["img", "image", "picture", "photo"],
];

/**
 * One-way relations: a request word that means writing something down ("remember that Alice likes
 * tea", "store a note", "save a fact") looks for the create/add tools (memory's create_entities,
 * add_observations), but "create" does not look for "save" or "note": those words are common in
 * descriptions of tools that only read ("notes of a release"), and without this the words found
 * no writing tool at all, and meaning alone put delete_relations first for a "remember" request.
 */
const ONE_WAY: readonly (readonly [readonly string[], readonly string[]])[] = [[["remember", "store", "save", "memorize", "memorise"], ["create", "add"]]];

const related = new Map<string, string[]>();
function relate(word: string, others: readonly string[]): void {
  related.set(word, [...new Set([...(related.get(word) ?? []), ...others.filter((s) => s !== word)])]);
}
for (const group of GROUPS) {
  const stems = [...new Set(group.map(stem))];
  for (const word of stems) relate(word, stems);
}
for (const [from, to] of ONE_WAY) {
  const targets = [...new Set(to.map(stem))];
  for (const word of new Set(from.map(stem))) relate(word, targets);
}

export interface WeightedTerm {
  term: string;
  weight: number;
}

/** The query's own terms at weight 1, then each one's relatives (not already in the query) at `weight`. */
export function expandTerms(terms: readonly string[], weight: number): WeightedTerm[] {
  const own = new Set(terms);
  const out: WeightedTerm[] = [...own].map((term) => ({ term, weight: 1 }));
  if (weight <= 0) return out;
  const added = new Set<string>();
  for (const term of own) {
    for (const other of related.get(term) ?? []) {
      if (own.has(other) || added.has(other)) continue;
      added.add(other);
      out.push({ term: other, weight });
    }
  }
  return out;
}

/** Whether the table relates this (stemmed) word to others. */
export function hasRelatives(term: string): boolean {
  return related.has(term);
}
