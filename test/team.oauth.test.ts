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
});
