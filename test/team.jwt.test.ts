import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { exportJWK, generateKeyPair, SignJWT, type JWK } from "jose";
import { hashToken } from "../src/gateway/identities.js";
import { eventually, INITIALIZE, MCP_HEADERS, raw, startHttp } from "./http-helpers.js";
import { freePort } from "./services-kit.js";
import { MODERN } from "./v2-helpers.js";
import { until } from "./wait.js";

/**
 * JWTs checked against a real local JWKS endpoint that can be down, answer 500, or serve its keys:
 * a key set the gateway cannot fetch is the gateway's trouble (503, retry), never the token's (401,
 * which makes an OAuth client drop a valid token); and a token must expire unless the operator says
 * otherwise. The built HTTP server as a real process.
 */

const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });

/** A JWKS endpoint on `port`, started (and stopped) on demand; `failing` answers 500. */
class Jwks {
  private server: Server | undefined;
  failing = false;
  constructor(
    readonly port: number,
    private readonly jwk: JWK,
  ) {}
  async start(): Promise<void> {
    this.server = createServer((_req, res) => {
      if (this.failing) {
        res.writeHead(500).end("down for maintenance");
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ keys: [this.jwk] }));
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, "127.0.0.1", resolve));
  }
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe("team gateway: JWTs", () => {
  let dir: string;
  let jwks: Jwks;
  let issuer: string;
  let sign: (claims: Record<string, unknown>, exp?: string | number) => Promise<string>;
  const configWith = async (jwt: Record<string, unknown> = {}): Promise<string> => {
    const file = path.join(dir, `team.${Math.random().toString(36).slice(2)}.json`);
    await writeFile(file, JSON.stringify({ team: { identities: [{ name: "ops", tokenSha256: hashToken("ops-token-0123456789abcdef"), plugins: ["*"] }], jwt: { issuer, audience: "agent-tools", jwksUrl: `${issuer}/jwks`, ...jwt } } }));
    return file;
  };
  const initialize = (token: string): ReturnType<typeof raw> => raw(serverUrl, { headers: { ...MCP_HEADERS, ...bearer(token) }, body: INITIALIZE });
  let serverUrl = "";

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "agent-tools-jwt-"));
    const { publicKey, privateKey } = await generateKeyPair("RS256");
    const port = await freePort();
    issuer = `http://127.0.0.1:${port}`;
    jwks = new Jwks(port, { ...(await exportJWK(publicKey)), kid: "k1", alg: "RS256", use: "sig" });
    sign = (claims, exp = "5m") => {
      const jwt = new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: "k1" }).setIssuer(issuer).setAudience("agent-tools").setIssuedAt();
      return (exp === "none" ? jwt : jwt.setExpirationTime(exp)).sign(privateKey);
    };
  });
  after(async () => {
    await jwks.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("while the issuer's keys cannot be fetched, a valid JWT gets 503 with Retry-After (never 401), one warning names the jwksUrl, and the same token works once they can", async () => {
    const server = await startHttp({ AGENT_TOOLS_AUDIT: "off" }, ["--config", await configWith()]);
    serverUrl = server.url;
    try {
      const token = await sign({ sub: "carol" });
      // Nothing listens at the JWKS URL.
      const refused = await initialize(token);
      assert.equal(refused.status, 503, refused.body);
      assert.equal(refused.headers["retry-after"], "5");
      assert.equal(refused.headers["www-authenticate"], undefined, "no challenge: the token is not refused");
      assert.match(refused.json().error?.message ?? "", /could not fetch its token issuer's signing keys to check the JWT, so the token was neither accepted nor refused and nothing was run; send the request again after 5 s \(Retry-After\) with the same token/);
      const warning = new RegExp(`warn: jwt: could not fetch the issuer's keys from ${issuer.replace(/[.]/g, "\\.")}/jwks \\(team\\.jwt\\.jwksUrl, default <issuer>/\\.well-known/jwks\\.json\\): fetch failed \\(ECONNREFUSED\\); requests with a JWT are answered 503`);
      await until(() => warning.test(server.stderr()), "the warning naming the JWKS URL");
      // The endpoint answers, but 500: still the issuer's trouble, and no second warning within the minute.
      await jwks.start();
      jwks.failing = true;
      for (let i = 0; i < 3; i++) assert.equal((await initialize(token)).status, 503);
      assert.equal((server.stderr().match(/jwt: could not fetch the issuer's keys/g) ?? []).length, 1, server.stderr());
      // The keys come back: the same token is accepted, and the log says so.
      jwks.failing = false;
      const accepted = await initialize(token);
      assert.equal(accepted.status, 200, accepted.body);
      await until(() => /info: jwt: the issuer's keys at \S+ could be fetched again; JWTs are checked again \(4 request\(s\) were answered 503 meanwhile\)/.test(server.stderr()), "the line saying the keys are back");
      // A token the keys refuse is what gets 401.
      const forged = await initialize(`${token.slice(0, -4)}AAAA`);
      assert.equal(forged.status, 401);
      assert.match(String(forged.headers["www-authenticate"]), /error="invalid_token"/);
    } finally {
      await jwks.stop();
      await server.stop();
    }
  });

  it("1,001 JWT subjects: the 2026-07-28 callers' sessions stay bounded, the least recently used closed past 1,000", async () => {
    await jwks.start();
    const server = await startHttp({ AGENT_TOOLS_AUDIT: "off", AGENT_TOOLS_LOG: "debug" }, ["--config", await configWith()]);
    try {
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "agent_tools_help", arguments: {}, _meta: { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientInfo": { name: "many", version: "0" }, "io.modelcontextprotocol/clientCapabilities": {} } },
      });
      const headers = { ...MCP_HEADERS, "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "agent_tools_help" };
      for (let i = 0; i <= 1000; i++) {
        const answer = await raw(server.url, { headers: { ...headers, ...bearer(await sign({ sub: `subject-${i}` })) }, body });
        assert.equal(answer.status, 200, answer.body);
      }
      await eventually(() => /closed the session of jwt:subject-0 \(more than 1000 callers' sessions were held; it was the least recently used\)/.test(server.stderr()), "the oldest caller's session to be closed");
      assert.equal((server.stderr().match(/http modern: closed the session of/g) ?? []).length, 1, "only the one past the bound");
    } finally {
      await server.stop();
      await jwks.stop();
    }
  });

  it("a JWT without exp is refused with a reason saying so, unless team.jwt.requireExp is false; an expired one says it expired", async () => {
    await jwks.start();
    const strict = await startHttp({ AGENT_TOOLS_AUDIT: "off" }, ["--config", await configWith()]);
    const lenient = await startHttp({ AGENT_TOOLS_AUDIT: "off" }, ["--config", await configWith({ requireExp: false })]);
    try {
      const forever = await sign({ sub: "dave" }, "none");
      serverUrl = strict.url;
      const refused = await initialize(forever);
      assert.equal(refused.status, 401, refused.body);
      assert.match(refused.json().error?.message ?? "", /the JWT was refused: it has no 'exp' \(expiry\) claim, and this gateway accepts only JWTs that expire .*have the issuer \(http:\/\/127\.0\.0\.1:\d+\) set exp \(the gateway's operator may accept such tokens with team\.jwt\.requireExp: false\)/);
      assert.match(String(refused.headers["www-authenticate"]), /error="invalid_token"/);
      const expired = await initialize(await sign({ sub: "dave" }, Math.floor(Date.now() / 1000) - 600));
      assert.equal(expired.status, 401);
      assert.match(expired.json().error?.message ?? "", /the JWT was refused: it has expired \(its 'exp' is past\); get a new token from the issuer/);
      assert.equal((await initialize(await sign({ sub: "dave" }))).status, 200, "a token that expires is accepted");
      serverUrl = lenient.url;
      assert.equal((await initialize(forever)).status, 200, "accepted where the operator allows tokens without exp");
    } finally {
      await Promise.all([strict.stop(), lenient.stop()]);
      await jwks.stop();
    }
  });
});
