import { createHash, timingSafeEqual } from "node:crypto";
import type { TeamConfig, TeamJwtConfig } from "../config/team.js";
import type { Identity } from "../runtime/access.js";
import type { Logger } from "../adapters/types.js";

/**
 * Who is calling: a bearer token from the config's `team.identities` (only its SHA-256 is in the
 * config), a JWT signed by the configured issuer (checked against its JWKS with `jose`), or the
 * single AGENT_TOOLS_HTTP_TOKEN of a one-user server, which keeps meaning "may do everything".
 * Answers are rejections with the status, the message and the WWW-Authenticate challenge the MCP
 * authorization spec asks for (pointing at the protected resource metadata); a JWT that cannot be
 * checked because the issuer's keys cannot be fetched gets 503 with Retry-After instead.
 */

export type AuthOutcome = { ok: true; identity: Identity | undefined } | { ok: false; status: number; message: string; headers: Record<string, string> };

export interface Authenticator {
  /** Whether every request must authenticate (a token, identities or a JWT issuer is configured). */
  readonly required: boolean;
  /** `host`: the request's Host, already checked (loopback or http.allowedHosts), for the metadata URL a 401 names. */
  authenticate(authorization: string | undefined, host?: string): Promise<AuthOutcome>;
}

/** Hex SHA-256 of a token, the form the config keeps (`agent-tools hash-token` prints it). */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** The Retry-After (seconds) of the 503 a JWT gets while the issuer's keys cannot be fetched. */
export const JWKS_RETRY_AFTER = "5";

/** While the keys stay unfetchable, at most one warning per this long (one per request would flood the log). */
const JWKS_WARN_EVERY_MS = 60_000;

/**
 * The issuer's key set (JWKS) could not be fetched, so the JWT could be neither accepted nor
 * refused: the gateway's trouble, not the token's. Answered 503 with Retry-After, never 401: an
 * OAuth client drops a token it is told is invalid, and the token may well be valid.
 */
class KeysUnavailable extends Error {}

interface JwtVerifier {
  verify(token: string): Promise<Identity>;
}

type Jose = typeof import("jose");

/** Whether `error`, from the remote key set, is about fetching it (network, status, timeout, a body that is no JWKS) rather than about the token's key. */
function fetchFailed(error: unknown, jose: Jose): boolean {
  const { JOSEError, JWKSTimeout, JWKSInvalid } = jose.errors;
  // Not jose's own: fetch itself failed (TypeError "fetch failed", a DNS error).
  if (!(error instanceof JOSEError)) return true;
  return error instanceof JWKSTimeout || error instanceof JWKSInvalid || (error.code === "ERR_JOSE_GENERIC" && /JSON Web Key Set/.test(error.message));
}

/** A fetch failure in a few words, with the network's code when it has one ("fetch failed (ECONNREFUSED)"). */
function fetchFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return typeof code === "string" ? `${message} (${code})` : message;
}

/** Why jose refused a token, in words a caller can act on. */
function refusalReason(error: unknown, jose: Jose, config: TeamJwtConfig): string {
  const { JWTClaimValidationFailed, JWTExpired } = jose.errors;
  if (error instanceof JWTExpired) return "it has expired (its 'exp' is past); get a new token from the issuer";
  if (error instanceof JWTClaimValidationFailed && error.claim === "exp" && error.reason === "missing") {
    return `it has no 'exp' (expiry) claim, and this gateway accepts only JWTs that expire (a token that never expires stays usable forever once leaked); have the issuer (${config.issuer}) set exp (the gateway's operator may accept such tokens with team.jwt.requireExp: false)`;
  }
  return (error as Error).message;
}

async function createJwtVerifier(config: TeamJwtConfig, log: Pick<Logger, "warn" | "info">): Promise<JwtVerifier> {
  const jose = await import("jose");
  const jwksUrl = new URL(config.jwksUrl ?? `${config.issuer.replace(/\/+$/, "")}/.well-known/jwks.json`);
  const remote = jose.createRemoteJWKSet(jwksUrl);
  const nameClaim = config.nameClaim ?? "sub";
  const writeScope = config.writeScope ?? "agent-tools:write";
  // Tokens without exp only when the operator says so: jose accepts them by default.
  const requiredClaims = config.requireExp === false ? [] : ["exp"];
  // One warning when the keys cannot be fetched, again at most once a minute while that lasts, and a line when they can again.
  let failingSince: number | undefined;
  let lastWarned = 0;
  let refusedSince = 0;
  const keys: Parameters<Jose["jwtVerify"]>[1] = async (header, token) => {
    try {
      const key = await remote(header, token);
      if (failingSince !== undefined) {
        log.info(`jwt: the issuer's keys at ${jwksUrl.href} could be fetched again; JWTs are checked again (${refusedSince} request(s) were answered 503 meanwhile)`);
        failingSince = undefined;
      }
      return key;
    } catch (error) {
      if (!fetchFailed(error, jose)) throw error;
      const now = Date.now();
      failingSince ??= now;
      refusedSince = now === failingSince ? 1 : refusedSince + 1;
      if (now - lastWarned >= JWKS_WARN_EVERY_MS) {
        lastWarned = now;
        const since = now === failingSince ? "" : ` (failing since ${new Date(failingSince).toISOString()}, ${refusedSince} request(s) answered 503)`;
        log.warn(`jwt: could not fetch the issuer's keys from ${jwksUrl.href} (team.jwt.jwksUrl, default <issuer>/.well-known/jwks.json): ${fetchFailure(error)}${since}; requests with a JWT are answered 503 (retry after ${JWKS_RETRY_AFTER} s) until it answers; check that URL from this host`);
      }
      throw new KeysUnavailable(fetchFailure(error), { cause: error });
    }
  };
  return {
    async verify(token) {
      let payload: import("jose").JWTPayload;
      try {
        ({ payload } = await jose.jwtVerify(token, keys, { issuer: config.issuer, audience: config.audience, requiredClaims }));
      } catch (error) {
        if (error instanceof KeysUnavailable) throw error;
        throw new Error(refusalReason(error, jose, config));
      }
      const name = payload[nameClaim];
      if (typeof name !== "string" || !name) throw new Error(`the token has no '${nameClaim}' claim to name the caller`);
      const rawPlugins = config.pluginsClaim ? payload[config.pluginsClaim] : undefined;
      const list = Array.isArray(rawPlugins) ? rawPlugins.filter((p): p is string => typeof p === "string") : typeof rawPlugins === "string" ? rawPlugins.split(/\s+/).filter(Boolean) : undefined;
      const scopes = [payload.scope, payload.scp].flatMap((s) => (Array.isArray(s) ? s : typeof s === "string" ? s.split(/\s+/) : []));
      return {
        name: `jwt:${name}`,
        plugins: list === undefined || list.includes("*") ? "*" : list,
        write: scopes.includes(writeScope),
        ...(config.ratePerMinute ? { ratePerMinute: config.ratePerMinute } : {}),
      };
    },
  };
}

/**
 * `resourceMetadataUrl`: the protected resource metadata's URL for a request with this Host, named
 * in every 401's challenge (RFC 9728) so a client can learn where to get a token.
 */
export async function createAuthenticator(options: {
  team: TeamConfig | undefined;
  singleToken: string | undefined;
  resourceMetadataUrl: (host: string | undefined) => string | undefined;
  /** Where a JWKS that cannot be fetched is said. */
  log: Pick<Logger, "warn" | "info">;
}): Promise<Authenticator> {
  const identities = (options.team?.identities ?? []).map((entry) => ({
    digest: Buffer.from(entry.tokenSha256.toLowerCase(), "hex"),
    identity: {
      name: entry.name,
      plugins: entry.plugins === undefined || entry.plugins.includes("*") ? "*" : entry.plugins,
      write: entry.write === true,
      ...(entry.ratePerMinute ? { ratePerMinute: entry.ratePerMinute } : {}),
    } satisfies Identity,
  }));
  const jwt = options.team?.jwt ? await createJwtVerifier(options.team.jwt, options.log) : undefined;
  const single = options.singleToken ? Buffer.from(hashToken(options.singleToken), "hex") : undefined;
  const required = identities.length > 0 || jwt !== undefined || single !== undefined;
  const what = [identities.length ? "a team token" : "", single ? "AGENT_TOOLS_HTTP_TOKEN" : "", jwt ? `a JWT from ${options.team?.jwt?.issuer}` : ""].filter(Boolean).join(" or ");

  return {
    required,
    async authenticate(header, host) {
      const metadata = options.resourceMetadataUrl(host);
      const challenge = `Bearer realm="agent-tools-runtime"${metadata ? `, resource_metadata="${metadata}"` : ""}`;
      const refuse = (message: string, error?: string): AuthOutcome => ({ ok: false, status: 401, message, headers: { "WWW-Authenticate": error ? `${challenge}, error="${error}"` : challenge } });
      if (!required) return { ok: true, identity: undefined };
      if (!header) return refuse(`this gateway requires 'Authorization: Bearer <token>' (${what})`);
      const presented = /^Bearer\s+(.+)$/i.exec(header.trim())?.[1]?.trim() ?? "";
      if (!presented) return refuse("the Authorization header must be 'Bearer <token>'", "invalid_request");
      const digest = Buffer.from(hashToken(presented), "hex");
      // Constant time over every configured token: which one matched does not show in the timing.
      let found: Identity | undefined;
      for (const entry of identities) if (timingSafeEqual(digest, entry.digest)) found = entry.identity;
      if (found) return { ok: true, identity: found };
      if (single && timingSafeEqual(digest, single)) return { ok: true, identity: undefined };
      if (jwt && JWT_SHAPE.test(presented)) {
        try {
          return { ok: true, identity: await jwt.verify(presented) };
        } catch (error) {
          if (error instanceof KeysUnavailable) {
            return { ok: false, status: 503, message: `this gateway could not fetch its token issuer's signing keys to check the JWT, so the token was neither accepted nor refused and nothing was run; send the request again after ${JWKS_RETRY_AFTER} s (Retry-After) with the same token`, headers: { "Retry-After": JWKS_RETRY_AFTER } };
          }
          return refuse(`the JWT was refused: ${(error as Error).message}`, "invalid_token");
        }
      }
      return refuse(`the bearer token is not one this gateway knows; send ${what}`, "invalid_token");
    },
  };
}
