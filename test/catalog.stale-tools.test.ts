import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { baseEnv, callJson, connect, FIXTURES, runCli, type Connected } from "./helpers.js";
import { untilValue } from "./wait.js";

/**
 * A catalog that no longer matches its server: a stored one from before the server added a tool,
 * one listed earlier in this process before the server renamed a tool without saying so, and the
 * loop breaker's memory of failures that the new catalog would not repeat. Real runtime processes
 * over stdio, a real fixture server whose tools come from a file the test edits, and a cache
 * folder of the test's own. Also: what search and the cache command say when a plugin cannot be
 * listed or the cache folder cannot be written.
 */

const SERVER = path.join(FIXTURES, "mcp", "file-tools-server.mjs");

const tool = (name: string, description = `The ${name} tool`) => ({ name, description, inputSchema: { type: "object", properties: {} }, annotations: { readOnlyHint: true } });

let dir: string;
let toolsFile: string;
let configFile: string;
let cacheDir: string;

const setTools = (...names: string[]) => writeFileSync(toolsFile, JSON.stringify(names.map((n) => tool(n))));
/** tools/list requests the fixture server has answered, over all its processes. */
const listings = () => (existsSync(`${toolsFile}.log`) ? readFileSync(`${toolsFile}.log`, "utf8").trim().split("\n").filter(Boolean).length : 0);

function start(extra: Record<string, string> = {}): Promise<Connected> {
  return connect(path.join(dir, "no-plugins"), { AGENT_TOOLS_CONFIG: configFile, AGENT_TOOLS_CATALOG_CACHE: "on", AGENT_TOOLS_CACHE_DIR: cacheDir, ...extra });
}

/** Calls `toolName` of plugin dyn, which must be refused UNKNOWN_TOOL; its error. */
async function unknownToolAnswer(connected: Connected, toolName: string): Promise<{ code: string; message: string; details: { suggestions: string[] } }> {
  const { payload, isError } = await callJson(connected.client, "agent_tools_dyn_call", { toolName });
  assert.equal(isError, true);
  const error = payload.error as unknown as { code: string; message: string; details: { suggestions: string[] } };
  assert.equal(error.code, "UNKNOWN_TOOL", JSON.stringify(error));
  return error;
}

async function searchNames(client: Connected["client"], query: string): Promise<string[]> {
  const { payload } = await callJson(client, "agent_tools_search", { query, plugin: "dyn", limit: 50 });
  return ((payload.hits as { name: string }[] | undefined) ?? []).map((h) => h.name);
}

describe("catalog out of date with its server", () => {
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-stale-"));
    mkdirSync(path.join(dir, "no-plugins"));
    toolsFile = path.join(dir, "tools.json");
    configFile = path.join(dir, "agent-tools.config.json");
    cacheDir = path.join(dir, "cache");
    writeFileSync(
      configFile,
      JSON.stringify({
        mcpServers: {
          dyn: { command: process.execPath, args: [SERVER, toolsFile], description: "Widget service" },
          down: { command: process.execPath, args: [path.join(dir, "nonexistent.mjs")], description: "A server that is down" },
        },
        plugins: { embedded: false },
      }),
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("a tool the server added after its catalog was stored is found by listing again, at the first call", async () => {
    setTools("frobnicate_widget", "list_gadgets");
    const first = await start();
    try {
      // The cold cache lists dyn in the background and stores it.
      await untilValue("dyn's catalog stored", async () => ((await searchNames(first.client, "gadgets")).includes("list_gadgets") && existsSync(path.join(cacheDir, "catalogs")) ? true : undefined));
    } finally {
      await first.close();
    }
    setTools("frobnicate_widget", "list_gadgets", "blip_new");
    const before = listings();
    const warm = await start();
    try {
      // Answered from the stored catalog: the server is not asked, and does not know blip_new yet.
      assert.deepEqual(await searchNames(warm.client, "blip"), []);
      assert.equal(listings(), before);
      const { payload, isError } = await callJson(warm.client, "agent_tools_dyn_call", { toolName: "blip_new" });
      assert.equal(isError, false, JSON.stringify(payload));
      assert.equal(payload.result, "called blip_new");
      assert.equal(listings(), before + 1, "one listing, made for the call");
      // The fresh list is the catalog now: search finds the new tool.
      assert.ok((await searchNames(warm.client, "blip")).includes("blip_new"));
    } finally {
      await warm.close();
    }
  });

  test("arguments refused by a stored schema the server has changed since: listed again, and the call runs against the new schema", async () => {
    const shape = (required: string) => ({ name: "shape", description: "Shape a widget", inputSchema: { type: "object", properties: { [required]: { type: "number" } }, required: [required], additionalProperties: false }, annotations: { readOnlyHint: true } });
    writeFileSync(toolsFile, JSON.stringify([shape("a"), tool("list_gadgets")]));
    rmSync(cacheDir, { recursive: true, force: true }); // a cold cache: the first start lists and stores this catalog
    const first = await start();
    try {
      await untilValue("dyn's catalog stored", async () => ((await searchNames(first.client, "shape widget")).includes("shape") && existsSync(path.join(cacheDir, "catalogs")) ? true : undefined));
    } finally {
      await first.close();
    }
    // The server is upgraded behind the stored catalog: `shape` now takes `b`, not `a`.
    writeFileSync(toolsFile, JSON.stringify([shape("b"), tool("list_gadgets")]));
    const before = listings();
    const warm = await start();
    try {
      const { payload, isError } = await callJson(warm.client, "agent_tools_dyn_call", { toolName: "shape", arguments: { b: 5 } });
      assert.equal(isError, false, JSON.stringify(payload));
      assert.equal(payload.result, "called shape");
      assert.equal(listings(), before + 1, "one listing, made for the refused arguments");
      // The fresh schema is the catalog's now: discover shows `b`, and a call with the old `a` is refused without listing again.
      const discovered = JSON.stringify((await callJson(warm.client, "agent_tools_dyn_discover", { query: "shape" })).payload);
      assert.match(discovered, /\bb\*/, discovered);
      const old = await callJson(warm.client, "agent_tools_dyn_call", { toolName: "shape", arguments: { a: 5 } });
      assert.equal(old.isError, true);
      assert.equal((old.payload.error as { code: string }).code, "ARG_VALIDATION_FAILED", JSON.stringify(old.payload));
      assert.equal(listings(), before + 1);
    } finally {
      await warm.close();
    }
  });

  test("arguments a stored schema refuses and the server's own list refuses too: one listing, the same refusal", async () => {
    const shape = { name: "shape", description: "Shape a widget", inputSchema: { type: "object", properties: { a: { type: "number" } }, required: ["a"] }, annotations: { readOnlyHint: true } };
    writeFileSync(toolsFile, JSON.stringify([shape, tool("list_gadgets")]));
    rmSync(cacheDir, { recursive: true, force: true });
    const first = await start();
    try {
      await untilValue("dyn's catalog stored", async () => ((await searchNames(first.client, "shape widget")).includes("shape") && existsSync(path.join(cacheDir, "catalogs")) ? true : undefined));
    } finally {
      await first.close();
    }
    const before = listings();
    const warm = await start();
    try {
      for (let i = 0; i < 2; i++) {
        const { payload, isError } = await callJson(warm.client, "agent_tools_dyn_call", { toolName: "shape", arguments: { a: "five" } });
        assert.equal(isError, true);
        const error = payload.error as { code: string; message: string };
        assert.equal(error.code, "ARG_VALIDATION_FAILED", JSON.stringify(payload));
        assert.match(error.message, /\/a: /);
      }
      assert.equal(listings(), before + 1, "listed once: the listing confirmed the stored catalog");
    } finally {
      await warm.close();
    }
  });

  test("a stored name the server renamed is answered UNKNOWN_TOOL with the near names of the fresh list", async () => {
    setTools("frobnicate_widget", "list_gadgets");
    const first = await start();
    try {
      // The server is running now: the stored catalog is confirmed by a listing after this call.
      assert.equal((await callJson(first.client, "agent_tools_dyn_call", { toolName: "list_gadgets" })).isError, false);
      await untilValue("the stored catalog confirmed", async () => ((await searchNames(first.client, "frobnicate")).includes("frobnicate_widget") ? true : undefined));
    } finally {
      await first.close();
    }
    setTools("frobnicate_gizmo", "list_gadgets");
    const warm = await start();
    try {
      const error = await unknownToolAnswer(warm, "frobnicate_widget");
      assert.deepEqual(error.details.suggestions.slice(0, 1), ["frobnicate_gizmo"]);
    } finally {
      await warm.close();
    }
  });

  test("a listed tool the server renamed without saying so: its 'unknown tool' answer lists again and says UNKNOWN_TOOL with the new name", async () => {
    setTools("frobnicate_widget", "list_gadgets");
    // No store: the catalog is this process's own listing, not a stored one.
    const connected = await start({ AGENT_TOOLS_CATALOG_CACHE: "off" });
    try {
      assert.equal((await callJson(connected.client, "agent_tools_dyn_call", { toolName: "list_gadgets" })).isError, false);
      setTools("frobnicate_gizmo", "list_gadgets");
      const before = listings();
      const error = await unknownToolAnswer(connected, "frobnicate_widget");
      assert.match(error.message, /has no tool 'frobnicate_widget' any more \(its server said so, and its tools were listed again\); did you mean 'frobnicate_gizmo'/);
      assert.equal(listings(), before + 1);
      // The new name is called at once; no further listing.
      const renamed = await callJson(connected.client, "agent_tools_dyn_call", { toolName: "frobnicate_gizmo" });
      assert.equal(renamed.payload.result, "called frobnicate_gizmo", JSON.stringify(renamed.payload));
      assert.equal(listings(), before + 1);
    } finally {
      await connected.close();
    }
  });

  test("the loop breaker forgets UNKNOWN_TOOL failures once the plugin's catalog changed (tools/list_changed)", async () => {
    setTools("reload", "list_gadgets");
    const connected = await start({ AGENT_TOOLS_CATALOG_CACHE: "off" });
    try {
      for (let i = 0; i < 2; i++) {
        const { payload } = await callJson(connected.client, "agent_tools_dyn_call", { toolName: "blip_new" });
        assert.equal((payload.error as { code: string }).code, "UNKNOWN_TOOL", JSON.stringify(payload));
      }
      setTools("reload", "list_gadgets", "blip_new");
      // The server says its list changed; the runtime lists it again.
      assert.equal((await callJson(connected.client, "agent_tools_dyn_call", { toolName: "reload" })).isError, false);
      await untilValue("blip_new searchable", async () => ((await searchNames(connected.client, "blip")).includes("blip_new") ? true : undefined));
      // The third identical call: no LOOP_DETECTED, the tool exists now.
      const { payload, isError } = await callJson(connected.client, "agent_tools_dyn_call", { toolName: "blip_new" });
      assert.equal(isError, false, JSON.stringify(payload));
      assert.equal(payload.result, "called blip_new");
      // An unchanged catalog still stops a loop.
      for (let i = 0; i < 2; i++) await callJson(connected.client, "agent_tools_dyn_call", { toolName: "nothing_like_it" });
      const third = await callJson(connected.client, "agent_tools_dyn_call", { toolName: "nothing_like_it" });
      assert.equal((third.payload.error as { code: string }).code, "LOOP_DETECTED");
    } finally {
      await connected.close();
    }
  });

  test("search names a plugin that cannot be listed in one line, and a search within it says why nothing was searched", async () => {
    setTools("list_gadgets");
    const connected = await start({ AGENT_TOOLS_CATALOG_CACHE: "off" });
    try {
      const { payload } = await callJson(connected.client, "agent_tools_search", { query: "list gadgets" });
      const unavailable = payload.unavailable as Record<string, string>;
      assert.match(unavailable.down ?? "", /^MCP server 'down' exited with code 1 before it finished starting \(.*\): Cannot find module '.*nonexistent\.mjs'$/);
      assert.ok((unavailable.down ?? "").length <= 160);
      assert.deepEqual((payload.hits as { name: string }[]).map((h) => h.name), ["list_gadgets"]);
      const within = await callJson(connected.client, "agent_tools_search", { query: "list", plugin: "down" });
      assert.match(String(within.payload.note), /^nothing was searched: the tools of plugin 'down' could not be listed \(why: under 'unavailable'\); its discover answers with the whole error$/);
      assert.match(String((within.payload.unavailable as Record<string, string>).down), /Cannot find module/);
      // The plugin's own discover keeps the whole error, stack and all.
      const discovered = await callJson(connected.client, "agent_tools_down_discover", {});
      assert.match(String((discovered.payload.error as { message: string }).message), /its last stderr lines:\n[\s\S]*MODULE_NOT_FOUND/);
    } finally {
      await connected.close();
    }
  });
});

describe("a catalog cache that cannot work", () => {
  let folder: string;
  let notAFolder: string;
  let config: string;
  before(() => {
    folder = mkdtempSync(path.join(os.tmpdir(), "agent-tools-cache-file-"));
    notAFolder = path.join(folder, "a-file");
    writeFileSync(notAFolder, "not a folder");
    const tools = path.join(folder, "tools.json");
    writeFileSync(tools, JSON.stringify([tool("list_gadgets")]));
    config = path.join(folder, "agent-tools.config.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { dyn: { command: process.execPath, args: [SERVER, tools] }, dyn2: { command: process.execPath, args: [SERVER, tools] } }, plugins: { embedded: false } }));
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  test("the server warns once, at the first store that fails, naming the folder and AGENT_TOOLS_CACHE_DIR", async () => {
    const connected = await connect(path.join(folder, "none"), { AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_CATALOG_CACHE: "on", AGENT_TOOLS_CACHE_DIR: notAFolder });
    try {
      await untilValue("both plugins listed", async () => {
        const { payload } = await callJson(connected.client, "agent_tools_search", { query: "gadgets" });
        return (payload.hits as unknown[]).length === 2 ? true : undefined;
      });
      const warnings = await untilValue("the warning", () => {
        const lines = connected.stderr().split("\n").filter((l) => l.includes("catalog cache: could not store"));
        return lines.length ? lines : undefined;
      });
      // Give the second plugin's failed store time to (not) warn again.
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(connected.stderr().split("\n").filter((l) => l.includes("catalog cache: could not store")).length, 1, connected.stderr());
      assert.match(warnings[0] ?? "", /warn: catalog cache: could not store '.*' in .*a-file.*ENOTDIR.*Set AGENT_TOOLS_CACHE_DIR to a folder this user can write, or AGENT_TOOLS_CATALOG_CACHE=off/);
    } finally {
      await connected.close();
    }
  });

  test("agent-tools cache and cache clear say the folder cannot be used and exit 1", async () => {
    for (const args of [["cache"], ["cache", "clear"]]) {
      const run = await runCli(args, baseEnv({ AGENT_TOOLS_CATALOG_CACHE: "on", AGENT_TOOLS_CACHE_DIR: notAFolder }));
      assert.equal(run.code, 1, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, new RegExp(`cannot ${args[1] ?? "read"} the catalog cache folder .*a-file.*ENOTDIR.*AGENT_TOOLS_CACHE_DIR`));
    }
    // A folder not made yet is an empty cache, not a problem.
    const fresh = await runCli(["cache"], baseEnv({ AGENT_TOOLS_CATALOG_CACHE: "on", AGENT_TOOLS_CACHE_DIR: path.join(folder, "not-yet") }));
    assert.equal(fresh.code, 0, fresh.stderr);
    assert.equal((JSON.parse(fresh.stdout) as { entries: number }).entries, 0);
  });

  test("an AGENT_TOOLS_CATALOG_CACHE that is neither on nor off is said, and the cache stays on", async () => {
    const run = await runCli(["cache"], baseEnv({ AGENT_TOOLS_CATALOG_CACHE: "bogus", AGENT_TOOLS_CACHE_DIR: path.join(folder, "bogus-cache") }));
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /AGENT_TOOLS_CATALOG_CACHE='bogus' is neither on nor off; use off \(or 0, false, no\) to turn it off, on to keep it on; using the default/);
    assert.match((JSON.parse(run.stdout) as { location: string }).location, /bogus-cache/);
    const connected = await connect(path.join(folder, "none"), { AGENT_TOOLS_CONFIG: config, AGENT_TOOLS_CATALOG_CACHE: "bogus", AGENT_TOOLS_CACHE_DIR: path.join(folder, "bogus-cache") });
    try {
      await untilValue("the warning", () => (/warn: AGENT_TOOLS_CATALOG_CACHE='bogus' is neither on nor off/.test(connected.stderr()) ? true : undefined));
    } finally {
      await connected.close();
    }
  });
});
