import { interpolate } from "../adapters/shared/env-vars.js";
import { isPlainObject } from "../plain-object.js";

/**
 * The PATH a stdio MCP server's bare command is looked up on. The server is spawned with its
 * block's `env` over the host's (child-env.ts), and the spawn looks a bare command up on the
 * child's PATH: an entry whose `env` sets PATH runs what that PATH holds, not what the host's
 * does. So the not-configured check and `validate` search the same PATH, or they pass a command
 * the start cannot find (`env.PATH: "/nonexistent"`) and refuse one only that PATH holds.
 */
export interface CommandPath {
  /** The environment whose PATH is searched (the host's, or the host's with the block's PATH). */
  env: NodeJS.ProcessEnv;
  /** The block's PATH as written, when it sets one: for the message to name what was searched. */
  written?: string;
}

export function commandPath(block: unknown, hostEnv: NodeJS.ProcessEnv): CommandPath {
  const declared = isPlainObject(block) && isPlainObject(block.env) ? block.env.PATH : undefined;
  if (typeof declared !== "string") return { env: hostEnv };
  try {
    return { env: { ...hostEnv, PATH: interpolate(declared, hostEnv, "") }, written: declared };
  } catch {
    // A variable it needs is unset: that is the plugin's missing requirement, said as such.
    return { env: hostEnv };
  }
}

/** "PATH" or "the PATH its env sets ('/opt/bin:/usr/bin')", after "not found on". */
export function searchedPath(found: CommandPath): string {
  return found.written === undefined ? "PATH" : `the PATH its env.PATH sets ('${found.written}')`;
}
