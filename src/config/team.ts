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
}

export interface TeamConfig {
  /** redis:// or rediss:// URL; `AGENT_TOOLS_REDIS_URL` wins. */
  redis?: string;
  redisPrefix?: string;
  /** "off" disables the audit log; a path names the JSONL file (memory backend). */
  audit?: string;
  heartbeatTtlMs?: number;
  identities?: TeamIdentityConfig[];
  jwt?: TeamJwtConfig;
  /** This gateway's public URL (the protected resource in /.well-known/oauth-protected-resource). */
  resource?: string;
  /** /metrics on the HTTP port (default true), or on its own port. */
  metrics?: boolean | { port: number; host?: string };
}

const strings = { type: "array", items: { type: "string", minLength: 1 } } as const;

export const teamSchema = {
  type: "object",
  properties: {
    redis: { type: "string", pattern: "^rediss?://" },
    redisPrefix: { type: "string", minLength: 1 },
    audit: { type: "string", minLength: 1 },
    heartbeatTtlMs: { type: "integer", minimum: 300 },
    identities: {
      type: "array",
      items: {
        type: "object",
        required: ["name", "tokenSha256"],
        properties: {
          name: { type: "string", pattern: "^[A-Za-z0-9._@-]{1,64}$" },
          tokenSha256: { type: "string", pattern: "^[0-9a-fA-F]{64}$" },
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
