import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { callJson, connect, FIXTURES } from "./helpers.js";

/**
 * A cold cache lists the fleet in the background a few servers at a time
 * (AGENT_TOOLS_LIST_CONCURRENCY). A call to a server whose listing is still queued must not wait
 * behind the others: its listing starts at once. Real runtime over stdio, real fixture servers
 * that log each start; the order is set by the servers (each answers tools/list only once the test
 * releases it), not by timing: with one slot, the first server's listing holds it for the whole
 * test, and the call to the other one is answered all the same.
 */

const SERVER = path.join(FIXTURES, "mcp", "recording-server.mjs");
const NAMES = ["alpha", "beta"] as const;
let dir: string;

const startLog = (name: string) => path.join(dir, `${name}.starts`);
const release = (name: string) => path.join(dir, `${name}.release`);
const started = (name: string): boolean => existsSync(startLog(name)) && readFileSync(startLog(name), "utf8").trim() !== "";

async function until(what: string, probe: () => boolean, ms = 30_000): Promise<void> {
  for (const deadline = Date.now() + ms; !probe(); await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "agent-tools-queued-call-"));
  const servers = Object.fromEntries(NAMES.map((name) => [name, { command: process.execPath, args: [SERVER, "--hold-list", release(name)], env: { START_LOG: startLog(name) } }]));
  writeFileSync(path.join(dir, "agent-tools.config.json"), JSON.stringify({ mcpServers: servers }));
});
after(() => rmSync(dir, { recursive: true, force: true }));

test("cold cache, one listing slot: a call to a server whose background listing is queued starts that listing at once", async () => {
  const rt = await connect(path.join(dir, "no-plugins"), {
    AGENT_TOOLS_CONFIG: path.join(dir, "agent-tools.config.json"),
    AGENT_TOOLS_CACHE_DIR: path.join(dir, "cache"),
    AGENT_TOOLS_CATALOG_CACHE: "on",
    AGENT_TOOLS_LIST_CONCURRENCY: "1",
    AGENT_TOOLS_CALL_TIMEOUT_MS: "600000",
  });
  try {
    await until("the upkeep to start one server", () => NAMES.some(started));
    const first = NAMES.find(started)!;
    const queued = NAMES.find((name) => name !== first)!;
    // The first listing is held and holds the only slot: the other one stays queued.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(started(queued), false, `${queued} waits for the one slot`);

    writeFileSync(release(queued), "");
    // Behind the queue, the call would wait for the held listing, which no deadline ends before
    // ten minutes (AGENT_TOOLS_CALL_TIMEOUT_MS): the client gives up well before that.
    const result = await rt.client.callTool({ name: `agent_tools_${queued}_call`, arguments: { toolName: "echo", arguments: { text: "not behind the queue" } } }, undefined, { timeout: 45_000 });
    assert.notEqual(result.isError, true, JSON.stringify(result));
    assert.match(JSON.stringify(result.content), /not behind the queue/);
    assert.equal(existsSync(release(first)), false, `${first}'s listing was still held when the call was answered`);
    // The held listing was not given up on: released, it completes and its server serves.
    writeFileSync(release(first), "");
    const { payload, isError } = await callJson(rt.client, `agent_tools_${first}_discover`, {});
    assert.equal(isError, false, JSON.stringify(payload));
    assert.equal((payload.totals as { tools: number }).tools, 7, JSON.stringify(payload));
    assert.equal(readFileSync(startLog(first), "utf8").trim().split("\n").length, 1, `${first} was started once`);
  } finally {
    await rt.close();
  }
});
