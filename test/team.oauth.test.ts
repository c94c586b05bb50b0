import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { createRedactor } from "../src/adapters/shared/redact.js";
import { OAuthTokenStore } from "../src/adapters/mcp/oauth-token-store.js";
import { silentLogger } from "../src/log.js";
import { createRedisState } from "../src/state/redis.js";
import type { SharedState } from "../src/state/types.js";
import { servicesMissing, startRedis, type RunningService } from "./services-kit.js";

/**
 * Two gateway instances share one OAuth token set through a real redis-server. The token endpoint
 * rotates the refresh token on every grant and, like real providers, treats the reuse of an old
 * refresh token as theft: it revokes the whole family, which locks every instance out. Without the
 * shared lock two instances refreshing at once send the same refresh token; with it, one grants and
 * the other reads the new token.
 */

interface TokenServer {
  url: string;
  grants: number;
  revoked: boolean;
  /** Make the current access token invalid, as an expiry would. */
  expire(): void;
  /** A new sign-in: the grant so far is revoked, a new token set issued (what the user then writes into the store). */
  signIn(): { access_token: string; refresh_token: string };
  valid(token: string): boolean;
  close(): Promise<void>;
}

async function startTokenServer(): Promise<TokenServer> {
  let generation = 0;
  let currentRefresh = "r0";
  let currentAccess = "a0";
  const used = new Set<string>();
  const state = { grants: 0, revoked: false };
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const form = new URLSearchParams(body);
      const sent = form.get("refresh_token") ?? "";
      const answer = (status: number, json: unknown): void => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(json));
      };
      // A small delay widens the window in which an unlocked second refresh would race.
      setTimeout(() => {
        if (state.revoked) return answer(400, { error: "invalid_grant", error_description: "token family revoked" });
        if (sent !== currentRefresh) {
          if (used.has(sent)) state.revoked = true; // reuse of a rotated token: revoke everything
          return answer(400, { error: "invalid_grant" });
        }
        used.add(currentRefresh);
        generation += 1;
        state.grants += 1;
        currentRefresh = `r${generation}`;
        currentAccess = `a${generation}`;
        answer(200, { access_token: currentAccess, refresh_token: currentRefresh, token_type: "Bearer", expires_in: 3600 });
      }, 15);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  let expiredAccess = "";
  return {
    url: `http://127.0.0.1:${port}/token`,
    get grants() {
      return state.grants;
    },
    get revoked() {
      return state.revoked;
    },
    expire() {
      expiredAccess = currentAccess;
    },
    signIn() {
      used.add(currentRefresh);
      generation += 1;
      currentRefresh = `r${generation}`;
      currentAccess = `a${generation}`;
      state.revoked = false;
      return { access_token: currentAccess, refresh_token: currentRefresh };
    },
    valid(token) {
      return !state.revoked && token === currentAccess && token !== expiredAccess;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const skip = servicesMissing(["redis"]);

describe("OAuth token refresh shared through Redis", { skip }, () => {
  let redis: RunningService & { url: string };
  let dir: string;
  before(async () => {
    redis = await startRedis();
    dir = await mkdtemp(path.join(os.tmpdir(), "agent-tools-oauth-"));
  });
  after(async () => {
    await redis?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  async function tokenFile(name: string, endpoint: string): Promise<string> {
    const file = path.join(dir, name);
    await writeFile(file, JSON.stringify({ access_token: "a0", refresh_token: "r0", token_endpoint: endpoint, client_id: "agent-tools", expires_at: Date.now() + 3600_000 }));
    return file;
  }

  it("two instances refreshing one rotating, reuse-revoking token 50 times: 50 grants, no lockout", async () => {
    const server = await startTokenServer();
    const file = await tokenFile("shared.json", server.url);
    // Two instances: separate Redis connections, separate instance ids, one token store file path (its key).
    const states: SharedState[] = await Promise.all([
      createRedisState({ url: redis.url, log: silentLogger, instanceId: "i-one" }),
      createRedisState({ url: redis.url, log: silentLogger, instanceId: "i-two" }),
    ]);
    try {
      const stores = states.map((state) => new OAuthTokenStore(file, { redactor: createRedactor(), shared: state }));
      const held = await Promise.all(stores.map((store) => store.accessToken()));
      assert.deepEqual(held, ["a0", "a0"]);
      for (let round = 1; round <= 50; round++) {
        server.expire();
        // Both instances got a 401 for the token they hold and refresh at the same moment.
        const next = await Promise.all(stores.map((store, i) => store.refresh(held[i])));
        assert.equal(next[0], next[1], `round ${round}: both instances hold the same new token`);
        assert.ok(server.valid(next[0]!), `round ${round}: the token works (grants ${server.grants}, revoked ${server.revoked})`);
        held.splice(0, 2, ...next);
      }
      assert.equal(server.grants, 50, "one grant per round: the second instance read the rotated token instead of refreshing");
      assert.equal(server.revoked, false);
    } finally {
      await Promise.all(states.map((state) => state.close()));
      await server.close();
    }
  });

  it("the same race without the shared lock locks both out (the test's control)", async () => {
    const server = await startTokenServer();
    // Two hosts, each with its own copy of the store: the file lock serialises refreshes on one
    // host only, so without shared state the two instances still race.
    const files = [await tokenFile("unshared-host-a.json", server.url), await tokenFile("unshared-host-b.json", server.url)];
    try {
      const stores = files.map((file) => new OAuthTokenStore(file, { redactor: createRedactor() }));
      await Promise.all(stores.map((store) => store.accessToken()));
      server.expire();
      const outcomes = await Promise.allSettled(stores.map((store) => store.refresh("a0")));
      assert.ok(outcomes.some((o) => o.status === "rejected"), "one of the two refreshes reused the rotated token");
      assert.equal(server.revoked, true, "the provider revoked the family: every instance is locked out");
    } finally {
      await server.close();
    }
  });

  it("a store rewritten on one host replaces the shared copy, also after a restart; another host's stale copy never does", async () => {
    const server = await startTokenServer();
    // Two hosts, each with its own copy of the store (one path on each host: one shared name here).
    const files = { a: await tokenFile("rewrite-host-a.json", server.url), b: await tokenFile("rewrite-host-b.json", server.url) };
    const states: SharedState[] = await Promise.all([
      createRedisState({ url: redis.url, log: silentLogger, instanceId: "i-a" }),
      createRedisState({ url: redis.url, log: silentLogger, instanceId: "i-b" }),
    ]);
    const onHost = (host: "a" | "b"): OAuthTokenStore =>
      new OAuthTokenStore(files[host], { redactor: createRedactor(), shared: states[host === "a" ? 0 : 1]!, fileHost: `host-${host}`, sharedName: "rewrite/tokens.json" });
    const rewrite = async (host: "a" | "b", tokens: { access_token: string; refresh_token: string }): Promise<void> => {
      await writeFile(files[host], JSON.stringify({ ...tokens, token_endpoint: server.url, expires_at: Date.now() + 3600_000 }));
    };
    try {
      let a = onHost("a");
      const b = onHost("b");
      assert.equal(await a.accessToken(), "a0");
      assert.equal(await b.accessToken(), "a0");
      // A refreshes: the shared copy and A's file hold a1/r1, B's file still the spent r0.
      server.expire();
      assert.equal(await a.refresh("a0"), "a1");
      assert.equal(await b.reread(), "a1", "B reads the shared copy, not its stale file");
      assert.equal(await onHost("b").accessToken(), "a1", "B restarted: its stale file, unchanged since B saw it, does not overwrite the shared copy");
      server.expire();
      assert.equal(await b.refresh("a1"), "a2", "B refreshes with the rotated r1 from the shared copy");
      assert.equal(await a.reread(), "a2");

      // (a) The grant is revoked; the user signs in again on host A and writes the new set into A's file.
      await rewrite("a", server.signIn());
      assert.equal(await a.accessToken(), "a3", "A uses its rewritten file on the next call");
      assert.equal(await b.reread(), "a3", "B gets it through the shared copy");
      assert.equal(await onHost("b").accessToken(), "a3", "B's old file still does not win after a restart");
      server.expire();
      assert.equal(await b.refresh("a3"), "a4", "the rewritten refresh token works from the other host");

      // (c) A is stopped, its file rewritten meanwhile, A started again: the file is used.
      await rewrite("a", server.signIn());
      a = onHost("a");
      assert.equal(await a.accessToken(), "a5", "A restarted with a rewritten file uses it");
      assert.equal(await b.reread(), "a5");
      server.expire();
      assert.equal(await a.refresh("a5"), "a6");
      assert.equal(await onHost("b").accessToken(), "a6");
      assert.equal(server.revoked, false, "no host ever sent a spent refresh token");
      assert.equal(server.grants, 4);
    } finally {
      await Promise.all(states.map((state) => state.close()));
      await server.close();
    }
  });

  it("a broken rewrite fails that host's calls and leaves the shared copy alone", async () => {
    const server = await startTokenServer();
    const files = { a: await tokenFile("broken-host-a.json", server.url), b: await tokenFile("broken-host-b.json", server.url) };
    const state = await createRedisState({ url: redis.url, log: silentLogger, instanceId: "i-broken" });
    const onHost = (host: "a" | "b"): OAuthTokenStore => new OAuthTokenStore(files[host], { redactor: createRedactor(), shared: state, fileHost: `host-${host}`, sharedName: "broken/tokens.json" });
    try {
      const a = onHost("a");
      const b = onHost("b");
      assert.equal(await a.accessToken(), "a0");
      assert.equal(await b.accessToken(), "a0");
      await writeFile(files.a, "{ not json");
      await assert.rejects(a.accessToken(), (error: Error) => /the OAuth token store .*broken-host-a\.json is not valid JSON/.test(error.message));
      assert.equal(await b.reread(), "a0", "the fleet keeps the token set");
      await writeFile(files.a, JSON.stringify({ access_token: "fixed" }));
      assert.equal(await a.accessToken(), "fixed", "the fixed file is read on the next call");
      assert.equal(await b.reread(), "fixed");
    } finally {
      await state.close();
      await server.close();
    }
  });
});
