import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { inMemoryAdapterKind, inMemoryManifests, IN_MEMORY_KIND } from "../src/cli/in-memory-fleet.js";
import type { DatasetTool } from "../src/cli/retrieval-data.js";
import { silentLogger } from "../src/log.js";
import { pickRanked, windowSize, type Ranked, type RankedWindow } from "../src/runtime/ranked-window.js";
import { createRuntime } from "../src/runtime/runtime.js";
import { createBm25fIndex } from "../src/runtime/search/bm25f.js";
import type { SearchDocument } from "../src/runtime/search/types.js";

/**
 * A search asks the index for a window of its ranking (ranked-window.ts), not for every match; its
 * entries and total must be exactly those of the unlimited ranking. Checked against the way the
 * runtime picked before (every hit ranked, then filtered), on seeded catalogs large enough that
 * broad queries match thousands of tools, with unconfigured plugins (only named, never entries),
 * plugins a caller may not use, and hits that cannot be described.
 */

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

const WORDS = ["list", "issues", "read", "file", "create", "ticket", "search", "users", "send", "message", "deploy", "release", "query", "table", "upload", "image", "calendar", "event", "invoice", "payment", "branch", "commit", "weather", "forecast"];

function catalog(seed: number, plugins: number, toolsEach: number): DatasetTool[] {
  const random = seeded(seed);
  const word = () => WORDS[Math.floor(random() * WORDS.length)]!;
  const tools: DatasetTool[] = [];
  for (let p = 0; p < plugins; p++) {
    for (let t = 0; t < toolsEach; t++) {
      tools.push({ server: `srv${p}`, name: `${word()}_${word()}_${t}`, description: `${word()} ${word()} ${word()} ${word()} for srv${p}`, inputSchema: { type: "object", properties: { [word()]: { type: "string" } } } });
    }
  }
  return tools;
}

/** How the runtime picked before the window: every hit ranked, then filtered; an unconfigured plugin's hit only named, within the first `limit` places. */
function reference<T>(opts: RankedWindow<T>): Ranked<T> {
  const entries: T[] = [];
  const unconfigured = new Map<string, string[]>();
  let total = 0;
  for (const hit of opts.search().hits) {
    if (!opts.pass(hit)) continue;
    if (!opts.configured(hit.plugin)) {
      if (entries.length + [...unconfigured.values()].flat().length < opts.limit) unconfigured.set(hit.plugin, [...(unconfigured.get(hit.plugin) ?? []), hit.name]);
      continue;
    }
    if (entries.length < opts.limit) {
      const entry = opts.build(hit);
      if (entry === undefined) continue;
      entries.push(entry);
    }
    total += 1;
  }
  return { entries, total, unconfigured };
}

const QUERIES = ["list issues", "read file", "create ticket for users", "deploy release branch", "weather", "send message calendar event", "invoice payment query table", "zzz nothing", "srv3", "upload image commit"];

describe("search window", () => {
  it("picks exactly what the unlimited ranking picks, with demotion, filters and undescribable hits", () => {
    const index = createBm25fIndex();
    const tools = catalog(7, 40, 60);
    const byPlugin = new Map<string, SearchDocument[]>();
    for (const t of tools) {
      const docs = byPlugin.get(t.server) ?? [];
      docs.push({ plugin: t.server, kind: "tool", name: t.name, fields: { name: t.name, description: t.description } });
      byPlugin.set(t.server, docs);
    }
    for (const [plugin, docs] of byPlugin) index.setPluginDocuments(plugin, docs);
    let windows = 0;
    let windowAnswers = 0;
    let fullRankings = 0;
    // Variants: every plugin configured; a third not configured (named only); and, in the last, a caller that may not use some.
    const variants = [
      { configured: () => true, usable: () => true, describable: () => true },
      { configured: (p: string) => Number(p.slice(3)) % 3 !== 0, usable: () => true, describable: () => true },
      { configured: (p: string) => Number(p.slice(3)) % 2 === 0, usable: () => true, describable: (name: string) => !name.endsWith("_7") },
      { configured: (p: string) => Number(p.slice(3)) % 3 !== 0, usable: (p: string) => Number(p.slice(3)) % 5 !== 0, describable: () => true },
      // Few configured: the window's head is mostly unconfigured hits, and configured ones from past it are the entries.
      { configured: (p: string) => Number(p.slice(3)) % 8 === 0, usable: () => true, describable: () => true },
    ];
    for (const variant of variants) {
      for (const query of QUERIES) {
        for (const plugin of [undefined, "srv3", "srv9"]) {
          for (const limit of [1, 3, 5, 10, 20, 50]) {
            const scope = plugin === undefined ? {} : { plugin };
            const opts: RankedWindow<string> = {
              search: (cut) => {
                if (cut === undefined) fullRankings++;
                else windows++;
                return index.search(query, cut === undefined ? scope : { ...scope, limit: cut });
              },
              limit,
              configured: variant.configured,
              pass: (hit) => variant.usable(hit.plugin),
              build: (hit) => (variant.describable(hit.name) ? `${hit.plugin}/${hit.name}` : undefined),
              allCounted: [...byPlugin.keys()].filter((p) => plugin === undefined || p === plugin).every((p) => variant.usable(p) && variant.configured(p)),
            };
            const before = fullRankings;
            const got = pickRanked(opts);
            if (fullRankings === before && windows > 0) windowAnswers++;
            assert.deepEqual(got, reference(opts), `query '${query}', plugin ${plugin ?? "(all)"}, limit ${limit}`);
          }
        }
      }
    }
    // Both ways were taken: answers from the window alone, and the full ranking when the window could not prove its answer.
    assert.ok(windowAnswers > 100, `answered from the window alone ${windowAnswers} times`);
    assert.ok(fullRankings > 50, `fell back to the full ranking ${fullRankings} times`);
  });

  it("the runtime's search and discover answer as the unlimited ranking does, on 2,400 tools", async () => {
    const tools = catalog(11, 40, 60);
    const runtime = await createRuntime({ manifests: inMemoryManifests(tools, "window"), adapterKinds: { [IN_MEMORY_KIND]: inMemoryAdapterKind }, log: silentLogger, env: {}, maxResultChars: 10_000_000, searchEngine: "bm25f" });
    try {
      const session = runtime.createSession("window");
      // The first search lists every catalog into the index.
      await runtime.search(session, { query: "list" });
      for (const query of QUERIES) {
        const all = runtime.index.search(query);
        assert.ok(query.startsWith("zzz") || all.total > windowSize(50), `'${query}' matches more than any window (${all.total})`);
        for (const limit of [1, 5, 10, 50]) {
          const { payload } = await runtime.search(session, { query, limit, detail: true });
          const answer = payload as { hits?: { plugin: string; name: string }[]; total?: number };
          const expected = all.hits.slice(0, limit).map((h) => `${h.plugin}/${h.name}`);
          assert.deepEqual((answer.hits ?? []).map((h) => `${h.plugin}/${h.name}`), expected, `search '${query}', limit ${limit}`);
          assert.equal(answer.total ?? 0, all.total, `search '${query}' total`);
        }
        const prefix = runtime.plugins[3]!.manifest.prefix;
        const mine = runtime.index.search(query, { plugin: prefix });
        const { payload } = await runtime.discover(session, prefix, { query, limit: 5 });
        const answer = payload as { matches?: { name: string }[]; total?: number };
        assert.deepEqual((answer.matches ?? []).map((m) => m.name), mine.hits.slice(0, 5).map((h) => h.name), `discover '${query}'`);
        assert.equal(answer.total ?? 0, mine.total, `discover '${query}' total`);
      }
    } finally {
      await runtime.close();
    }
  });
});
