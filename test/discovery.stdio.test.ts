import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { baseEnv, callJson, connect, type Connected, FIXTURES, PLUGINS, runCli, textJson, writePlugin } from "./helpers.js";

// Discovery through the built server over stdio: agent_tools_search, _discover, compact mode with
// 1 and 50 plugins, the server instructions, the index following a downstream list_changed, and
// the tokens / search-bench commands.

interface Hit {
  plugin: string;
  /** "skill" for skills; absent for tools. */
  kind?: "skill";
  name: string;
  description: string;
  next: { tool: string; arguments: Record<string, unknown> };
}

/** Manifest-only plugins with a tiny module adapter each: svc1 … svcN, each with a widget tool of its own number. */
function makeFleet(count: number): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-fleet-"));
  for (let i = 1; i <= count; i++) {
    writePlugin(
      path.join(dir, `agent-tools-plugin-svc${i}`),
      { name: `svc${i}`, prefix: `svc${i}`, description: `Service ${i}: widgets and gadgets.`, adapter: "./adapter.mjs", readonlyTools: [`get_widget_${i}`] },
      {
        "adapter.mjs": `export default class {
  async listTools() {
    return { tools: [
      { name: "get_widget_${i}", description: "Read widget ${i} by its id.", inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } },
      { name: "paint_gadget", description: "Paint a gadget a colour.", inputSchema: { type: "object", properties: { colour: { type: "string" } } } },
    ] };
  }
  async call(name, args) { return { service: ${i}, tool: name, args }; }
}
`,
      },
    );
  }
  return dir;
}

describe("agent_tools_search and _discover (per-plugin mode)", () => {
  let server: Connected;
  before(async () => {
    // These tests compare rankings across calls: each waits for the semantic side (model, embeddings),
    // so no answer is BM25F-only because the model was still loading (the default waits 250 ms).
    server = await connect(PLUGINS, { AGENT_TOOLS_SEMANTIC_WAIT_MS: "ready" });
  });
  after(async () => server.close());

  it("answers ranked hits across plugins, each with plugin, kind, name, one line and the exact next call", async () => {
    const { payload, isError } = await callJson(server.client, "agent_tools_search", { query: "read a note by id" });
    assert.equal(isError, false);
    const hits = payload.hits as Hit[];
    assert.ok(hits.length > 0);
    assert.equal(hits[0]?.plugin, "notes");
    assert.equal(hits[0]?.name, "get_note");
    assert.equal(hits[0]?.kind, undefined, "a tool is the default kind");
    assert.deepEqual(hits[0]?.next, { tool: "agent_tools_notes_call", arguments: { toolName: "get_note", arguments: { id: "<string>" } } });
    for (const hit of hits) {
      assert.ok(!hit.description.includes("\n") && hit.description.length <= 90, `one short line: ${hit.description}`);
      assert.match(hit.next.tool, hit.kind === "skill" ? /^agent_tools_\w+_run_skill$/ : /^agent_tools_\w+_call$/);
    }
    const skill = (await callJson(server.client, "agent_tools_search", { query: "count notes" })).payload.hits as Hit[];
    assert.ok(skill.some((h) => h.kind === "skill" && h.name === "count" && h.next.tool === "agent_tools_notes_run_skill" && h.next.arguments.skill === "count"));
  });

  it("stays under 800 tokens at limit 10, and gives schemas only with detail: true", async () => {
    const result = await server.client.callTool({ name: "agent_tools_search", arguments: { query: "list notes tickets search write", limit: 10 } });
    const text = (result.content as { type: string; text: string }[])[0]!.text;
    const tokens = countTokens(text);
    assert.ok(tokens < 800, `answer is ${tokens} tokens`);
    assert.equal((textJson<{ hits: unknown[] }>(result).hits).length, 10);
    assert.ok(!text.includes("inputSchema"));
    const detailed = await callJson(server.client, "agent_tools_search", { query: "create note", limit: 1, detail: true });
    assert.deepEqual((detailed.payload.hits as { inputSchema: { required: string[] } }[])[0]?.inputSchema.required, ["title", "body"]);
    // The schema is shown once: no `$schema` URI, no `optional` summary beside it, no query echo.
    const hit = (detailed.payload.hits as Array<Record<string, unknown>>)[0] ?? {};
    assert.equal((hit.inputSchema as Record<string, unknown>).$schema, undefined);
    assert.equal(hit.optional, undefined);
    assert.equal(detailed.payload.query, undefined);
  });

  it("refuses a missing query with a hint, and reports plugins that are not configured", async () => {
    const missing = await callJson(server.client, "agent_tools_search", {});
    assert.equal(missing.isError, true);
    assert.equal(missing.payload.error?.code, "ARG_VALIDATION_FAILED");
    // Earlier tests searched in this session: nothing here concerns vault, so it is not said again.
    const ok = await callJson(server.client, "agent_tools_search", { query: "ticket" });
    assert.equal(ok.payload.notConfigured, undefined);
    assert.ok((ok.payload.hits as Hit[]).every((h) => h.plugin !== "vault"));
    // A query that names it does.
    const named = await callJson(server.client, "agent_tools_search", { query: "vault secrets" });
    assert.deepEqual(named.payload.notConfigured, ["vault"]);
  });

  it("_discover without a query lists skills first, then read-only tools, with totals", async () => {
    const { payload } = await callJson(server.client, "agent_tools_notes_discover", { limit: 5 });
    const matches = payload.matches as { kind: string; name: string }[];
    assert.deepEqual(payload.totals, { tools: 8, skills: 2 });
    assert.equal(payload.total, 10);
    assert.equal(payload.shown, 5);
    assert.deepEqual(matches.slice(0, 2).map((m) => m.kind), ["skill", "skill"]);
    assert.deepEqual(matches.slice(2).map((m) => m.name), ["list_notes", "get_note", "search_notes"], "read-only tools follow the skills");
    assert.match(String(payload.more), /5 more/);
  });

  it("_discover with a query uses the same index, filtered to its plugin", async () => {
    const discover = await callJson(server.client, "agent_tools_notes_discover", { query: "delete a note", limit: 10 });
    const search = await callJson(server.client, "agent_tools_search", { query: "delete a note", plugin: "notes" });
    assert.deepEqual(
      (discover.payload.matches as Hit[]).map((m) => m.name),
      (search.payload.hits as Hit[]).map((h) => h.name),
    );
    assert.equal((discover.payload.matches as Hit[])[0]?.name, "delete_note");
  });

  it("sends instructions with a line per configured service, the others named once, saying to search first", async () => {
    const instructions = server.client.getInstructions() ?? "";
    assert.match(instructions, /Search before guessing: agent_tools_search/);
    for (const prefix of ["notes", "tracker"]) assert.match(instructions, new RegExp(`^- ${prefix}: `, "m"));
    // vault is not configured: no line of its own (tools/list hides its tools), only the summary line.
    assert.doesNotMatch(instructions, /^- vault/m);
    assert.match(instructions, /^Not configured \(agent_tools_help says what each needs\): vault\.$/m);
    assert.equal(instructions.match(/vault/g)?.length, 1, "vault is named once");
    // The pointer holds: help says what vault needs.
    const help = await callJson(server.client, "agent_tools_help", {});
    const vault = (help.payload.plugins as Array<{ prefix: string; status: string }>).find((p) => p.prefix === "vault");
    assert.match(vault?.status ?? "", /^not configured: set \S+/);
    // 122 tokens with vault's own line "(not configured)", 117 without (2026-12-04).
    assert.ok(countTokens(instructions) < 120, `kept short: ${countTokens(instructions)} tokens`);
  });
});

describe("compact facade mode", () => {
  const fleets: Record<number, string> = {};
  before(() => {
    fleets[1] = makeFleet(1);
    fleets[50] = makeFleet(50);
  });
  after(() => {
    for (const dir of Object.values(fleets)) rmSync(dir, { recursive: true, force: true });
  });

  it("shows the same fixed tool set with 1 and with 50 plugins, and can find and call a tool in any of them", async () => {
    const seen: string[][] = [];
    for (const size of [1, 50]) {
      const server = await connect(fleets[size]!, { AGENT_TOOLS_FACADE: "compact" });
      try {
        const { tools } = await server.client.listTools();
        seen.push(tools.map((t) => t.name).sort());
        for (const n of size === 1 ? [1] : [1, 37, 50]) {
          const found = await callJson(server.client, "agent_tools_search", { query: `widget ${n}`, limit: 3 });
          const hit = (found.payload.hits as Hit[])[0]!;
          assert.equal(hit.plugin, `svc${n}`);
          assert.equal(hit.name, `get_widget_${n}`);
          assert.deepEqual(hit.next, { tool: "agent_tools_call", arguments: { plugin: `svc${n}`, toolName: `get_widget_${n}`, arguments: { id: "<string>" } } });
          const called = await callJson(server.client, "agent_tools_call", { plugin: hit.plugin, toolName: hit.name, arguments: { id: "w1" } });
          assert.equal(called.isError, false, JSON.stringify(called.payload));
          assert.deepEqual(called.payload.result, { service: n, tool: `get_widget_${n}`, args: { id: "w1" } });
        }
        const gated = await callJson(server.client, "agent_tools_call", { plugin: `svc${size}`, toolName: "paint_gadget", arguments: {} });
        assert.equal(gated.payload.error?.code, "CONFIRM_REQUIRED", "the confirm gate still applies");
        const unknown = await callJson(server.client, "agent_tools_call", { plugin: "svc", toolName: "paint_gadget" });
        assert.equal(unknown.payload.error?.code, "UNKNOWN_PLUGIN");
        assert.match(unknown.payload.error?.message ?? "", /no plugin has prefix 'svc'/);
        assert.ok((unknown.payload.error?.details?.plugins as string[]).length > 0, "the hint's details.plugins exists");
        assert.match(server.client.getInstructions() ?? "", /agent_tools_call/);
      } finally {
        await server.close();
      }
    }
    assert.deepEqual(seen[0], seen[1]);
    assert.deepEqual(seen[0], ["agent_tools_call", "agent_tools_exec", "agent_tools_help", "agent_tools_run_skill", "agent_tools_search"]);
  });

  it("declares search's plugin argument in both modes, the one compact help's next uses, and it filters", async () => {
    for (const mode of ["per-plugin", "compact"]) {
      const server = await connect(fleets[50]!, { AGENT_TOOLS_FACADE: mode });
      try {
        const { tools } = await server.client.listTools();
        const search = tools.find((t) => t.name === "agent_tools_search");
        const declared = Object.keys(search?.inputSchema.properties ?? {});
        assert.ok(declared.includes("plugin"), `${mode}: agent_tools_search declares ${declared.join(", ")}`);
        const everywhere = await callJson(server.client, "agent_tools_search", { query: "paint a gadget", limit: 10 });
        assert.ok(new Set((everywhere.payload.hits as Hit[]).map((h) => h.plugin)).size > 1, "without plugin, hits come from several plugins");
        const one = await callJson(server.client, "agent_tools_search", { query: "paint a gadget", limit: 10, plugin: "svc37" });
        assert.equal(one.isError, false, JSON.stringify(one.payload));
        const hits = one.payload.hits as Hit[];
        assert.ok(hits.length > 0 && hits.every((h) => h.plugin === "svc37"), JSON.stringify(hits.map((h) => h.plugin)));
        if (mode === "compact") {
          // Help's way into one plugin in this mode is a search with `plugin`: every argument it sends is declared.
          const help = await callJson(server.client, "agent_tools_help", { plugin: "svc37" });
          const next = (help.payload.plugin as { next: { tool: string; arguments: Record<string, unknown> } }).next;
          assert.equal(next.tool, "agent_tools_search");
          for (const name of Object.keys(next.arguments)) assert.ok(declared.includes(name), `help's next sends '${name}', which the schema declares`);
        }
      } finally {
        await server.close();
      }
    }
  });

  it("is chosen by the config file's facade.mode; a misspelt search is mended, an invented name is not", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-compact-config-"));
    const config = path.join(dir, "agent-tools.config.json");
    writeFileSync(config, JSON.stringify({ facade: { mode: "compact" }, plugins: { dirs: [PLUGINS] } }));
    const server = await connect(dir, { AGENT_TOOLS_CONFIG: config });
    try {
      const { tools } = await server.client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ["agent_tools_call", "agent_tools_exec", "agent_tools_help", "agent_tools_run_skill", "agent_tools_search"]);
      const routed = await callJson(server.client, "agent_tools_serch", { query: "delete a note" });
      assert.equal((routed.payload.hits as Hit[])[0]?.name, "delete_note");
      assert.match(String(routed.payload.repairs), /read as 'agent_tools_search'/);
      const invented = await callJson(server.client, "agent_tools_find_tool", { query: "delete a note" });
      assert.equal(invented.payload.error?.code, "UNKNOWN_FACADE_TOOL");
      assert.ok((invented.payload.error?.details?.tools as string[]).includes("agent_tools_search"));
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("runs a skill through agent_tools_run_skill", async () => {
    const server = await connect(PLUGINS, { AGENT_TOOLS_FACADE: "compact" });
    try {
      const { payload } = await callJson(server.client, "agent_tools_run_skill", { plugin: "notes", skill: "count" });
      assert.equal(payload.ok, true, JSON.stringify(payload));
      assert.deepEqual(payload.result, { count: 2 });
      const help = await callJson(server.client, "agent_tools_help");
      assert.match(JSON.stringify(help.payload.protocol), /agent_tools_call\(\{plugin, toolName, arguments\}\)/);
    } finally {
      await server.close();
    }
  });
});

describe("the index follows a downstream catalog change", () => {
  it("finds a tool an MCP server adds at run time (tools/list_changed)", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-changed-"));
    const config = path.join(dir, "agent-tools.config.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { fixture: { command: process.execPath, args: [path.join(FIXTURES, "mcp", "stdio-server.mjs")] } } }));
    const server = await connect(dir, { AGENT_TOOLS_CONFIG: config });
    try {
      await server.client.listTools(); // as a client does first: list changes are for a list it has
      const before = await callJson(server.client, "agent_tools_search", { query: "zebra counter" });
      assert.equal(before.payload.total, 0);
      const changed = new Promise<void>((resolve) => server.client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
      const added = await callJson(server.client, "agent_tools_fixture_call", { toolName: "add_tool", arguments: { name: "zebra_counter" }, confirm: true });
      assert.equal(added.isError, false, JSON.stringify(added.payload));
      await changed;
      const after = await callJson(server.client, "agent_tools_search", { query: "zebra counter" });
      assert.equal((after.payload.hits as Hit[])[0]?.name, "zebra_counter");
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("agent-tools tokens and search-bench", () => {
  it("tokens --json reports both facade modes, the flat listing and a line per plugin", async () => {
    const { code, stdout } = await runCli(["tokens", "--json"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_LOG: "silent" }));
    assert.equal(code, 0);
    const report = JSON.parse(stdout) as {
      encoding: string;
      plugins: number;
      flat: { tools: number; tokens: number };
      modes: Record<"per-plugin" | "compact", { tools: number; tokens: number; reduction: number }>;
      instructionsTokens: Record<"per-plugin" | "compact", number>;
      perPluginFixedTools: string[];
      perPluginFixedTokens: number;
      perPlugin: { prefix: string; tools: number; flatTokens: number; perPluginTokens: number }[];
    };
    assert.equal(report.encoding, "o200k_base");
    assert.equal(report.plugins, 3);
    assert.equal(report.flat.tools, 10, "notes 8 + tracker 2; vault is not configured");
    assert.equal(report.modes.compact.tools, 5);
    assert.equal(report.modes["per-plugin"].tools, 3 + 3 + 3, "help, search, exec, a trio per plugin with skills; vault is not configured, so not listed");
    assert.ok(report.modes.compact.tokens < report.modes["per-plugin"].tokens);
    // The count of what the server sends at initialize, made by the same builder.
    const server = await connect(PLUGINS);
    try {
      assert.equal(report.instructionsTokens["per-plugin"], countTokens(server.client.getInstructions() ?? ""));
      // The fixed part is exactly the tools it names, as the server lists them.
      assert.deepEqual(report.perPluginFixedTools, ["agent_tools_help", "agent_tools_search", "agent_tools_exec"]);
      const listed = (await server.client.listTools()).tools.filter((tool) => report.perPluginFixedTools.includes(tool.name));
      assert.equal(listed.length, 3);
      assert.equal(countTokens(JSON.stringify({ tools: listed })), report.perPluginFixedTokens, "the figure counts the tools it names");
    } finally {
      await server.close();
    }
    assert.ok(report.instructionsTokens.compact > 0);
    assert.deepEqual(report.perPlugin.map((p) => p.prefix), ["notes", "tracker", "vault"]);
    // vault is not configured: it adds nothing to tools/list, and its figure says so (it said 4, an empty list's wrapper).
    assert.deepEqual(report.perPlugin.map((p) => p.perPluginTokens > 0), [true, true, false]);
    const perPluginSum = report.perPluginFixedTokens + report.perPlugin.reduce((n, p) => n + p.perPluginTokens, 0);
    assert.ok(Math.abs(perPluginSum - report.modes["per-plugin"].tokens) <= 3, `the fixed tools and the plugins' shares add up to the total: ${perPluginSum} vs ${report.modes["per-plugin"].tokens}`);
    const flatSum = report.perPlugin.reduce((n, p) => n + p.flatTokens, 0);
    assert.ok(Math.abs(flatSum - report.flat.tokens) < 10, "the flat total is the sum of the plugins' listings");
    // The text report names what the fixed figure covers, with the same figure.
    const text = await runCli(["tokens"], baseEnv({ AGENT_TOOLS_PLUGINS_DIR: PLUGINS, AGENT_TOOLS_LOG: "silent" }));
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`per-plugin mode also pays ${report.perPluginFixedTokens} tokens once for its fixed tools agent_tools_help, agent_tools_search, agent_tools_exec\\)`));
  });

  it("search-bench writes a ranked line per query and prints metrics beside the plain BM25 baseline", async () => {
    const tools = path.join(FIXTURES, "retrieval", "tools.json");
    const queries = path.join(FIXTURES, "retrieval", "queries.jsonl");
    const { code, stdout, stderr } = await runCli(["search-bench", "--tools", tools, "--queries", queries, "--limit", "3"]);
    assert.equal(code, 0, stderr);
    const lines = stdout.trim().split("\n").map((l) => JSON.parse(l) as { id: string; ranked: string[] });
    assert.deepEqual(lines.map((l) => l.id), ["q1", "q2", "q3", "q4"]);
    assert.ok(lines.every((l) => l.ranked.length <= 3));
    assert.equal(lines[3]?.ranked[0], "getStockPrice");
    assert.match(stderr, /^hybrid +R@1 .*R@5 .*R@10 .*nDCG@10 .*MRR .*C@5 .*C@10 .*p50 .*p95/m);
    assert.match(stderr, /^bm25 \(plain baseline\)/m);
    const bad = await runCli(["search-bench", "--tools", tools]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /needs --tools FILE .* and --queries FILE/);
  });

  it("search-bench refuses a queries file with no queries, naming it, instead of printing 0% metrics", async () => {
    const tools = path.join(FIXTURES, "retrieval", "tools.json");
    const dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-bench-empty-"));
    try {
      for (const [name, text] of [["empty.jsonl", ""], ["blank.jsonl", "\n  \n"]] as const) {
        const queries = path.join(dir, name);
        writeFileSync(queries, text);
        const { code, stdout, stderr } = await runCli(["search-bench", "--tools", tools, "--queries", queries]);
        assert.equal(code, 2, stderr);
        assert.equal(stdout, "");
        assert.equal(stderr, `agent-tools search-bench: ${queries}: has no queries; write one JSON object a line, {"query": "…", "relevant": ["tool_name"]}\n`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("search-bench reads the process environment as the server does: a second run with the same AGENT_TOOLS_CACHE_DIR embeds nothing again, and the expansion switch is honoured", async () => {
    const tools = path.join(FIXTURES, "retrieval", "tools.json");
    const queries = path.join(FIXTURES, "retrieval", "queries.jsonl");
    const cacheDir = mkdtempSync(path.join(os.tmpdir(), "bench-cache-"));
    try {
      const env = baseEnv({ AGENT_TOOLS_CATALOG_CACHE: "on", AGENT_TOOLS_CACHE_DIR: cacheDir });
      const bench = (extra: Record<string, string> = {}) => runCli(["search-bench", "--tools", tools, "--queries", queries, "--limit", "3"], { ...env, ...extra });
      const first = await bench();
      assert.equal(first.code, 0, first.stderr);
      // Until session 11 it ran with an empty environment: vectors were kept in memory only.
      const embeddings = path.join(cacheDir, "embeddings");
      const files = readdirSync(embeddings).filter((n) => n.startsWith("embeddings-"));
      assert.equal(files.length, 1, `one model's vectors in ${embeddings}: ${files.join(", ")}`);
      const file = path.join(embeddings, files[0]!);
      const written = statSync(file).mtimeMs;
      // A fixture query is a weak match, so it was expanded: its WordNet sense vectors are kept beside the catalog's.
      const senses = path.join(embeddings, files[0]!.replace(/^embeddings-/, "senses-"));
      const sensesWritten = statSync(senses).mtimeMs;
      assert.ok(readFileSync(senses).readUInt32LE(8) > 0, "sense vectors on disk");
      assert.match(first.stderr, new RegExp(`^hybrid: embeddings cached in ${embeddings.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}; intent expansion on`, "m"));
      const second = await bench();
      assert.equal(second.code, 0, second.stderr);
      assert.equal(second.stdout, first.stdout, "the same {id, ranked} lines on stdout");
      // The cache file is rewritten whenever a vector is added (embedding-cache.ts flush): untouched, so nothing was embedded again.
      assert.equal(statSync(file).mtimeMs, written, "the second run embedded nothing new");
      assert.equal(statSync(senses).mtimeMs, sensesWritten, "nor any WordNet sense: the first run's were read from disk");
      // Expansion off, in a cache folder of its own: the catalog is embedded, no sense is.
      const offDir = path.join(cacheDir, "off");
      const off = await bench({ AGENT_TOOLS_SEARCH_EXPANSION: "off", AGENT_TOOLS_CACHE_DIR: offDir });
      assert.equal(off.code, 0, off.stderr);
      assert.deepEqual(readdirSync(path.join(offDir, "embeddings")), files, "no senses file with the expansion off");
      assert.match(off.stderr, /^hybrid: embeddings cached in .*; intent expansion off \(AGENT_TOOLS_SEARCH_EXPANSION=off\)$/m);
      assert.ok(off.stdout.trim().split("\n").every((l) => Array.isArray((JSON.parse(l) as { ranked: unknown }).ranked)), "stdout is still only the ranked lines");
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });
});
