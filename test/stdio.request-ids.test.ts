import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { FIXTURES, writePlugin } from "./helpers.js";
import { lineServer, type LineAnswer, type LineServer } from "./stdio-lines.js";

/**
 * Over stdio, a request that reuses the id of one still in flight is refused with -32600 naming
 * the id, as over HTTP: it is not run beside the first (two answers with one id, and a cancel for
 * it stopping whichever). The first is answered as usual; once it is answered, or cancelled by the
 * client, the id is free again. The built server, spoken to line by line; a real downstream whose
 * `sleep` tool holds the first call open.
 */

const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-stdio-ids-"));
writePlugin(path.join(dir, "plugins", "agent-tools-plugin-sl"), {
  name: "sl",
  prefix: "sl",
  description: "A server with a slow tool.",
  adapter: { kind: "mcp", command: process.execPath, args: [path.join(FIXTURES, "mcp", "stdio-server.mjs")], timeoutMs: 30_000 },
});

const sleepCall = (id: number, ms: number, text: string): Record<string, unknown> => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "agent_tools_sl_call", arguments: { toolName: "sleep", arguments: { ms, text }, confirm: true } },
});

/** The answers with `id` read so far, once `count` of them have come (30 s at most: the machine may be loaded). */
async function answersTo(server: LineServer, id: number, count: number): Promise<LineAnswer[]> {
  for (let waited = 0; waited < 30_000; waited += 50) {
    const found = server.lines().filter((answer) => answer.id === id);
    if (found.length >= count) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`fewer than ${count} answers to id ${id} within 30 s: ${JSON.stringify(server.lines())}\n${server.stderr()}`);
}

const textOf = (answer: LineAnswer | undefined): string => JSON.stringify(answer?.result?.content ?? answer?.error ?? null);

describe("stdio: a request reusing an id in flight", () => {
  let server: LineServer;
  before(async () => {
    server = lineServer({ AGENT_TOOLS_PLUGINS_DIR: path.join(dir, "plugins") });
    const init = await server.request(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "ids", version: "0" } });
    assert.ok(init.result, JSON.stringify(init));
    server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  });
  after(() => server.close());

  it("is refused with -32600 naming the id; the first runs and is answered alone; the id is free once answered", async () => {
    server.send(sleepCall(77, 1_500, "first"));
    server.send(sleepCall(77, 10, "second"));
    const [refused, answered] = await answersTo(server, 77, 2);
    assert.equal(refused?.error?.code, -32600, JSON.stringify(refused));
    assert.match(refused?.error?.message ?? "", /id 77 is already used by a request in flight on this connection; nothing was run/);
    assert.match(textOf(answered), /first/, JSON.stringify(answered));
    // Given time for a second run's answer to come: none does.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(server.lines().filter((answer) => answer.id === 77).length, 2, JSON.stringify(server.lines()));
    assert.doesNotMatch(JSON.stringify(server.lines()), /second/);

    // Answered, the id may be used again.
    server.send(sleepCall(77, 10, "third"));
    const again = await answersTo(server, 77, 3);
    assert.match(textOf(again[2]), /third/, JSON.stringify(again[2]));
  });

  it("is served once the client cancelled the request that had it", async () => {
    server.send(sleepCall(78, 20_000, "cancelled"));
    await new Promise((resolve) => setTimeout(resolve, 300));
    server.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 78, reason: "the user stopped it" } });
    server.send(sleepCall(78, 10, "after the cancel"));
    const [answer] = await answersTo(server, 78, 1);
    assert.match(textOf(answer), /after the cancel/, JSON.stringify(answer));
  });
});
