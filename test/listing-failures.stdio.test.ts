import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { callJson, connect, ROOT, writePlugin, type Connected, type Payload } from "./helpers.js";

/**
 * A downstream MCP server whose tools/list fails, through the facade over stdio: discover, search
 * and `_call` say that its tool list could not be read, that nothing was changed, and what to do
 * (call again once; tell the user), never the hints of a failed call ("ask for less", "check
 * whether the change was made", "fix the arguments"), which no listing can follow.
 */

const SERVER = path.join(ROOT, "test", "fixtures", "mcp", "listing-fails-server.mjs");
const MODES = ["huge", "crash", "refuse"] as const;
type Mode = (typeof MODES)[number];

/** What each failure's message and hint say (beyond what every listing failure's hint says). */
const EXPECTED: Record<Mode, { code: string; message: RegExp; hint: RegExp }> = {
  huge: { code: "RESULT_TOO_LARGE", message: /answered tools\/list with a line of more than 10485760 bytes/, hint: /^The server's tool list is larger than one stdio line may carry \(10 MiB, not a setting\).*Tell the user this MCP server's tool list is too large to use/ },
  crash: { code: "UPSTREAM_ERROR", message: /exited with code 3 during tools\/list, before its answer arrived; its last stderr lines:\nlisting-fails: the tool registry is corrupt$/, hint: /^The server stopped .* while sending its tool list.*Call again once.*tell the user this MCP server fails while listing/ },
  refuse: { code: "UPSTREAM_ERROR", message: /answered tools\/list with an error: the tool registry is corrupt$/, hint: /^The server answered the request for its tool list with an error.*Call again once.*tell the user this MCP server fails to list/ },
};

function assertListingError(payload: Payload, mode: Mode): void {
  const error = payload.error;
  assert.equal(payload.ok, false, JSON.stringify(payload));
  assert.equal(error?.code, EXPECTED[mode].code, JSON.stringify(payload));
  assert.match(error?.message ?? "", /^could not list the tools of plugin '\w+': MCP server '\w+' /);
  assert.match(error?.message ?? "", EXPECTED[mode].message);
  assert.doesNotMatch(error?.message ?? "", /took effect/, "a listing has no effect to be unknown");
  assert.match(error?.hint ?? "", EXPECTED[mode].hint);
  assert.match(error?.hint ?? "", /A listing changes nothing, so nothing was changed on the server\..*Tool arguments cannot fix this\.$/);
  assert.doesNotMatch(error?.hint ?? "", /ask for less|whether the change was made|fix the arguments/i);
}

describe("a downstream server whose tool listing fails, through the facade", () => {
  let server: Connected;
  before(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-listing-"));
    for (const mode of MODES) {
      writePlugin(path.join(dir, `agent-tools-plugin-${mode}`), { name: mode, prefix: mode, description: `A server whose tool listing fails (${mode}; tests only)`, adapter: { kind: "mcp", command: process.execPath, args: [SERVER, mode], timeoutMs: 30_000 } });
    }
    server = await connect(dir);
  });
  after(() => server.close());

  for (const mode of MODES) {
    it(`${mode}: discover and _call give the listing's own hint; search names the plugin unavailable in the same words`, async () => {
      assertListingError((await callJson(server.client, `agent_tools_${mode}_discover`, {})).payload, mode);
      assertListingError((await callJson(server.client, `agent_tools_${mode}_call`, { toolName: "echo", arguments: {} })).payload, mode);
      // Search waits 3 s for a listing, then says the plugin is still listing: asked again, it joins that listing.
      let unavailable = "";
      for (let tries = 0; tries < 60; tries++) {
        const { payload } = await callJson(server.client, "agent_tools_search", { query: "echo", plugin: mode });
        unavailable = (payload.unavailable as Record<string, string> | undefined)?.[mode] ?? JSON.stringify(payload);
        if (!unavailable.startsWith("still listing")) break;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      assert.match(unavailable, /^MCP server '\w+' /);
      assert.doesNotMatch(unavailable, /took effect/);
    });
  }
});
