import path from "node:path";
import { unexpandedTilde, type WrongValue } from "./tilde.js";

/**
 * Why a folder setting read from the environment (AGENT_TOOLS_CACHE_DIR, AGENT_TOOLS_WORDNET_DIR)
 * cannot be used, or undefined: a `~` no shell expanded (tilde.ts), or a relative path. A relative
 * one would be read from whatever folder the server was started in, and clients start it in the
 * project's folder (Claude Code does), so each project would get its own copy (a cache filled
 * again) and a stray folder in the user's repository. Its reader ignores it and uses its default.
 */
export function unusableFolder(variable: string, value: string): WrongValue | undefined {
  const tilde = unexpandedTilde(variable, value);
  if (tilde || path.isAbsolute(value)) return tilde;
  return { why: "is relative, so it would name another folder for each folder the server is started in (a client starts it in the project's folder)", fix: "give an absolute path" };
}
