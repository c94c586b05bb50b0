import { MAX_TIMER_MS } from "../positive-int.js";
/**
 * The config's `team` block: what turns one runtime into an instance of a team gateway (shared
 * state in Redis, named identities, JWTs, metrics). Its JSON Schema is checked with the rest of the
 * config file, so a mistake names the field.
 */

export interface TeamIdentityConfig {
  name: string;
  /** Hex SHA-256 of the bearer token (`agent-tools hash-token` prints it); the token itself is never in the config. */
  tokenSha256: string;
  /** Plugin prefixes, or ["*"] for all; default all. */
  plugins?: string[];
  /** May run calls that change data; default false (read-only). */
  write?: boolean;
  /** Requests per minute on the HTTP endpoint; default no limit. */
  ratePerMinute?: number;
}

export interface TeamJwtConfig {
  issuer: string;
  audience: string;
  /** The issuer's JWKS; default `<issuer>/.well-known/jwks.json`. */
  jwksUrl?: string;
  /** Claim naming the identity; default "sub". */
  nameClaim?: string;
  /** Claim listing plugin prefixes (array or space-separated string); absent = every plugin. */
  pluginsClaim?: string;
  /** The scope (in `scope`/`scp`) that allows writes; default "agent-tools:write". */
  writeScope?: string;
  ratePerMinute?: number;
  /** Refuse a JWT without `exp` (default true): a token that never expires stays usable forever once leaked. */
  requireExp?: boolean;
}

export interface TeamConfig {
  /** redis:// or rediss:// URL; `AGENT_TOOLS_REDIS_URL` wins. */
  redis?: string;
  redisPrefix?: string;
  /** "off" disables the audit log; a path names the JSONL file (memory backend). */
  audit?: string;
  /** The audit file's size bound in bytes (rotated past it); 0: no rotation of its own. `AGENT_TOOLS_AUDIT_MAX_BYTES` wins. */
  auditMaxBytes?: number;
  heartbeatTtlMs?: number;
  identities?: TeamIdentityConfig[];
  jwt?: TeamJwtConfig;
  /** This gateway's public URL (the protected resource in /.well-known/oauth-protected-resource). */
  resource?: string;
  /** /metrics on the HTTP port (default true), or on its own port. */
  metrics?: boolean | { port: number; host?: string };
}

/** What tokenSha256 must hold and how to make it; the field's value is never echoed. */
const TOKEN_SHA256_PROBLEM = "must be the token's SHA-256 as 64 hex characters, not the token itself: `agent-tools hash-token TOKEN` prints it (or `printf %s TOKEN | sha256sum`)";

const strings = { type: "array", items: { type: "string", minLength: 1 } } as const;

export const teamSchema = {
  type: "object",
  properties: {
    redis: { type: "string", pattern: "^rediss?://" },
    redisPrefix: { type: "string", minLength: 1 },
    audit: { type: "string", minLength: 1 },
    auditMaxBytes: { type: "integer", minimum: 0 },
    heartbeatTtlMs: { type: "integer", minimum: 300, maximum: MAX_TIMER_MS },
    identities: {
      type: "array",
      items: {
        type: "object",
        required: ["name", "tokenSha256"],
        properties: {
          name: { type: "string", pattern: "^[A-Za-z0-9._@-]{1,64}$" },
          // Said without the value: a token pasted here by mistake must not reach a log.
          tokenSha256: { type: "string", pattern: "^[0-9a-fA-F]{64}$", problem: TOKEN_SHA256_PROBLEM },
          plugins: strings,
          write: { type: "boolean" },
          ratePerMinute: { type: "integer", minimum: 1 },
        },
        additionalProperties: false,
      },
    },
    jwt: {
      type: "object",
      required: ["issuer", "audience"],
      properties: {
        issuer: { type: "string", minLength: 1 },
        audience: { type: "string", minLength: 1 },
        jwksUrl: { type: "string", pattern: "^https?://" },
        nameClaim: { type: "string", minLength: 1 },
        pluginsClaim: { type: "string", minLength: 1 },
        writeScope: { type: "string", minLength: 1 },
        ratePerMinute: { type: "integer", minimum: 1 },
        requireExp: { type: "boolean" },
      },
      additionalProperties: false,
    },
    resource: { type: "string", pattern: "^https?://" },
    metrics: {
      oneOf: [
        { type: "boolean" },
        { type: "object", required: ["port"], properties: { port: { type: "integer", minimum: 0, maximum: 65535 }, host: { type: "string", minLength: 1 } }, additionalProperties: false },
      ],
    },
  },
  additionalProperties: false,
} as const;

/**
 * The identity the audit log names for a write made without a team identity: over stdio, or with
 * AGENT_TOOLS_HTTP_TOKEN, the one-user token. Reserved, so no team identity's writes read as those.
 */
export const LOCAL_IDENTITY = "local";

/**
 * What the schema cannot say about `team.identities`: the reserved name 'local', two entries with
 * one token (the last one would win, silently, with its plugins and write right) or one name
 * (sessions, rate budgets and the audit log tell identities apart by name). Entries are named by index and name, never by
 * their hash. Entries the schema refuses are skipped: their own problems are said already.
 */
export function teamIdentityProblems(team: unknown): { segments: (string | number)[]; message: string }[] {
  const identities = (team as { identities?: unknown } | undefined)?.identities;
  if (!Array.isArray(identities)) return [];
  const problems: { segments: (string | number)[]; message: string }[] = [];
  const byName = new Map<string, number>();
  const byToken = new Map<string, number>();
  const label = (i: number): string => `team.identities[${i}] ('${String((identities[i] as { name?: unknown }).name)}')`;
  identities.forEach((entry: unknown, i) => {
    const { name, tokenSha256 } = (entry ?? {}) as { name?: unknown; tokenSha256?: unknown };
    if (typeof name === "string" && name.toLowerCase() === LOCAL_IDENTITY) {
      problems.push({ segments: ["team", "identities", i, "name"], message: `${label(i)} takes the name '${LOCAL_IDENTITY}', which the audit log gives the writes made without a team identity (AGENT_TOOLS_HTTP_TOKEN, stdio); give it another name, so its writes cannot be taken for those` });
    } else if (typeof name === "string") {
      const first = byName.get(name);
      if (first === undefined) byName.set(name, i);
      else problems.push({ segments: ["team", "identities", i, "name"], message: `${label(i)} has the same name as ${label(first)}; give each identity a name of its own (sessions, rate limits and the audit log tell identities apart by name)` });
    }
    if (typeof tokenSha256 === "string" && /^[0-9a-fA-F]{64}$/.test(tokenSha256)) {
      const digest = tokenSha256.toLowerCase();
      const first = byToken.get(digest);
      if (first === undefined) byToken.set(digest, i);
      else problems.push({ segments: ["team", "identities", i, "tokenSha256"], message: `${label(i)} has the same tokenSha256 as ${label(first)}, so one token would be both; give each identity a token of its own (\`agent-tools hash-token\` makes one)` });
    }
  });
  return problems;
}
