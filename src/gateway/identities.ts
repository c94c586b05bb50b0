import { createHash, timingSafeEqual } from "node:crypto";
import type { TeamConfig, TeamJwtConfig } from "../config/team.js";
import type { Identity } from "../runtime/access.js";

/**
 * Who is calling: a bearer token from the config's `team.identities` (only its SHA-256 is in the
 * config), a JWT signed by the configured issuer (checked against its JWKS with `jose`), or the
 * single AGENT_TOOLS_HTTP_TOKEN of a one-user server, which keeps meaning "may do everything".
 * Answers are rejections with the status, the message and the WWW-Authenticate challenge the MCP
 * authorization spec asks for (pointing at the protected resource metadata).
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

interface JwtVerifier {
  verify(token: string): Promise<Identity>;
}

async function createJwtVerifier(config: TeamJwtConfig): Promise<JwtVerifier> {
  const { createRemoteJWKSet, jwtVerify } = await import("jose");
  const jwksUrl = new URL(config.jwksUrl ?? `${config.issuer.replace(/\/+$/, "")}/.well-known/jwks.json`);
  const keys = createRemoteJWKSet(jwksUrl);
  const nameClaim = config.nameClaim ?? "sub";
  const writeScope = config.writeScope ?? "agent-tools:write";
  return {
    async verify(token) {
      const { payload } = await jwtVerify(token, keys, { issuer: config.issuer, audience: config.audience });
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
export async function createAuthenticator(options: { team: TeamConfig | undefined; singleToken: string | undefined; resourceMetadataUrl: (host: string | undefined) => string | undefined }): Promise<Authenticator> {
  const identities = (options.team?.identities ?? []).map((entry) => ({
    digest: Buffer.from(entry.tokenSha256.toLowerCase(), "hex"),
    identity: {
      name: entry.name,
      plugins: entry.plugins === undefined || entry.plugins.includes("*") ? "*" : entry.plugins,
      write: entry.write === true,
      ...(entry.ratePerMinute ? { ratePerMinute: entry.ratePerMinute } : {}),
    } satisfies Identity,
  }));
  const jwt = options.team?.jwt ? await createJwtVerifier(options.team.jwt) : undefined;
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
          return refuse(`the JWT was refused: ${(error as Error).message}`, "invalid_token");
        }
      }
      return refuse(`the bearer token is not one this gateway knows; send ${what}`, "invalid_token");
    },
  };
}
