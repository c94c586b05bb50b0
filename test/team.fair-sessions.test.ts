import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { hashToken } from "../src/gateway/identities.js";
import { callJson } from "./helpers.js";
import { eventually, httpClient, startHttp } from "./http-helpers.js";
import { callV2, connectHttpV2, v2Client } from "./v2-helpers.js";

/**
 * What a team gateway keeps per caller, and what it lets go, between two identities on the built
 * HTTP server (a real process): a full legacy session table takes room from the caller holding the
 * most sessions, never another caller's only one; the 2026-07-28 callers' sessions go once unused.
 */

const TOKENS = { alice: "alice-token-0123456789abcdef", bob: "bob-token-0123456789abcdef00" };
const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });
const withBearer =
  (token: string) =>
  (url: string | URL, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers);
    headers.set("Authorization", `Bearer ${token}`);
    return fetch(url, { ...init, headers });
  };

describe("team gateway: fair between callers", () => {
  let dir: string;
  let config: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "agent-tools-fair-"));
    config = path.join(dir, "team.json");
    await writeFile(
      config,
      JSON.stringify({
        team: {
          identities: [
            { name: "alice", tokenSha256: hashToken(TOKENS.alice), plugins: ["*"], write: true },
            { name: "bob", tokenSha256: hashToken(TOKENS.bob), plugins: ["notes"] },
          ],
        },
      }),
    );
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("a full session table: bob opening four sessions evicts his own oldest, never alice's only one with her files", async () => {
    const server = await startHttp({ AGENT_TOOLS_AUDIT: "off", AGENT_TOOLS_HTTP_MAX_SESSIONS: "4" }, ["--config", config]);
    const clients: Array<{ close(): Promise<void> }> = [];
    try {
      const { client: alice } = await httpClient(server.url, bearer(TOKENS.alice));
      clients.push(alice);
      const wrote = await callJson(alice, "agent_tools_exec", { command: "echo draft > work.txt" });
      assert.equal(wrote.payload.ok, true, JSON.stringify(wrote.payload));
      const bobs = [];
      for (let i = 0; i < 4; i++) {
        const { client } = await httpClient(server.url, bearer(TOKENS.bob));
        clients.push(client);
        // Used, as alice's is: the rule is about whose sessions, not which were used.
        assert.equal((await callJson(client, "agent_tools_notes_call", { toolName: "list_notes", arguments: {} })).payload.ok, true);
        bobs.push(client);
      }
      const read = await callJson(alice, "agent_tools_exec", { command: "cat work.txt" });
      assert.equal(String(read.payload.stdout).trim(), "draft", `alice's session and files stay: ${JSON.stringify(read.payload)}`);
      // Bob's first session made room for his fourth: its id answers 404 saying why.
      const evicted = await callJson(bobs[0]!, "agent_tools_notes_call", { toolName: "list_notes", arguments: {} }).then(
        () => "answered",
        (error: Error) => error.message,
      );
      assert.match(evicted, /closed to make room for a new session \(the table of 4 was full,? and it was the least recently used idle one of the caller holding the most sessions\)/);
      for (const later of bobs.slice(1)) assert.equal((await callJson(later, "agent_tools_notes_call", { toolName: "list_notes", arguments: {} })).payload.ok, true);
    } finally {
      await Promise.allSettled(clients.map((c) => c.close()));
      await server.stop();
    }
  });

  it("a 2026-07-28 caller's session is closed once unused past the idle limit, and its next call opens a new one", async () => {
    const server = await startHttp({ AGENT_TOOLS_AUDIT: "off", AGENT_TOOLS_LOG: "debug", AGENT_TOOLS_HTTP_SESSION_IDLE_MS: "1500" }, ["--config", config]);
    const alice = await connectHttpV2(v2Client("pin"), server.url, withBearer(TOKENS.alice));
    const bob = await connectHttpV2(v2Client("pin"), server.url, withBearer(TOKENS.bob));
    try {
      assert.equal((await callV2(alice, "agent_tools_notes_call", { toolName: "list_notes", arguments: {} })).payload.ok, true);
      // Past alice's idle limit; bob's call is when the table is looked at.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      assert.equal((await callV2(bob, "agent_tools_notes_call", { toolName: "list_notes", arguments: {} })).payload.ok, true);
      await eventually(() => /debug: http modern: closed the session of alice \(unused for more than 1500 ms\); its next call opens a new one/.test(server.stderr()), "alice's idle session to be closed");
      assert.doesNotMatch(server.stderr(), /closed the session of bob/, "bob's session, just used, stays");
      assert.equal((await callV2(alice, "agent_tools_notes_call", { toolName: "list_notes", arguments: {} })).payload.ok, true, "alice's next call is served");
    } finally {
      await Promise.allSettled([alice.close(), bob.close()]);
      await server.stop();
    }
  });
});
