import { readFile, realpath, rename, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { readCappedBody } from "../shared/capped-body.js";
import type { Redactor } from "../shared/redact.js";
import { interpolate } from "../shared/env-vars.js";
import { McpAdapterError, errorMessage } from "./errors.js";
import { replaceFile } from "../../replace-file.js";
import { readBoundedFileWithStats, readProblem, type FileBound } from "../../bounded-file.js";
import { acquireFileLock, FileLockBusyError } from "../../file-lock.js";
import type { Cancellation } from "../../cancel.js";
import { SharedWork } from "../../shared-work.js";

/**
 * An OAuth token store file written by a sign-in flow:
 * `{ "access_token", "refresh_token", "expires_at" (epoch ms or s), "token_endpoint", "client_id", "client_secret"? }`.
 * An expired access token is refreshed with the `refresh_token` grant and the file rewritten
 * atomically with mode 0600. Every token read or received is registered with the redactor.
 *
 * Several runtimes share one store (two stdio clients on one machine is the usual case), and
 * providers that rotate refresh tokens revoke the whole grant when an old one is used again. So a
 * refresh happens under an inter-process lock (`<store>.lock`, file-lock.ts: a holder that was
 * killed is taken over once its lock goes stale), the store is read again under the lock, and a
 * token another process already refreshed is used instead of spending the refresh token twice.
 * The new tokens are written to `.<store>.next` and fsynced before the rename; a `.next` left by a
 * process killed before its rename is adopted by the next refresh, so tokens the provider has
 * already rotated are not lost.
 *
 * The file is the user's to rewrite at any time (a new sign-in, a token pasted by hand, and for a
 * token without a refresh_token the only way to renew it): a cached token set is used only while
 * the file's identity (inode, size, mtime, ctime) is unchanged, and after a 401 the file is read
 * again in any case. A symlinked store is resolved at each refresh (realpath), and its lock, its
 * read and its rewrite are that target's: two paths to one file share one lock, the link stays a
 * link, and a link re-pointed to another file has that file refreshed, not the one it left.
 *
 * With shared state (the team gateway on Redis) the token set lives there, and each host keeps its
 * own copy of the file, as old as that host's last refresh. So a file differing from the shared
 * copy says nothing; only a file that changed since this host last read or wrote it is news (the
 * user rewrote it). Each host's last-seen file identity is kept in shared state too (one key per
 * host, `oauth-seen:<host>:<store>`), so the rewrite is seen after a restart; a rewritten file
 * replaces the shared copy under the shared lock, and a host's stale file never does.
 */

/** The fields of a token store file, as the errors that ask for a new one name them. */
export const TOKEN_STORE_SHAPE = `JSON {"access_token", and to refresh it "refresh_token", "expires_at" (epoch ms or s), "token_endpoint", "client_id", "client_secret"?}`;

/** Of a token endpoint's answer, more than any real token set needs. */
const TOKEN_BODY_BYTES = 64 * 1024;

export interface StoredTokens {
  access_token: string;
  refresh_token?: string;
  expires_at?: number;
  /** Lifetime of the access token in seconds, as the token endpoint last answered it. */
  expires_in?: number;
  token_endpoint?: string;
  /** RFC 8707 resource sent with a refresh: default the MCP server's canonical URL; false sends none. */
  resource?: string | false;
  client_id?: string;
  client_secret?: string;
  [field: string]: unknown;
}

/** The stale age of the store's lock by default: a loaded machine can delay the holder's refreshes of it by seconds. */
const STORE_LOCK_STALE_MS = 15_000;
/** The least stale age an option may set (proper-lockfile's own floor). */
const MIN_STORE_LOCK_STALE_MS = 2_000;
/** How many stale ages a refresh waits for another process's lock before it gives up. */
const LOCK_WAIT_STALES = 4;

/** Time before expiry at which a token counts as expired (clock skew, request time). */
const EXPIRY_SKEW_MS = 30_000;

/**
 * The skew of one token set: 30 s, but at most half the token's lifetime (`expires_in`, kept from
 * the token endpoint's answer), else a token that lives 30 s or less would count as expired the
 * moment it is issued and every request would refresh it.
 */
function skewMs(tokens: StoredTokens): number {
  const lifetime = tokens.expires_in;
  return typeof lifetime === "number" && Number.isFinite(lifetime) && lifetime > 0 ? Math.min(EXPIRY_SKEW_MS, (lifetime * 1000) / 2) : EXPIRY_SKEW_MS;
}

/** Whether the token set is (about to be) expired at `now`; false when it has no expiry. */
function expiresBy(tokens: StoredTokens, now: number): boolean {
  const expires = expiresAtMs(tokens.expires_at);
  return expires !== undefined && expires - skewMs(tokens) <= now;
}

/**
 * What a bearer token may not hold: anything but visible ASCII. RFC 6750's b64token is narrower
 * still, but servers issue tokens with other visible characters and a header carries those; a
 * line break, a space, a control character or one past U+007E is refused by fetch (quoting part of
 * the token) or splits the header, so such a token is refused before it is sent, naming the field.
 */
const NOT_HEADER_SAFE = /[^\x21-\x7e]/;
const NOT_HEADER_SAFE_WORDS = "a character other than visible ASCII (a space, a line break, a control or non-ASCII character such as a typographic quote), which no HTTP header can carry";

/** A store is a few hundred bytes: 1 MiB is no token set, and reading it on every call would cost the process. */
const TOKEN_STORE_FILE: FileBound = {
  limit: 1024 * 1024,
  kind: "token store",
  notRegularFix: (limit) => `write the token set into a regular file of at most ${limit} at that path`,
  tooLargeFix: (limit) => `Write a token set (${TOKEN_STORE_SHAPE}) into it, well under ${limit}`,
};

/** The canonical URI of an MCP server (RFC 8707 `resource`): no credentials, query or fragment, no trailing slash. */
export function canonicalResource(serverUrl: string | URL): string {
  const url = new URL(serverUrl);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/** `expires_at` in epoch milliseconds, whichever unit the file used. */
export function expiresAtMs(value: number | undefined): number | undefined {
  if (value === undefined || !Number.isFinite(value)) return undefined;
  return value < 1e11 ? value * 1000 : value;
}

/** `~`, `${VAR}` and a relative path (against `baseDir`) resolved; `where` names the setting a missing variable is reported for. */
export function resolveStorePath(file: string, env: NodeJS.ProcessEnv, baseDir?: string, where = "adapter.auth.tokenStore"): string {
  let out = interpolate(file, env, where);
  if (out === "~" || out.startsWith("~/") || out.startsWith("~\\")) out = path.join(env.HOME || os.homedir(), out.slice(1));
  return path.isAbsolute(out) ? out : path.resolve(baseDir ?? process.cwd(), out);
}

function checkEndpoint(endpoint: string): URL {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new McpAdapterError("NOT_CONFIGURED", `the token store's token_endpoint '${endpoint}' is not a URL`);
  }
  const loopback = ["127.0.0.1", "localhost", "[::1]", "::1"].includes(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
    throw new McpAdapterError("NOT_CONFIGURED", `the token store's token_endpoint must use https (got ${url.protocol}//${url.host})`);
  }
  return url;
}

/**
 * Where several processes keep one token set and serialise its refresh: the team gateway's shared
 * state (Redis) — structurally its KeyValue and Locks. Without it the file is the store and a
 * refresh is single-flight within this process only.
 */
export interface SharedTokenState {
  kv: { get(key: string): Promise<string | undefined>; set(key: string, value: string): Promise<void> };
  locks: { withLock<T>(name: string, work: () => Promise<T>, options?: { ttlMs?: number; waitMs?: number }): Promise<T> };
}

export interface TokenStoreOptions {
  redactor: Redactor;
  /** How long a lock whose holder stopped updating it is honoured. Default 15 s (a loaded machine can delay the holder's updates by seconds). */
  lockStaleMs?: number;
  /** Keep the token set in shared state (seeded from the file) and refresh under its lock. */
  shared?: SharedTokenState;
  /**
   * With `shared`: the name of this host's copy of the file, stable across restarts (the
   * operator's AGENT_TOOLS_INSTANCE_ID, else the host name). Default the host name.
   */
  fileHost?: string;
  /** With `shared`: the name of the token set in shared state. Default the store's path (the same on every host). */
  sharedName?: string;
  fetch?: typeof fetch;
  now?: () => number;
  /** Timeout of the token endpoint request. Default 15 s. */
  timeoutMs?: number;
  /** The RFC 8707 `resource` of refresh requests (the MCP server's canonical URL); a store's own `resource` field wins. */
  resource?: string;
}

export class OAuthTokenStore {
  private tokens: StoredTokens | undefined;
  /** The file's identity when `tokens` was read from it: a different one means it was rewritten. */
  private signature: string | undefined;
  private refreshing: SharedWork<string> | undefined;
  private readonly now: () => number;
  /** The shared state's key of the token set, and of the file identity this host last read or wrote. */
  private readonly sharedKey: string;
  private readonly seenKey: string;

  constructor(readonly file: string, private readonly options: TokenStoreOptions) {
    this.now = options.now ?? Date.now;
    const name = options.sharedName ?? file;
    this.sharedKey = `oauth:${name}`;
    this.seenKey = `oauth-seen:${options.fileHost ?? os.hostname()}:${name}`;
  }

  /** A valid access token: read from the file, refreshed first when expired. `cancel`: the caller's (see refresh). */
  async accessToken(cancel?: Cancellation): Promise<string> {
    const tokens = await this.load();
    if (expiresBy(tokens, this.now()) && tokens.refresh_token) return this.refresh(tokens.access_token, cancel);
    return tokens.access_token;
  }

  /** The access token the store holds now, read again whatever the cache says (after a 401: the user may have rewritten it). */
  async reread(): Promise<string> {
    return (await this.load(true)).access_token;
  }

  /**
   * Refresh (single-flight). `rejected` is the token the server refused: when the store already
   * holds a different one (another caller refreshed), that one is returned without a new grant.
   *
   * `cancel` is the caller's (its client's cancel, its deadline): when it fires, this caller stops
   * waiting at once, with its reason. The refresh itself stops only once every caller waiting for
   * it has left, and only while it still waits for the store's lock: nothing was sent to the
   * token endpoint then. A token request already sent is seen through (the provider may have
   * rotated the refresh token on receiving it, and its answer is the only copy of the new one).
   */
  async refresh(rejected?: string, cancel?: Cancellation): Promise<string> {
    if (!this.refreshing || this.refreshing.stopped) {
      const shared = this.options.shared;
      const work = new SharedWork((stop) => (shared ? this.withSharedLock(shared, async () => this.refreshHeld(rejected, await this.target())) : this.refreshLocked(rejected, stop)));
      this.refreshing = work;
      work.finally(() => {
        if (this.refreshing === work) this.refreshing = undefined;
      });
    }
    return this.refreshing.join(cancel);
  }

  private withSharedLock<T>(shared: SharedTokenState, work: () => Promise<T>): Promise<T> {
    return shared.locks.withLock(this.sharedKey, work, { ttlMs: 30_000, waitMs: 45_000 });
  }

  /** Under this host's file lock (shared state, when there is one, brings its own lock). */
  private async refreshLocked(rejected: string | undefined, stop: Cancellation): Promise<string> {
    // Resolved now, not once: a link re-pointed since the last refresh has its new target locked,
    // read and rewritten (a path kept from before would spend one file's refresh token and write
    // the new tokens into the other, which keeps its spent one).
    const target = await this.target();
    const release = await this.lock(target, stop);
    try {
      return await this.refreshHeld(rejected, target);
    } finally {
      await release().catch(() => undefined);
    }
  }

  /** With the lock of `target` (the store, resolved) held: read it again, and refresh only when no other process or instance did meanwhile. */
  private async refreshHeld(rejected: string | undefined, target: string): Promise<string> {
    // Another instance may have rotated the refresh token meanwhile, and sending the old one would
    // be a reuse the server punishes by revoking the whole family.
    const current = await this.load(true, target);
    const fresh = !expiresBy(current, this.now());
    if (rejected !== undefined ? current.access_token !== rejected && fresh : fresh && current.expires_at !== undefined) return current.access_token;
    return this.grant(current, target);
  }

  /**
   * Take `<target>.lock` (file-lock.ts, the path earlier versions locked too, so runtimes of both
   * kinds still take turns). A refresh waits up to LOCK_WAIT_STALES times the stale age: long
   * enough for a live holder's token request (its own timeout, 15 s by default) and for a dead
   * holder's lock to go stale and be taken over. The wait ends when `stop` fires (every caller
   * waiting for this refresh was cancelled), with its reason.
   */
  private async lock(target: string, stop: Cancellation): Promise<() => Promise<void>> {
    const staleMs = Math.max(MIN_STORE_LOCK_STALE_MS, this.options.lockStaleMs ?? STORE_LOCK_STALE_MS);
    const lockFile = `${target}.lock`;
    try {
      // No onCompromised: a lock taken over while this process still refreshes is not worth crashing for (the helper's default ignores it).
      return await acquireFileLock(lockFile, { until: Date.now() + staleMs * LOCK_WAIT_STALES, staleMs, cancel: stop });
    } catch (error) {
      // The callers gave up: their own reason stands.
      if (stop.aborted) throw error;
      if (error instanceof FileLockBusyError) {
        throw new McpAdapterError(
          "UPSTREAM_ERROR",
          `could not refresh the OAuth token of ${this.file}: its lock ${lockFile} stayed held by another process${error.byWhom} for the ${error.waitedMs} ms a refresh waits (another agent-tools runtime refreshing the same store, such as a second client window); the token endpoint was not called`,
          {
            hint: `Call again once the other process's refresh is done. A lock left by a process that died is taken over once it is ${staleMs / 1000} s old, so a lock that stays busy is held by a running process; ${error.removeAdvice("agent-tools runtime")}.`,
            details: { lockFile, waitedMs: error.waitedMs, ...(error.holder ? { holder: error.holder } : {}) },
          },
        );
      }
      // The lock's folder cannot be made beside the store (a missing permission, a read-only disk, a file in the way).
      throw new McpAdapterError("UPSTREAM_ERROR", `could not lock the OAuth token store ${this.file} to refresh it: ${errorMessage(error)}`, {
        hint: `A refresh makes the folder ${lockFile} beside the store: let this process create it there (or move the store to a folder it may write), then call again. Tool arguments cannot fix this.`,
      });
    }
  }

  /**
   * The path that is locked, read and rewritten by a refresh: the store with its symlinks resolved
   * as they are now, so a link stays a link (its target gets the new tokens) and two paths to one
   * file share one lock. A missing store is its own path (the read then says it does not exist).
   */
  private async target(): Promise<string> {
    return realpath(this.file).catch(() => this.file);
  }

  /** The identity of the store file the token set was last read from or written to: another one means the file was rewritten since. */
  version(): string | undefined {
    return this.signature;
  }

  /** Whether a refresh is possible at all. */
  async canRefresh(): Promise<boolean> {
    const tokens = await this.load();
    return Boolean(tokens.refresh_token && tokens.token_endpoint);
  }

  /** The token set, from the cache while the file is unchanged; `locked` is the resolved store whose lock is held, read instead of the link. */
  private async load(reread = false, locked?: string): Promise<StoredTokens> {
    if (this.tokens && !reread && (await this.unchanged())) return this.tokens;
    // Under the lock, a write cut short between its fsync and its rename is finished first.
    if (locked) await adoptPendingWrite(locked);
    const shared = this.options.shared;
    const { tokens, signature } = shared ? await this.loadShared(shared, locked) : await this.readStore(locked ?? this.file);
    this.tokens = tokens;
    this.signature = signature;
    return tokens;
  }

  /**
   * With shared state: its copy, unless this host's file changed since this host last read or
   * wrote it (the user rewrote it), which then replaces the shared copy. A host that never saw its
   * file (new, or renamed) cannot tell a rewrite from a stale copy: the shared copy wins, and the
   * file's identity is remembered so its next rewrite is seen. Only the common case (the file as
   * this host saw it last, or no file) is answered without the shared lock.
   */
  private async loadShared(shared: SharedTokenState, locked: string | undefined): Promise<{ tokens: StoredTokens; signature: string | undefined }> {
    const [sharedText, seen, signature] = await Promise.all([shared.kv.get(this.sharedKey), shared.kv.get(this.seenKey), fileSignature(this.file)]);
    if (sharedText !== undefined && (signature === undefined || signature === seen)) return { tokens: this.parse(sharedText), signature };
    // Decided under the lock: this host's own refresh may be between writing its file and recording it.
    return locked ? this.adoptFile(shared, locked) : this.withSharedLock(shared, async () => this.adoptFile(shared, await this.target()));
  }

  /** With the shared lock held on `target` (the store, resolved): the file's token set replaces the shared copy when there is none or this host's file changed since it saw it. */
  private async adoptFile(shared: SharedTokenState, target: string): Promise<{ tokens: StoredTokens; signature: string | undefined }> {
    const [sharedText, seen] = await Promise.all([shared.kv.get(this.sharedKey), shared.kv.get(this.seenKey)]);
    const signature = await fileSignature(target);
    if (sharedText !== undefined && (signature === undefined || seen === undefined || signature === seen)) {
      // First sight of this host's file: remembered, so that its next rewrite is seen.
      if (seen === undefined && signature !== undefined) await shared.kv.set(this.seenKey, signature);
      return { tokens: this.parse(sharedText), signature };
    }
    // Parsed before it replaces anything: a broken rewrite fails this host's calls, not the fleet's token set.
    const read = await this.readStore(target);
    await shared.kv.set(this.sharedKey, JSON.stringify(read.tokens));
    await shared.kv.set(this.seenKey, read.signature);
    return read;
  }

  /** The token set of the file at `file` (the store or its resolved target), with the identity of the file read. */
  private async readStore(file: string): Promise<{ tokens: StoredTokens; signature: string }> {
    let text: string;
    let signature: string;
    try {
      ({ text, signature } = await readWithSignature(file));
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
      throw new McpAdapterError("NOT_CONFIGURED", `the OAuth token store ${this.file} ${missing ? "does not exist" : readProblem(error)}`);
    }
    return { tokens: this.parse(text), signature };
  }

  /** A token set from its JSON text (the file's or the shared copy), checked and its secrets registered with the redactor. */
  private parse(text: string): StoredTokens {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new McpAdapterError("NOT_CONFIGURED", `the OAuth token store ${this.file} is not valid JSON`);
    }
    if (!parsed || typeof parsed !== "object" || typeof (parsed as StoredTokens).access_token !== "string") {
      throw new McpAdapterError("NOT_CONFIGURED", `the OAuth token store ${this.file} has no access_token`);
    }
    const tokens = parsed as StoredTokens;
    this.register(tokens);
    // A line break in the token would be refused by fetch with a message quoting part of it (or,
    // with another client, split the header): refused here, naming the field, never the value.
    if (NOT_HEADER_SAFE.test(tokens.access_token)) {
      throw new McpAdapterError("NOT_CONFIGURED", `the OAuth token store ${this.file} has an access_token containing ${NOT_HEADER_SAFE_WORDS}; write the token into it exactly as it was issued`);
    }
    if (typeof tokens.expires_at === "string") tokens.expires_at = Number(tokens.expires_at);
    return tokens;
  }

  /** Whether the cached token set is still what the store holds: the file has its identity of the last read (with shared state, load() then decides whether the file or the shared copy holds it). */
  private async unchanged(): Promise<boolean> {
    const now = await fileSignature(this.file);
    // A store that cannot be stat'ed now (moved away mid-rewrite) keeps the token read before.
    return now === undefined || now === this.signature;
  }

  private register(tokens: Partial<StoredTokens>): void {
    this.options.redactor.add(tokens.access_token);
    this.options.redactor.add(tokens.refresh_token);
    this.options.redactor.add(tokens.client_secret);
  }

  /** Spend the refresh token of `tokens` (read from `target`, whose lock is held) and write the answer there. */
  private async grant(tokens: StoredTokens, target: string): Promise<string> {
    const redact = (text: string): string => this.options.redactor.redact(text);
    if (!tokens.refresh_token) throw new McpAdapterError("NOT_CONFIGURED", `the access token in ${this.file} expired and there is no refresh_token to renew it; write a new token set into the store`);
    if (!tokens.token_endpoint) throw new McpAdapterError("NOT_CONFIGURED", `the token store ${this.file} has no token_endpoint to refresh with; write a new token set into the store`);
    const endpoint = checkEndpoint(tokens.token_endpoint);
    const body = new URLSearchParams({ grant_type: "refresh_token", refresh_token: tokens.refresh_token });
    if (tokens.client_id) body.set("client_id", tokens.client_id);
    if (tokens.client_secret) body.set("client_secret", tokens.client_secret);
    // RFC 8707, as the MCP authorization spec requires of token requests: the server the token is for.
    const resource = tokens.resource === false ? undefined : typeof tokens.resource === "string" ? tokens.resource : this.options.resource;
    if (resource) body.set("resource", resource);
    const where = `${endpoint.origin}${endpoint.pathname}`;
    let response: Response;
    try {
      response = await (this.options.fetch ?? fetch)(endpoint, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: body.toString(),
        // Not followed: the refresh token and client secret go to token_endpoint and nowhere else.
        redirect: "manual",
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 15_000),
      });
    } catch (error) {
      throw new McpAdapterError("UPSTREAM_ERROR", redact(`refreshing the OAuth token at ${where} failed: ${errorMessage(error)}`), {
        hint: `Nothing usable answered at the token_endpoint of ${this.file} (${where}): if the authorization server is down, call again later; if the URL is wrong, correct token_endpoint in that file or write a new token set into it. Tool arguments cannot fix this.`,
      });
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => undefined);
      const location = response.headers.get("location");
      const to = location ? ` to ${redirectTarget(location, endpoint)}` : "";
      // NOT_CONFIGURED: the hint (bearer-auth.ts) says how to rewrite the store; the message says which field.
      throw new McpAdapterError("NOT_CONFIGURED", redact(`the token endpoint ${where} answered HTTP ${response.status} redirecting${to}, which is not followed (the refresh token goes to token_endpoint only); set token_endpoint in ${this.file} to the token URL itself, or write a new token set into it`), {
        status: response.status,
      });
    }
    // Read capped like every other body (shared/capped-body.ts): a token answer is a few hundred
    // bytes, and a cut one does not parse, which is refused below.
    const text = await readCappedBody(response, TOKEN_BODY_BYTES, `the token endpoint at ${endpoint.origin}`, { truncate: true }).then(
      ({ bytes }) => new TextDecoder().decode(bytes),
      () => "",
    );
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // handled below
    }
    if (typeof json.access_token === "string") this.options.redactor.add(json.access_token);
    if (typeof json.refresh_token === "string") this.options.redactor.add(json.refresh_token);
    if (!response.ok || typeof json.access_token !== "string") {
      const code = response.status >= 500 ? "UPSTREAM_ERROR" : "NOT_CONFIGURED";
      const answered = `${where} answered HTTP ${response.status}`;
      // A 2xx without a token set is not a refusal: often a login or proxy page in front of the endpoint.
      const what = response.ok
        ? `the token endpoint ${answered} without an access_token${Object.keys(json).length ? "" : `: not JSON (${JSON.stringify(firstBytes(text))})`}`
        : `the token endpoint refused to refresh the OAuth token (${typeof json.error === "string" ? `${json.error}, ` : ""}${answered})`;
      const failing = `The authorization server at the token_endpoint of ${this.file} (${where}) failed: call again later; if it keeps failing, check token_endpoint in that file or write a new token set into it. Tool arguments cannot fix this.`;
      throw new McpAdapterError(code, redact(`${what}${code === "NOT_CONFIGURED" ? `; write a new token set into ${this.file}` : ""}`), { status: response.status, ...(code === "UPSTREAM_ERROR" ? { hint: failing } : {}) });
    }
    if (NOT_HEADER_SAFE.test(json.access_token)) {
      throw new McpAdapterError("UPSTREAM_ERROR", `the token endpoint ${where} answered an access_token containing ${NOT_HEADER_SAFE_WORDS}; the store ${this.file} is unchanged`, {
        hint: `The authorization server at the token_endpoint of ${this.file} issued an unusable token: write a new token set into that file (it is read again on the next call). Tool arguments cannot fix this.`,
      });
    }
    const next: StoredTokens = { ...tokens, access_token: json.access_token };
    if (typeof json.refresh_token === "string") next.refresh_token = json.refresh_token;
    // An expires_in of 0 or less says nothing usable (the token would count as expired when issued
    // and every request would spend a grant): kept as no expiry, and a 401 renews it.
    if (typeof json.expires_in === "number" && Number.isFinite(json.expires_in) && json.expires_in > 0) {
      const atMs = this.now() + json.expires_in * 1000;
      // Keep the unit the file used.
      next.expires_at = tokens.expires_at !== undefined && tokens.expires_at < 1e11 ? Math.floor(atMs / 1000) : atMs;
      next.expires_in = json.expires_in;
    } else {
      delete next.expires_at;
      delete next.expires_in;
    }
    if (typeof json.token_type === "string") next.token_type = json.token_type;
    if (typeof json.scope === "string") next.scope = json.scope;
    // Shared state first: that is what the other instances read; the file is this host's copy.
    await this.options.shared?.kv.set(this.sharedKey, JSON.stringify(next));
    await writeTokenStore(target, next);
    this.tokens = next;
    this.signature = await fileSignature(this.file);
    // This host wrote its file itself (under the shared lock): not a rewrite to adopt on the next read.
    if (this.signature !== undefined) await this.options.shared?.kv.set(this.seenKey, this.signature);
    return next.access_token;
  }
}

/** A file's identity: a rewrite in place changes its size or times, a replacement its inode. */
function signatureOf(stats: { ino: number; size: number; mtimeMs: number; ctimeMs: number }): string {
  return `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}

async function fileSignature(file: string): Promise<string | undefined> {
  return stat(file).then(signatureOf, () => undefined);
}

/**
 * The text and the identity of the same open file, so a rewrite between the two is not missed.
 * Bounded (bounded-file.ts): a FIFO put in the store's place would hold the call (and a thread of
 * libuv's pool) forever, and a huge file would be read whole on every call.
 */
async function readWithSignature(file: string): Promise<{ text: string; signature: string }> {
  const { bytes, stats } = await readBoundedFileWithStats(file, TOKEN_STORE_FILE);
  return { text: bytes.toString("utf8"), signature: signatureOf(stats) };
}

/** A redirect's Location for a message: resolved against the endpoint, or quoted (cut short) when it is no URL. */
function redirectTarget(location: string, endpoint: URL): string {
  try {
    return new URL(location, endpoint).href;
  } catch {
    return `${JSON.stringify(firstBytes(location))} (not a URL)`;
  }
}

/** What a body begins with, for a message: enough to tell a login page from cut JSON (callers redact it). */
function firstBytes(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 80 ? `${flat.slice(0, 80)}…` : flat;
}

function pendingPath(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.next`);
}

/** A complete `.next` file (it parses and has an access token) replaces the store; a torn one is dropped. */
async function adoptPendingWrite(file: string): Promise<void> {
  const pending = pendingPath(file);
  let text: string;
  try {
    text = await readFile(pending, "utf8");
  } catch {
    return;
  }
  try {
    const parsed = JSON.parse(text) as Partial<StoredTokens>;
    if (typeof parsed.access_token === "string") {
      await rename(pending, file);
      return;
    }
  } catch {
    // torn: the process died while writing it, before the provider's answer was safe anyway
  }
  await rm(pending, { force: true }).catch(() => undefined);
}

/**
 * Write durably (replace-file.ts): `.<name>.next` beside the target (mode 0600), fsynced, renamed
 * over the target, then the directory fsynced so the rename survives a crash too. The temporary
 * keeps its fixed name, unlike other stores': a complete `.next` a crash left holds tokens the
 * provider may already have rotated, and the next read adopts it (adoptPendingWrite). Callers hold
 * the store's lock, so no two writers share the name.
 */
export async function writeTokenStore(file: string, tokens: StoredTokens): Promise<void> {
  try {
    await replaceFile(file, `${JSON.stringify(tokens, null, 2)}\n`, { mode: 0o600, temp: pendingPath(file), durable: true });
  } catch (error) {
    throw new McpAdapterError("UPSTREAM_ERROR", `could not rewrite the OAuth token store ${file}: ${errorMessage(error)}`);
  }
}
