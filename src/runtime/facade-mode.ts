import type { Logger } from "../adapters/types.js";
import type { AgentToolsConfig } from "../config/config.js";

/**
 * Which facade the server shows. "per-plugin" (the default): a _discover/_call/_run_skill trio per
 * plugin. "compact": five fixed tools whatever the fleet size, the plugin named in the arguments.
 * AGENT_TOOLS_FACADE overrides the config file's facade.mode.
 */

export const FACADE_MODES = ["per-plugin", "compact"] as const;
export type FacadeMode = (typeof FACADE_MODES)[number];

function isFacadeMode(value: unknown): value is FacadeMode {
  return typeof value === "string" && (FACADE_MODES as readonly string[]).includes(value);
}

export function resolveFacadeMode(env: NodeJS.ProcessEnv, config: AgentToolsConfig | undefined, log: Logger): FacadeMode {
  const fromEnv = env.AGENT_TOOLS_FACADE?.trim();
  if (fromEnv) {
    if (isFacadeMode(fromEnv)) return fromEnv;
    log.warn(`AGENT_TOOLS_FACADE='${fromEnv}' is not a facade mode; use "per-plugin" or "compact". Using ${config?.facade.mode ?? "per-plugin"}.`);
  }
  return config?.facade.mode ?? "per-plugin";
}
