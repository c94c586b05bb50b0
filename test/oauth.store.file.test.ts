import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { authFetch, createBearerSource } from "../src/adapters/mcp/bearer-auth.js";
import { McpAdapterError } from "../src/adapters/mcp/errors.js";
import { canonicalResource, OAuthTokenStore } from "../src/adapters/mcp/oauth-token-store.js";
import { createRedactor } from "../src/adapters/shared/redact.js";
import { isSecretName, looksLikePath } from "../src/adapters/shared/secret-name.js";
import { hostSecrets } from "../src/runtime/redaction.js";
import { lockHolder } from "./lock-holder.js";
import { createLoopBreaker } from "../src/runtime/loop-breaker.js";
import { createSession } from "../src/runtime/session.js";

/**
 * The OAuth token store against its file and a real token endpoint on 127.0.0.1: a re-pointed
 * symlink, a FIFO or a huge file in the store's place, tokens no header can carry, expires_in 0,
 * an unparsable redirect, recovery after a refused fresh token once the store is fixed, and its
 * refresh lock held by another real process.
 */

interface TokenEndpoint {
  url: string;
  /** Refresh tokens sent, in order. */
  sent: string[];
  close(): Promise<void>;
}

/** Answers every refresh with `answer(refreshToken)`: [status, headers, body]. */
async function tokenEndpoint(answer: (refresh: string, n: number) => [number, Record<string, string>, string]): Promise<TokenEndpoint> {
  const sent: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const refresh = new URLSearchParams(body).get("refresh_token") ?? "";
      sent.push(refresh);
      const [status, headers, text] = answer(refresh, sent.length);
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`, sent, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const dirs: string[] = [];
const endpoints: TokenEndpoint[] = [];
after(async () => {
  await Promise.all(endpoints.map((e) => e.close()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "agent-tools-store-"));
  dirs.push(dir);
  return dir;
}

/** A rotating endpoint: refresh `rN` → access `aN+1`, refresh `rN+1`. */
async function rotating(expiresIn: number | undefined = 3600): Promise<TokenEndpoint> {
  const endpoint = await tokenEndpoint((refresh, n) => [200, {}, JSON.stringify({ access_token: `a-${refresh}-${n}`, refresh_token: `${refresh}-next`, ...(expiresIn !== undefined ? { expires_in: expiresIn } : {}) })]);
  endpoints.push(endpoint);
  return endpoint;
}

function storeText(extra: Record<string, unknown>): string {
  return JSON.stringify({ access_token: "old", refresh_token: "r0", expires_at: Date.now() - 60_000, client_id: "agent-tools", ...extra });
}

async function failure(work: Promise<unknown>): Promise<McpAdapterError> {
  const error = await work.then(
    () => assert.fail("expected a failure"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof McpAdapterError, String(error));
  return error;
}

describe("OAuth token store file", { timeout: 120_000 }, () => {
  it("a symlink re-pointed to another store: the refresh reads, spends and rewrites the new target", async () => {
    const endpoint = await rotating(1);
    const dir = tempDir();
    const [a, b, link] = ["A.json", "B.json", "store.json"].map((name) => path.join(dir, name)) as [string, string, string];
    writeFileSync(a, storeText({ refresh_token: "rA", token_endpoint: endpoint.url }));
    writeFileSync(b, storeText({ refresh_token: "rB", token_endpoint: endpoint.url }));
    symlinkSync(a, link);
    const store = new OAuthTokenStore(link, { redactor: createRedactor() });
    assert.equal(await store.accessToken(), "a-rA-1");
    rmSync(link);
    symlinkSync(b, link);
    assert.equal(await store.refresh(), "a-rB-2");
    assert.deepEqual(endpoint.sent, ["rA", "rB"]);
    assert.equal(JSON.parse(readFileSync(b, "utf8")).refresh_token, "rB-next", "B holds its rotated refresh token");
    assert.equal(JSON.parse(readFileSync(a, "utf8")).refresh_token, "rA-next", "A is untouched by B's refresh");
  });

  it("a FIFO in the store's place is refused at once, naming the store; a huge store is refused naming its size", async () => {
    const dir = tempDir();
    const fifo = path.join(dir, "fifo.json");
    execFileSync("mkfifo", [fifo]);
    const started = Date.now();
    // Four at once: with a blocking open they held libuv's four pool threads and every file read of the process.
    const errors = await Promise.all([1, 2, 3, 4].map(() => failure(new OAuthTokenStore(fifo, { redactor: createRedactor() }).accessToken())));
    for (const error of errors) {
      assert.equal(error.code, "NOT_CONFIGURED");
      assert.match(error.message, new RegExp(`the OAuth token store ${fifo} is a FIFO \\(named pipe\\), not a regular file`));
    }
    assert.ok(Date.now() - started < 20_000);
    const huge = path.join(dir, "huge.json");
    writeFileSync(huge, "");
    truncateSync(huge, 300 * 1024 * 1024);
    const error = await failure(new OAuthTokenStore(huge, { redactor: createRedactor() }).accessToken());
    assert.match(error.message, new RegExp(`the OAuth token store ${huge} is 314572800 bytes, over the 1 MiB \\(1048576-byte\\) limit for a token store; nothing was read`));
  });

  it("an access token with a character outside visible ASCII is refused naming the store and the field, from the file or from the endpoint", async () => {
    const dir = tempDir();
    for (const token of ["tok€en", "tok\u2028en", "tok en", "tok’en"]) {
      const file = path.join(dir, "bad.json");
      writeFileSync(file, JSON.stringify({ access_token: token }));
      const error = await failure(new OAuthTokenStore(file, { redactor: createRedactor() }).accessToken());
      assert.equal(error.code, "NOT_CONFIGURED");
      assert.match(error.message, new RegExp(`the OAuth token store ${file} has an access_token containing a character other than visible ASCII`));
      assert.ok(!error.message.includes(token), "the token is not quoted");
    }
    const endpoint = await tokenEndpoint(() => [200, {}, JSON.stringify({ access_token: "curly’quote", expires_in: 3600 })]);
    endpoints.push(endpoint);
    const file = path.join(dir, "store.json");
    writeFileSync(file, storeText({ token_endpoint: endpoint.url }));
    const error = await failure(new OAuthTokenStore(file, { redactor: createRedactor() }).accessToken());
    assert.match(error.message, /answered an access_token containing a character other than visible ASCII/);
    assert.match(error.message, new RegExp(`the store ${file} is unchanged`));
  });

  it("expires_in 0 or negative is kept as no expiry: one grant, not one per request", async () => {
    for (const expiresIn of [0, -5]) {
      const endpoint = await rotating(expiresIn);
      const file = path.join(tempDir(), "store.json");
      writeFileSync(file, storeText({ token_endpoint: endpoint.url }));
      const store = new OAuthTokenStore(file, { redactor: createRedactor() });
      for (let i = 0; i < 3; i++) assert.equal(await store.accessToken(), "a-r0-1");
      assert.equal(endpoint.sent.length, 1, `expires_in ${expiresIn}: one grant`);
      const written = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
      assert.equal(written.expires_at, undefined);
      assert.equal(written.expires_in, undefined);
    }
  });

  it("a redirect with an unparsable Location names the token endpoint and the store", async () => {
    const endpoint = await tokenEndpoint(() => [302, { location: "http://[bad" }, ""]);
    endpoints.push(endpoint);
    const file = path.join(tempDir(), "store.json");
    writeFileSync(file, storeText({ token_endpoint: endpoint.url }));
    const error = await failure(new OAuthTokenStore(file, { redactor: createRedactor() }).accessToken());
    assert.equal(error.code, "NOT_CONFIGURED");
    assert.match(error.message, new RegExp(`the token endpoint ${endpoint.url} answered HTTP 302 redirecting to "http://\\[bad" \\(not a URL\\), which is not followed`));
    assert.match(error.message, new RegExp(`set token_endpoint in ${file}`));
  });

  it("the canonical resource has no trailing /", () => {
    assert.equal(canonicalResource("https://mcp.example.com/mcp/?x=1#f"), "https://mcp.example.com/mcp");
    assert.equal(canonicalResource("https://mcp.example.com/"), "https://mcp.example.com");
    assert.equal(canonicalResource("https://mcp.example.com/a/b"), "https://mcp.example.com/a/b");
  });

  it("a fresh token the server refused blocks refreshes only until the store is rewritten", async () => {
    const endpoint = await rotating(undefined);
    const file = path.join(tempDir(), "store.json");
    writeFileSync(file, JSON.stringify({ access_token: "old", refresh_token: "r0", token_endpoint: endpoint.url, resource: "https://wrong.example" }));
    // A server that accepts only tokens issued once the store no longer names the wrong resource
    // (the first grant's token, a-r0-1, was issued for the wrong one).
    const server = createServer((req, res) => {
      const ok = /^Bearer a-/.test(req.headers.authorization ?? "") && req.headers.authorization !== "Bearer a-r0-1";
      res.writeHead(ok ? 200 : 401).end(ok ? "ok" : "");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    try {
      const source = createBearerSource({ tokenStore: file }, { env: {}, redactor: createRedactor(), name: "remote" });
      const send = authFetch(source);
      assert.equal((await send(url, { method: "POST", body: "{}" })).status, 401);
      assert.equal(endpoint.sent.length, 1, "refreshed once, refused");
      assert.equal((await send(url, { method: "POST", body: "{}" })).status, 401);
      assert.equal(endpoint.sent.length, 1, "not refreshed again while the store is unchanged");
      // The user fixes the store as the error advises; the server accepts again.
      const current = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
      writeFileSync(file, JSON.stringify({ ...current, resource: false }));
      assert.equal((await send(url, { method: "POST", body: "{}" })).status, 200);
      assert.equal(endpoint.sent.length, 2, "the fixed store was refreshed without a restart");
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("a refused fresh token blocks refreshes for a bounded time when the store stays unchanged", async () => {
    const endpoint = await rotating(undefined);
    const file = path.join(tempDir(), "store.json");
    writeFileSync(file, JSON.stringify({ access_token: "old", refresh_token: "r0", token_endpoint: endpoint.url }));
    let clock = Date.now();
    // Refuses the first two tokens (the held one and the first refresh's), as a server does while an
    // outage of its own lasts; the tokens issued after it are accepted.
    const server = createServer((req, res) => res.writeHead(["Bearer old", "Bearer a-r0-1"].includes(req.headers.authorization ?? "") ? 401 : 200).end());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      const send = authFetch(createBearerSource({ tokenStore: file }, { env: {}, redactor: createRedactor(), name: "remote", now: () => clock }));
      assert.equal((await send(url, { method: "POST", body: "{}" })).status, 401);
      assert.equal((await send(url, { method: "POST", body: "{}" })).status, 401);
      assert.equal(endpoint.sent.length, 1);
      clock += 6 * 60_000;
      // The 401 of the held token is answered by one new refresh, whose token is accepted.
      const answer = await send(url, { method: "POST", body: "{}" });
      assert.equal(endpoint.sent.length, 2, "a refresh is tried again after the memory expired");
      assert.equal(answer.status, 200);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("a store error does not make the loop breaker refuse the retry after the file is fixed", () => {
    const loop = createLoopBreaker();
    const session = createSession();
    const key = () => "call";
    const storeError = new McpAdapterError("NOT_CONFIGURED", "the OAuth token store /x is not valid JSON", { hostFixable: true });
    for (let i = 0; i < 5; i++) {
      const k = loop.check(session, key);
      loop.record(session, k, key, storeError);
    }
    assert.equal(loop.check(session, key), undefined, "nothing on record: the next call runs");
    // Control: a NOT_CONFIGURED that no file rewrite fixes still counts.
    const other = new McpAdapterError("NOT_CONFIGURED", "needs a setting");
    loop.record(session, undefined, key, other);
    loop.record(session, undefined, key, other);
    assert.throws(() => loop.check(session, key), /LOOP_DETECTED|failed 2 times/);
  });

  it("a location-named variable is unmasked only when its value looks like a path", () => {
    const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTQyIn0.S3cr3tS1gnatureV4lue_xyz";
    assert.equal(looksLikePath("/home/me/.config/n8n-tokens.json"), true);
    assert.equal(looksLikePath("~/tokens.json"), true);
    assert.equal(looksLikePath("./tokens.json"), true);
    assert.equal(looksLikePath(jwt), false);
    assert.equal(looksLikePath("ghp_16C7e42F292c6912E7710c838347Ae178B4a"), false);
    assert.equal(looksLikePath("/a/b/Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1u"), false, "a long random run with a slash is a token");
    assert.equal(isSecretName("N8N_MCP_TOKEN_STORE", "/home/me/tokens.json"), false);
    assert.equal(isSecretName("N8N_MCP_TOKEN_STORE", jwt), true);
    const env = { N8N_MCP_TOKEN_STORE: jwt, GH_TOKEN_FILE: "/run/secrets/gh" };
    assert.deepEqual(hostSecrets(env), [jwt]);
  });
});

// The refresh lock (`<store>.lock`, src/file-lock.ts) with a stale age of 4 s (the store's
// lockStaleMs; 15 s by default) so that the waits stay short: a refresh waits four stale ages, 16 s
// here (the holder refreshes its lock every second, leaving 3 s for a loaded machine to delay it).
const STALE_MS = 4_000;
const LOCK_WAIT_MS = STALE_MS * 4;

describe("the OAuth token store's refresh lock, held by another process", { timeout: 120_000 }, () => {
  it("a live holder all the wait: the refresh fails naming the lock and the wait, and the token endpoint is not called", async () => {
    const endpoint = await rotating();
    const file = path.join(tempDir(), "tokens.json");
    writeFileSync(file, storeText({ token_endpoint: endpoint.url }));
    const lockFile = `${file}.lock`;
    const holder = await lockHolder(lockFile, STALE_MS);
    try {
      const began = Date.now();
      const error = await failure(new OAuthTokenStore(file, { redactor: createRedactor(), lockStaleMs: STALE_MS }).accessToken());
      const tookMs = Date.now() - began;
      assert.equal(error.code, "UPSTREAM_ERROR");
      assert.ok(error.message.includes(`could not refresh the OAuth token of ${file}: its lock ${lockFile} stayed held by another process for the `), error.message);
      assert.match(error.message, /for the \d+ ms a refresh waits \(another agent-tools runtime refreshing the same store, such as a second client window\); the token endpoint was not called$/);
      assert.match(error.hint ?? "", /taken over once it is 4 s old/);
      assert.ok(error.hint?.includes(`remove the folder ${lockFile}`), error.hint);
      assert.equal(error.details?.lockFile, lockFile);
      const waited = error.details?.waitedMs as number;
      // It waited its four stale ages (a tolerance for the first try's timing), and not for ever.
      assert.ok(waited >= LOCK_WAIT_MS - 500, `waited ${waited} ms`);
      assert.ok(tookMs < LOCK_WAIT_MS + 20_000, `gave up after ${tookMs} ms`);
      assert.deepEqual(endpoint.sent, [], "no refresh token was spent");
      assert.equal(JSON.parse(readFileSync(file, "utf8")).refresh_token, "r0", "the store is unchanged");
    } finally {
      holder.kill("SIGKILL");
    }
  });

  it("a holder killed holding it: its lock is taken over once stale, and the refresh goes through", async () => {
    const endpoint = await rotating();
    const file = path.join(tempDir(), "tokens.json");
    writeFileSync(file, storeText({ token_endpoint: endpoint.url }));
    const holder = await lockHolder(`${file}.lock`, STALE_MS);
    holder.kill("SIGKILL");
    await new Promise((resolve) => holder.once("exit", resolve));
    const began = Date.now();
    assert.equal(await new OAuthTokenStore(file, { redactor: createRedactor(), lockStaleMs: STALE_MS }).accessToken(), "a-r0-1");
    // Within the wait, so at the stale age the store asked for: at the helper's default (10 s) it would have given up at 16 s.
    assert.ok(Date.now() - began < LOCK_WAIT_MS, `taken over after ${Date.now() - began} ms`);
    assert.deepEqual(endpoint.sent, ["r0"]);
    assert.equal(JSON.parse(readFileSync(file, "utf8")).refresh_token, "r0-next");
  });
});
