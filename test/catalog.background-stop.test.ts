import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { callJson, connect, FIXTURES } from "./helpers.js";

/**
 * A server the catalog's background upkeep started only to list (a cold cache) stops once its
 * catalog is stored, instead of idling for the 15 s kept for a call after a search or discover
 * (McpAdapter.listTools, ListToolsOptions.background); a call starts it again. Real runtime
 * process over stdio, real fixture servers that log each start with their pid.
 */

const SERVER = path.join(FIXTURES, "mcp", "recording-server.mjs");
let dir: string;

const startLog = (name: string) => path.join(dir, `${name}.starts`);
const pids = (name: string): number[] => (existsSync(startLog(name)) ? readFileSync(startLog(name), "utf8").trim().split("\n").filter(Boolean).map(Number) : []);

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(what: string, probe: () => boolean, ms = 30_000): Promise<void> {
  for (const deadline = Date.now() + ms; !probe(); await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-background-stop-"));
  const servers = Object.fromEntries(["alpha", "beta"].map((name) => [name, { command: process.execPath, args: [SERVER], env: { START_LOG: startLog(name) } }]));
  writeFileSync(path.join(dir, "agent-tools.config.json"), JSON.stringify({ mcpServers: servers }));
});
after(() => rmSync(dir, { recursive: true, force: true }));

test("cold cache: a server listed in the background stops once its catalog is stored, one discovered stays for a call; a call starts the stopped one again", async () => {
  const catalogs = path.join(dir, "cache", "catalogs");
  const stored = () => (existsSync(catalogs) ? readdirSync(catalogs).filter((n) => n.endsWith(".json")).length : 0);
  const rt = await connect(path.join(dir, "no-plugins"), { AGENT_TOOLS_CONFIG: path.join(dir, "agent-tools.config.json"), AGENT_TOOLS_CATALOG_CACHE: "on", AGENT_TOOLS_CACHE_DIR: path.join(dir, "cache") });
  try {
    // alpha is asked for before the upkeep's grace (1 s) is over: a caller waits, a call may follow.
    const { payload: discovered } = await callJson(rt.client, "agent_tools_alpha_discover", {});
    assert.equal((discovered.totals as { tools: number }).tools, 7, JSON.stringify(discovered));
    // beta is listed by the upkeep, in the background.
    await until("both catalogs stored", () => stored() === 2);
    const [beta] = pids("beta");
    assert.ok(beta !== undefined, "beta was started to be listed");
    // Well before the 15 s a listing for a caller is kept.
    await until("beta stopped", () => !running(beta), 5_000);
    const [alpha] = pids("alpha");
    assert.ok(alpha !== undefined && running(alpha), "alpha, listed for a caller, is kept for the call that may follow");
    assert.equal(pids("alpha").length, 1);

    const { payload: called, isError } = await callJson(rt.client, "agent_tools_beta_call", { toolName: "echo", arguments: { text: "hi again" } });
    assert.equal(isError, false, JSON.stringify(called));
    assert.match(JSON.stringify(called), /hi again/);
    assert.equal(pids("beta").length, 2, "the call started beta again");
    assert.ok(running(pids("beta")[1]!), "and it keeps running after the call (the normal idle timeout)");
  } finally {
    await rt.close();
  }
});
