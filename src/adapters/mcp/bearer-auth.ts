import os from "node:os";
import type { Redactor } from "../shared/redact.js";
import { McpAdapterError } from "./errors.js";
import { OAuthTokenStore, resolveStorePath, TOKEN_STORE_SHAPE, type SharedTokenState } from "./oauth-token-store.js";
import type { McpAuthSpec } from "./spec.js";
import type { Cancellation } from "../../cancel.js";

/**
 * The bearer token of an HTTP MCP server: the `tokenEnv` host variable when set, else the OAuth
 * token store (refreshed when expired or refused). `authFetch` puts it on every request and, on a
 * 401, retries once with a new token: the store's own when the file was rewritten meanwhile, else
 * a refreshed one. A token the server refused right after it was issued is not refreshed again
 * (that would spend a grant on every request of a server that refuses them all) — until the store
 * file changes (the user fixed it, as the errors advise; with shared state too, where the store's
 * version is still this host's file) or REFUSED_MEMORY_MS passes (the server may accept again).
 */

/** How long a token refused right after its refresh blocks another refresh, when the store stays unchanged. */
const REFUSED_MEMORY_MS = 5 * 60_000;

/**
 * `cancel` (token, refreshAfter401): the caller's cancellation. A refresh waiting for another
 * process's lock on the store stops waiting for this caller when it fires (oauth-token-store.ts).
 */
export interface BearerSource {
  token(cancel?: Cancellation): Promise<string>;
  /** A new token after `rejected` was refused, or undefined when the source has none. */
  refreshAfter401(rejected: string, cancel?: Cancellation): Promise<string | undefined>;
  /** The new token from refreshAfter401 was refused too: do not refresh for it again. */
  refusedAfterRefresh?(token: string): void;
}

/**
 * Where an HTTP MCP server's credentials come from, for messages that must say what to fix: the
 * variable when it is set, else the token store, else the variable that would do.
 */
export interface CredentialSource {
  /** "$N8N_MCP_TOKEN", "the OAuth token store /path/tokens.json" or "its headers". */
  what: string;
  /** How to replace credentials the server refused. */
  fix: string;
}

export function describeCredentials(auth: McpAuthSpec | undefined, env: NodeJS.ProcessEnv, baseDir?: string): CredentialSource {
  const variable = auth?.tokenEnv;
  if (variable && env[variable]) {
    return { what: `$${variable}`, fix: `Set ${variable} in the environment of the agent-tools server to a valid access token of this MCP server, then restart it. Tool arguments cannot fix this.` };
  }
  if (auth?.tokenStore) {
    let file: string;
    try {
      file = resolveStorePath(auth.tokenStore, env, baseDir);
    } catch {
      file = auth.tokenStore;
    }
    const orVariable = variable ? `, or set ${variable} in the environment of the agent-tools server to an access token and restart it` : "";
    return { what: `the OAuth token store ${file}`, fix: `Create or rewrite ${file} with a token set of this MCP server (${TOKEN_STORE_SHAPE}; it is read again on the next call)${orVariable}. Tool arguments cannot fix this.` };
  }
  if (variable) return { what: `$${variable}`, fix: `Set ${variable} in the environment of the agent-tools server to an access token of this MCP server, then restart it. Tool arguments cannot fix this.` };
  return { what: "its headers", fix: "Correct the server's credentials in its settings (headers, or the URL's user:password), then restart the agent-tools server. Tool arguments cannot fix this." };
}

/** A token store error (missing, unreadable, refused refresh) with what else would do: the variable, and the hint to re-issue the store. */
function storeFailure(error: unknown, auth: McpAuthSpec, env: NodeJS.ProcessEnv, baseDir: string | undefined): unknown {
  if (!(error instanceof McpAdapterError) || error.code !== "NOT_CONFIGURED") return error;
  const { fix } = describeCredentials(auth, env, baseDir);
  const orVariable = auth.tokenEnv ? ` (or set ${auth.tokenEnv} to an access token of the MCP server instead)` : "";
  // hostFixable: the store is read again on the next call, so the same call after a fix is no loop.
  return new McpAdapterError("NOT_CONFIGURED", `${error.message}${orVariable}`, { ...(error.status !== undefined ? { status: error.status } : {}), hint: fix, hostFixable: true });
}

export function createBearerSource(
  auth: McpAuthSpec,
  options: { env: NodeJS.ProcessEnv; redactor: Redactor; baseDir?: string; fetch?: typeof fetch; name: string; shared?: SharedTokenState; resource?: string; now?: () => number },
): BearerSource {
  const now = options.now ?? Date.now;
  let store: OAuthTokenStore | undefined;
  /** An issued token the server refused at once, the store's identity then, and when: refreshing for it again would only spend grants. */
  let refusedFresh: { token: string; version: string | undefined; at: number } | undefined;
  const stillRefused = (token: string, tokenStore: OAuthTokenStore): boolean =>
    refusedFresh !== undefined && refusedFresh.token === token && refusedFresh.version === tokenStore.version() && now() - refusedFresh.at < REFUSED_MEMORY_MS;
  const getStore = (): OAuthTokenStore | undefined => {
    if (!auth.tokenStore) return undefined;
    store ??= new OAuthTokenStore(resolveStorePath(auth.tokenStore, options.env, options.baseDir), {
      redactor: options.redactor,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      // This host's copy of the file is known by a name that outlives a restart (the instance id may be random).
      ...(options.shared ? { shared: options.shared, fileHost: options.env.AGENT_TOOLS_INSTANCE_ID?.trim() || os.hostname() } : {}),
      ...(options.resource ? { resource: options.resource } : {}),
    });
    return store;
  };
  const fromEnv = (): string | undefined => {
    const value = auth.tokenEnv ? options.env[auth.tokenEnv] : undefined;
    if (value) options.redactor.add(value);
    return value || undefined;
  };
  return {
    async token(cancel) {
      const envToken = fromEnv();
      if (envToken) return envToken;
      const tokenStore = getStore();
      if (tokenStore) return tokenStore.accessToken(cancel).catch((error: unknown) => Promise.reject(storeFailure(error, auth, options.env, options.baseDir)));
      throw new McpAdapterError("NOT_CONFIGURED", `MCP server '${options.name}' needs a bearer token: set $${auth.tokenEnv ?? "TOKEN"} on the host`);
    },
    async refreshAfter401(rejected, cancel) {
      if (fromEnv()) return undefined;
      const tokenStore = getStore();
      if (!tokenStore) return undefined;
      const fail = (error: unknown) => Promise.reject(storeFailure(error, auth, options.env, options.baseDir));
      // The user may have rewritten the store (the only way to renew a token without a refresh_token).
      const stored = await tokenStore.reread().catch(fail);
      if (stored !== rejected) return stored;
      if (stillRefused(rejected, tokenStore) || !(await tokenStore.canRefresh())) return undefined;
      return tokenStore.refresh(rejected, cancel).catch(fail);
    },
    refusedAfterRefresh(token) {
      refusedFresh = { token, version: store?.version(), at: now() };
    },
  };
}

/**
 * A fetch that sends `Authorization: Bearer <token>` and retries once with a refreshed token on 401.
 * The request's signal is the caller's for a refresh: the SDK joins the request's own cancellation
 * into it for a 2026-07-28 server; for a 2025-era one it is the connection's alone, and a call's
 * cancel reaches the token's refresh before the request (OpenedTransport.prepare).
 */
export function authFetch(source: BearerSource, base: typeof fetch = fetch): typeof fetch {
  const withToken = (init: RequestInit | undefined, token: string): RequestInit => {
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${token}`);
    return { ...init, headers };
  };
  return async (input, init) => {
    const signal = init?.signal ?? undefined;
    const token = await source.token(signal);
    const response = await base(input, withToken(init, token));
    if (response.status !== 401) return response;
    // Only a body that can be sent again (the SDK sends JSON strings) may be retried.
    if (init?.body !== undefined && init.body !== null && typeof init.body !== "string") return response;
    const fresh = await source.refreshAfter401(token, signal);
    if (!fresh) return response;
    await response.body?.cancel().catch(() => undefined);
    const retried = await base(input, withToken(init, fresh));
    if (retried.status === 401) source.refusedAfterRefresh?.(fresh);
    return retried;
  };
}
