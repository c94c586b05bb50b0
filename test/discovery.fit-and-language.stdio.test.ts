import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { callJson, connect, writePlugin, type Connected } from "./helpers.js";

/**
 * What search and discover answer over real stdio (the built server, the SDK client), for two
 * plugins written here: `files`, with 60 tools about files, and `chores`, with five. A search's
 * answer is held to its token budget as sent, its `repairs` included (it was 787 tokens while its
 * `more` said 780); a query in another language is told the index is English, and a discover of a
 * plugin whose whole catalog fits its limit lists that catalog instead of nothing.
 */

const SEARCH_TOKEN_BUDGET = 780;

function adapterOf(tools: Array<{ name: string; description: string }>): string {
  const listed = tools.map((t) => ({ ...t, inputSchema: { type: "object", properties: { path: { type: "string", description: "where, relative to the root" }, recursive: { type: "boolean" } }, required: ["path"] } }));
  return `export default class { async listTools() { return { tools: ${JSON.stringify(listed)} }; } async call(name) { return { called: name }; } }\n`;
}

const FILE_WORDS = ["read", "write", "copy", "move", "delete", "list", "stat", "hash", "zip", "unzip", "watch", "lock"];

describe("search and discover answers: the budget as sent, and queries in other languages", () => {
  let server: Connected;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-fit-"));
    const files = Array.from({ length: 60 }, (_, i) => ({
      name: `${FILE_WORDS[i % FILE_WORDS.length]}_file_${i}`,
      description: `${FILE_WORDS[i % FILE_WORDS.length]} a file or a folder of files on the shared drive, keeping its owner, its times and its permission bits as they were (variant ${i})`,
    }));
    writePlugin(path.join(dir, "agent-tools-plugin-files"), { name: "files", prefix: "files", description: "Files on the shared drive.", adapter: "./adapter.mjs", readonlyTools: files.map((t) => t.name) }, { "adapter.mjs": adapterOf(files) });
    const chores = [
      { name: "list_chores", description: "List the household chores, optionally only those still to do." },
      { name: "get_chore", description: "Read one chore by its id." },
      { name: "create_chore", description: "Add a new chore with a title and who does it." },
      { name: "update_chore", description: "Change a chore's title, its assignee or mark it done." },
      { name: "delete_chore", description: "Remove a chore for good." },
    ];
    writePlugin(path.join(dir, "agent-tools-plugin-chores"), { name: "chores", prefix: "chores", description: "Household chores.", adapter: "./adapter.mjs", readonlyTools: ["list_chores", "get_chore"] }, { "adapter.mjs": adapterOf(chores) });
    // BM25F only: these tests are about the answers' shape, and the model's load would only slow them.
    server = await connect(dir, { AGENT_TOOLS_SEARCH_ENGINE: "bm25f" });
  });
  after(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The answer's text as the client gets it, and its o200k tokens. */
  async function sent(tool: string, args: Record<string, unknown>): Promise<{ payload: Record<string, unknown>; tokens: number }> {
    const { payload } = await callJson(server.client, tool, args);
    return { payload, tokens: countTokens(JSON.stringify(payload)) };
  }

  it("a search cut to its budget stays under it with its repairs, and says the budget it keeps", async () => {
    const plain = await sent("agent_tools_search", { query: "file", limit: 50 });
    assert.ok(plain.tokens <= SEARCH_TOKEN_BUDGET, `${plain.tokens} tokens`);
    assert.ok(Number(plain.payload.shown) < Number(plain.payload.total), "the catalog is larger than one answer");
    // Two repairs (a limit over the most, a key it does not take) are sent too: the hits make room for them.
    const repaired = await sent("agent_tools_search", { query: "file", limit: 500, verbose: true });
    assert.equal((repaired.payload.repairs as string[]).length, 2, JSON.stringify(repaired.payload.repairs));
    assert.ok(repaired.tokens <= SEARCH_TOKEN_BUDGET, `${repaired.tokens} tokens with repairs, over the ${SEARCH_TOKEN_BUDGET} its more says`);
    assert.match(String(repaired.payload.more), new RegExp(`answers are kept under ${SEARCH_TOKEN_BUDGET} tokens`));
    assert.ok(Number(repaired.payload.shown) < Number(plain.payload.shown), `${String(repaired.payload.shown)} hits with the repairs, ${String(plain.payload.shown)} without`);
  });

  it("a query in another language is told the index is English; a plugin that fits its limit is listed instead of nothing", async () => {
    for (const query of ["créer une tâche ménagère", "Hausarbeit anlegen", "删除家务"]) {
      const search = await sent("agent_tools_search", { query });
      assert.equal(search.payload.total, 0, query);
      assert.equal(search.payload.note, "nothing matches; the index is English: try English words for the action and object, or a plugin's discover without a query to list its tools");
      const discover = await sent("agent_tools_chores_discover", { query });
      const listed = discover.payload.matches as { name: string }[];
      assert.deepEqual(listed.map((m) => m.name).sort(), ["create_chore", "delete_chore", "get_chore", "list_chores", "update_chore"], query);
      assert.equal(discover.payload.note, `nothing in 'chores' matches '${query}' (the index is English: try English words for the action and object); its tools (5) are listed instead`);
      assert.deepEqual(discover.payload.totals, { tools: 5, skills: 0 });
      assert.ok(discover.payload.next, "the first entry's call, as in any listing");
    }
    // Larger than the limit: the catalog is not listed, the note says what to try.
    const big = await sent("agent_tools_files_discover", { query: "Datei lesen" });
    assert.deepEqual(big.payload.matches, []);
    assert.equal(big.payload.note, "nothing in 'files' matches 'Datei lesen'; the index is English: try English words for the action and object, or call without a query to list the tools");
    // An English query still ranks as before.
    const english = await sent("agent_tools_chores_discover", { query: "add a chore" });
    assert.equal((english.payload.matches as { name: string }[])[0]?.name, "create_chore");
    assert.equal(english.payload.note, undefined);
  });
});
