import { DEFAULT_INHERITED_ENV_VARS } from "@modelcontextprotocol/client/stdio";
import { resolveChildVariable } from "../shared/child-variable.js";
import { childDepthVariable } from "../shared/runtime-depth.js";
import type { Redactor } from "../shared/redact.js";
import { SECRET_NAME } from "../shared/secret-name.js";

/**
 * The environment of a stdio MCP server: a minimal safe base taken from the host (enough for a
 * program to find its tools, home, locale and temp dir) plus the variables the plugin declares.
 * Host secrets that are not declared are never passed on; the server, which runs as the same
 * user, can still read them from the runtime's /proc/<pid>/environ (README "What a stdio server
 * can read anyway"), so this limits what is handed over, not what a hostile server can reach.
 */

export const SAFE_BASE_ENV_VARS: readonly string[] = [
  ...new Set([
    ...DEFAULT_INHERITED_ENV_VARS,
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TZ",
    "TMPDIR",
    "TMP",
    "TEMP",
    // Windows
    "SYSTEMROOT",
    "SYSTEMDRIVE",
    "WINDIR",
    "COMSPEC",
    "PATHEXT",
    "APPDATA",
    "LOCALAPPDATA",
    "USERPROFILE",
    "USERNAME",
    "HOMEDRIVE",
    "HOMEPATH",
    "PROGRAMFILES",
    "PROCESSOR_ARCHITECTURE",
  ]),
];

function lookup(env: NodeJS.ProcessEnv, key: string): string | undefined {
  const direct = env[key];
  if (direct !== undefined || process.platform !== "win32") return direct;
  const found = Object.keys(env).find((k) => k.toUpperCase() === key);
  return found === undefined ? undefined : env[found];
}

/** The safe base, read from `hostEnv`. Values that look like shell functions are skipped. */
export function safeBaseEnv(hostEnv: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of SAFE_BASE_ENV_VARS) {
    const value = lookup(hostEnv, key);
    if (value === undefined || value.startsWith("()")) continue;
    out[key] = value;
  }
  return out;
}

export { SECRET_NAME };

/**
 * Base + declared env (declared wins), with `${VAR}` resolved from the host; then this runtime's
 * depth + 1 (runtime-depth.ts). A declared value is masked by the rule the cli adapter's env uses
 * (resolveChildVariable): a setting such as `GH_HOST` or a config folder stays readable in results,
 * which quote it; a credential by name, and a literal value under a secret name, are masked.
 */
export function buildChildEnv(declared: Readonly<Record<string, string>>, hostEnv: NodeJS.ProcessEnv, redactor: Redactor, where = "adapter.env"): Record<string, string> {
  const env = safeBaseEnv(hostEnv);
  for (const [key, value] of Object.entries(declared)) {
    const resolved = resolveChildVariable(key, value, hostEnv, `${where}.${key}`, redactor);
    if (SECRET_NAME.test(key)) redactor.add(resolved);
    env[key] = resolved;
  }
  return { ...env, ...childDepthVariable(hostEnv) };
}
