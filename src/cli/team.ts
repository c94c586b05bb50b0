import { randomBytes } from "node:crypto";
import type { AgentToolsConfig } from "../config/config.js";
import { hashToken } from "../gateway/identities.js";
import { createLogger } from "../log.js";
import { createSharedState } from "../state/index.js";

/**
 * `agent-tools audit` and `agent-tools hash-token`: the team gateway's two operator commands.
 */

/**
 * Print the audit log, one JSON entry per line, oldest first: the Redis stream when the gateway's
 * state is in Redis (AGENT_TOOLS_REDIS_URL or team.redis), else the JSONL file. `follow` keeps
 * printing new entries until interrupted.
 */
export async function auditCommand(config: AgentToolsConfig, options: { limit: number; follow: boolean }): Promise<number> {
  const state = await createSharedState({ env: process.env, log: createLogger("agent-tools", "warn"), ...(config.team ? { settings: config.team } : {}) });
  try {
    const audit = state.audit;
    if (!audit) {
      process.stderr.write("agent-tools audit: the audit log is off (AGENT_TOOLS_AUDIT=off or team.audit \"off\")\n");
      return 1;
    }
    process.stderr.write(`agent-tools audit: ${audit.where}\n`);
    for (const entry of await audit.tail(options.limit)) process.stdout.write(`${JSON.stringify(entry)}\n`);
    if (!options.follow) return 0;
    const stop = new AbortController();
    process.once("SIGINT", () => stop.abort());
    process.once("SIGTERM", () => stop.abort());
    await audit.follow((entry) => process.stdout.write(`${JSON.stringify(entry)}\n`), stop.signal);
    return 0;
  } finally {
    await state.close();
  }
}

/**
 * The SHA-256 a team identity's `tokenSha256` holds. With a token argument, its hash; without, a
 * new random token and its hash (give the token to the agent, the hash to the config).
 */
export function hashTokenCommand(token: string | undefined): number {
  if (token !== undefined && token.length < 16) {
    process.stderr.write("agent-tools hash-token: a token shorter than 16 characters is too easy to guess; run without an argument to make one\n");
    return 2;
  }
  const value = token ?? randomBytes(32).toString("base64url");
  process.stdout.write(`${JSON.stringify({ ...(token === undefined ? { token: value } : {}), tokenSha256: hashToken(value) }, null, 2)}\n`);
  return 0;
}
