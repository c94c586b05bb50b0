import { valueAt } from "../shared/json-path.js";
import { Buffer } from "node:buffer";
import { referencedVariables, resolveSecretAware } from "../shared/env-vars.js";
import type { Redactor } from "../shared/redact.js";
import { RestError } from "./errors.js";
import type { AuthSpec } from "./spec.js";

/**
 * Auth styles: bearer token, a custom header, a query parameter, or a login that POSTs credentials
 * and uses the returned token (cached; on a 401 the client logs in again once and retries).
 * Every resolved credential is registered with the redactor before it is sent anywhere.
 *
 * Login is single-flight: concurrent calls share one login, a failed login is not cached (the
 * next call tries again), and after a 401 the token is dropped only if it is the one that was
 * rejected — so N calls that all meet an expired token cause one re-login, not N.
 */

export interface Auth {
  /** Add credentials to an outgoing request. Answers the login token used, if any. */
  apply(url: URL, headers: Headers, signal: AbortSignal): Promise<string | undefined>;
  /**
   * After a 401 on a request sent with `rejected` (what apply answered): forget that token.
   * True when a retry could succeed.
   */
  invalidate(rejected?: string): boolean;
  /** Statuses that mean "the credentials were refused" for this style: drop, log in again, retry once. */
  readonly retryOn: readonly number[];
}

/** Posts the login body and returns the parsed JSON (the client supplies this). */
export type LoginPoster = (path: string, body: unknown, signal: AbortSignal) => Promise<unknown>;

function interpolateDeep(value: unknown, env: NodeJS.ProcessEnv, where: string, redactor: Redactor): unknown {
  if (typeof value === "string") {
    return resolveSecretAware(value, env, where, redactor);
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolateDeep(v, env, `${where}[${i}]`, redactor));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = interpolateDeep(v, env, `${where}.${k}`, redactor);
    return out;
  }
  return value;
}

function secret(value: string, env: NodeJS.ProcessEnv, where: string, redactor: Redactor): string {
  const resolved = resolveSecretAware(value, env, where, redactor);
  redactor.add(resolved);
  return resolved;
}

/** The host variables the credentials of an auth block come from (`${TASKS_API_KEY}`), in order, once each. */
export function authVariables(spec: AuthSpec | undefined): string[] {
  if (!spec) return [];
  const texts: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === "string") texts.push(value);
    else if (Array.isArray(value)) value.forEach(collect);
    else if (value && typeof value === "object") Object.values(value).forEach(collect);
  };
  collect(spec.type === "bearer" ? spec.token : spec.type === "login" ? spec.body : spec.value);
  return [...new Set(texts.flatMap(referencedVariables))];
}

/**
 * The hint for credentials the service refused (a 401, a 403 that is no rate limit, a failed
 * login), naming the variables the auth block reads: the fix is in the server's environment, and
 * neither the arguments nor a retry can help. Undefined when the auth reads no variable.
 */
export function refusedCredentialsHint(spec: AuthSpec | undefined, status: number): string | undefined {
  const names = authVariables(spec);
  if (!names.length) return undefined;
  const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : names[0];
  return (
    `The service refused the credentials (HTTP ${status}): ${list}, which this plugin's auth reads, ${names.length > 1 ? "are" : "is"} wrong, expired or without access. ` +
    "Tell the user to set the right value in the agent-tools server's environment and restart the server; changing the arguments or retrying will not help."
  );
}

export function createAuth(spec: AuthSpec | undefined, env: NodeJS.ProcessEnv, redactor: Redactor, post: LoginPoster): Auth {
  if (!spec) return { apply: async () => undefined, invalidate: () => false, retryOn: [] };
  switch (spec.type) {
    case "bearer":
      return {
        apply: async (_url, headers) => void headers.set("Authorization", `Bearer ${secret(spec.token, env, "auth.token", redactor)}`),
        invalidate: () => false,
        retryOn: [],
      };
    case "header":
      return { apply: async (_url, headers) => void headers.set(spec.name, secret(spec.value, env, "auth.value", redactor)), invalidate: () => false, retryOn: [] };
    case "query":
      return { apply: async (url) => void url.searchParams.set(spec.name, secret(spec.value, env, "auth.value", redactor)), invalidate: () => false, retryOn: [] };
    case "login":
      return loginAuth(spec, env, redactor, post);
  }
}

/** Wait for `promise`, but give up as soon as `signal` aborts (the promise itself goes on). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** Renew a JWT this long before its `exp`, so a request does not set out with a token about to lapse. */
const EXPIRY_MARGIN_MS = 30_000;

/**
 * The `exp` of a JWT-shaped token, in ms since the epoch; undefined for opaque tokens. Not a
 * verification (the server does that): only a hint of when to log in again, because some
 * servers (PocketBase) treat an expired token as no token and answer as to a guest.
 */
function jwtExpiry(token: string): number | undefined {
  const parts = token.split(".");
  if (parts.length !== 3 || !parts[1]) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8")) as { exp?: unknown };
    return typeof claims.exp === "number" && Number.isFinite(claims.exp) ? claims.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

function loginAuth(spec: Extract<AuthSpec, { type: "login" }>, env: NodeJS.ProcessEnv, redactor: Redactor, post: LoginPoster): Auth {
  /** The shared login: pending or settled. */
  let token: Promise<string> | undefined;
  /** The settled token's value; undefined while a login is in flight or none was made. */
  let current: string | undefined;
  /** When the settled token lapses (JWT exp), if it says. */
  let expiresAt: number | undefined;
  const login = async (): Promise<string> => {
    const body = interpolateDeep(spec.body, env, "auth.body", redactor);
    // Not the first caller's signal: one caller giving up must not fail the others sharing this
    // login. The client still puts its own deadline on the exchange.
    const response = await post(spec.url, body, new AbortController().signal);
    const value = valueAt(response, spec.tokenPath);
    if (typeof value !== "string" || value === "") {
      throw new RestError("UPSTREAM_ERROR", `login at ${spec.url} answered without a token at '${spec.tokenPath}'`);
    }
    redactor.add(value);
    return value;
  };
  return {
    retryOn: spec.retryOn,
    async apply(_url, headers, signal) {
      if (token && current !== undefined && expiresAt !== undefined && Date.now() >= expiresAt - EXPIRY_MARGIN_MS) {
        token = undefined; // about to lapse: log in again now rather than be answered as a guest
        current = undefined;
      }
      if (!token) {
        const attempt: Promise<string> = login().then(
          (value) => {
            if (token === attempt) {
              current = value;
              expiresAt = jwtExpiry(value);
            }
            return value;
          },
          (error: unknown) => {
            if (token === attempt) token = undefined; // a failed login is not cached
            throw error;
          },
        );
        token = attempt;
      }
      const value = await untilAborted(token, signal);
      headers.set(spec.header, spec.scheme ? `${spec.scheme} ${value}` : value);
      return value;
    },
    invalidate(rejected) {
      // Another call already replaced the rejected token (or is logging in): reuse that one.
      if (rejected !== undefined && token && current !== rejected) return true;
      token = undefined;
      current = undefined;
      return true;
    },
  };
}
