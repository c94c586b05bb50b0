import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { isRunning } from "./fixtures/mcp/support.js";
import { callJson, connect, FIXTURES } from "./helpers.js";

/**
 * A server the catalog's background upkeep started only to list (a cold cache) stops once its
 * catalog is stored, instead of idling for the 15 s kept for a call after a search or discover
 * (McpAdapter.listTools, ListToolsOptions.background); a search that joins such a listing while it
 * runs keeps the server for the call that may follow; a call starts a stopped one again. Real
 * runtime process over stdio, real fixture servers that log each start with their pid. The order
 * is set by the servers, not by timing: alpha answers tools/list only once the test releases it.
 */

const SERVER = path.join(FIXTURES, "mcp", "recording-server.mjs");
let dir: string;

const startLog = (name: string) => path.join(dir, `${name}.starts`);
const releaseAlpha = () => path.join(dir, "alpha.release");
const pids = (name: string): number[] => (existsSync(startLog(name)) ? readFileSync(startLog(name), "utf8").trim().split("\n").filter(Boolean).map(Number) : []);

async function until(what: string, probe: () => boolean, ms = 30_000): Promise<void> {
  for (const deadline = Date.now() + ms; !probe(); await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-background-stop-"));
  const held = { alpha: ["--hold-list", releaseAlpha()], beta: [] };
  const servers = Object.fromEntries(Object.entries(held).map(([name, hold]) => [name, { command: process.execPath, args: [SERVER, ...hold], env: { START_LOG: startLog(name) } }]));
  writeFileSync(path.join(dir, "agent-tools.config.json"), JSON.stringify({ mcpServers: servers }));
});
after(() => rmSync(dir, { recursive: true, force: true }));

test("cold cache: a server listed in the background stops once its catalog is stored, one a search joined while it was listed stays for a call; a call starts the stopped one again", async () => {
  const catalogs = path.join(dir, "cache", "catalogs");
  const stored = () => (existsSync(catalogs) ? readdirSync(catalogs).filter((n) => n.endsWith(".json")).length : 0);
  const rt = await connect(path.join(dir, "no-plugins"), { AGENT_TOOLS_CONFIG: path.join(dir, "agent-tools.config.json"), AGENT_TOOLS_CACHE_DIR: path.join(dir, "cache"), AGENT_TOOLS_CATALOG_CACHE: "on" });
  try {
    // Nothing is asked yet: the upkeep (after its grace) starts both servers to list them in the background.
    await until("the upkeep to start alpha", () => pids("alpha").length === 1);
    // A search within alpha joins that listing, still held: after its wait it says alpha is still
    // listing, so it asked before the listing's end (a search that came later would find the catalog).
    const { payload: searched } = await callJson(rt.client, "agent_tools_search", { query: "echo", plugin: "alpha" });
    assert.match(JSON.stringify(searched.unavailable), /still listing/, JSON.stringify(searched));
    writeFileSync(releaseAlpha(), "");
    await until("both catalogs stored", () => stored() === 2);
    const [beta] = pids("beta");
    assert.ok(beta !== undefined, "beta was started to be listed");
    // Well before the 15 s a listing for a caller is kept (12 s of bound: a loaded machine, and still short of that).
    await until("beta stopped", () => !isRunning(beta), 12_000);
    // A background listing's server goes within milliseconds of its answer (beta): two seconds on, alpha's is still there.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const [alpha] = pids("alpha");
    assert.ok(alpha !== undefined && isRunning(alpha), "alpha, whose listing a caller joined, is kept for the call that may follow");
    const { payload: discovered } = await callJson(rt.client, "agent_tools_alpha_discover", {});
    assert.equal((discovered.totals as { tools: number }).tools, 7, JSON.stringify(discovered));
    assert.equal(pids("alpha").length, 1, "alpha was started once");

    const { payload: called, isError } = await callJson(rt.client, "agent_tools_beta_call", { toolName: "echo", arguments: { text: "hi again" } });
    assert.equal(isError, false, JSON.stringify(called));
    assert.match(JSON.stringify(called), /hi again/);
    assert.equal(pids("beta").length, 2, "the call started beta again");
    assert.ok(isRunning(pids("beta")[1]!), "and it keeps running after the call (the normal idle timeout)");
  } finally {
    await rt.close();
  }
});
