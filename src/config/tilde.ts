import os from "node:os";
import path from "node:path";

/** Why a path setting's value cannot be used, and what to set instead. */
export interface WrongValue {
  why: string;
  fix: string;
}

/**
 * A path that starts with `~`: only a shell expands it (a client's JSON config or a quoted value
 * does not), so the runtime would read or create a folder named `~` under the working folder.
 * One check for every path setting (AGENT_TOOLS_FS_ROOT, AGENT_TOOLS_MEMORY_FILE,
 * AGENT_TOOLS_CACHE_DIR, the audit file, AGENT_TOOLS_CONFIG), so they all say it alike.
 */
export function unexpandedTilde(variable: string, value: string): WrongValue | undefined {
  if (!value.startsWith("~")) return undefined;
  const meant = value === "~" || value.startsWith("~/") ? path.join(os.homedir(), value.slice(1)) : undefined;
  return { why: "starts with ~, which only a shell expands (a client's config does not)", fix: `use an absolute path${meant ? ` (${variable}=${meant})` : ""}, or $HOME/… where a shell reads the value` };
}
