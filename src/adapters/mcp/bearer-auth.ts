import type { Redactor } from "../shared/redact.js";
import { McpAdapterError } from "./errors.js";
import { OAuthTokenStore, resolveStorePath, type SharedTokenState } from "./oauth-token-store.js";
import type { McpAuthSpec } from "./spec.js";

/**
 * The bearer token of an HTTP MCP server: the `tokenEnv` host variable when set, else the OAuth
 * token store (refreshed when expired or refused). `authFetch` puts it on every request and, on a
 * 401, refreshes once and retries.
 */

export interface BearerSource {
  token(): Promise<string>;
  /** A new token after `rejected` was refused, or undefined when the source cannot refresh. */
  refreshAfter401(rejected: string): Promise<string | undefined>;
}

export function createBearerSource(
  auth: McpAuthSpec,
  options: { env: NodeJS.ProcessEnv; redactor: Redactor; baseDir?: string; fetch?: typeof fetch; name: string; shared?: SharedTokenState },
): BearerSource {
  let store: OAuthTokenStore | undefined;
  const getStore = (): OAuthTokenStore | undefined => {
    if (!auth.tokenStore) return undefined;
    store ??= new OAuthTokenStore(resolveStorePath(auth.tokenStore, options.env, options.baseDir), {
      redactor: options.redactor,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.shared ? { shared: options.shared } : {}),
    });
    return store;
  };
  const fromEnv = (): string | undefined => {
    const value = auth.tokenEnv ? options.env[auth.tokenEnv] : undefined;
    if (value) options.redactor.add(value);
    return value || undefined;
  };
  return {
    async token() {
      const envToken = fromEnv();
      if (envToken) return envToken;
      const tokenStore = getStore();
      if (tokenStore) return tokenStore.accessToken();
      throw new McpAdapterError("NOT_CONFIGURED", `MCP server '${options.name}' needs a bearer token: set $${auth.tokenEnv ?? "TOKEN"} on the host`);
    },
    async refreshAfter401(rejected) {
      if (fromEnv()) return undefined;
      const tokenStore = getStore();
      if (!tokenStore || !(await tokenStore.canRefresh())) return undefined;
      return tokenStore.refresh(rejected);
    },
  };
}

/** A fetch that sends `Authorization: Bearer <token>` and retries once with a refreshed token on 401. */
export function authFetch(source: BearerSource, base: typeof fetch = fetch): typeof fetch {
  const withToken = (init: RequestInit | undefined, token: string): RequestInit => {
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${token}`);
    return { ...init, headers };
  };
  return async (input, init) => {
    const token = await source.token();
    const response = await base(input, withToken(init, token));
    if (response.status !== 401) return response;
    // Only a body that can be sent again (the SDK sends JSON strings) may be retried.
    if (init?.body !== undefined && init.body !== null && typeof init.body !== "string") return response;
    const fresh = await source.refreshAfter401(token);
    if (!fresh) return response;
    await response.body?.cancel().catch(() => undefined);
    return base(input, withToken(init, fresh));
  };
}
