import path from "node:path";
import { findOnPath } from "../../plugins/requirements.js";
import { CliError } from "./errors.js";

/**
 * Which programs may run. A program runs only when an allowlist names it: the plugin's own
 * `allowlist` or the host's `AGENT_CLI_ALLOWLIST` (comma or space separated), either one.
 *
 * An entry is a bare name (`gh`) or a path (`/usr/local/bin/gh`). A bare entry matches the program
 * written bare, or a program path equal to where that name resolves on PATH. A path entry matches
 * the program's resolved absolute path exactly. Symlinks are not followed for matching: a
 * multi-call binary (busybox) behind several names must not let one allowed name admit the others.
 */

export const ALLOWLIST_VARIABLE = "AGENT_CLI_ALLOWLIST";

/** Split an allowlist value ("gh, git jq") into entries. */
export function parseAllowlist(value: string | undefined): string[] {
  return (value ?? "").split(/[\s,]+/).map((entry) => entry.trim()).filter(Boolean);
}

function isPath(entry: string): boolean {
  return entry.includes("/") || entry.includes(path.sep);
}

/** True when `entries` admits `program`, which resolved to the absolute path `resolved`. */
export function allowlistAdmits(entries: readonly string[], program: string, resolved: string, env: NodeJS.ProcessEnv): boolean {
  for (const entry of entries) {
    if (isPath(entry)) {
      if (path.resolve(entry) === resolved) return true;
    } else if (program === entry || findOnPath(entry, env) === resolved) {
      return true;
    }
  }
  return false;
}

export interface ResolveOptions {
  /** The host environment: PATH for lookup, AGENT_CLI_ALLOWLIST. */
  env: NodeJS.ProcessEnv;
  /** The plugin's own `allowlist`, when the program comes from a manifest. */
  manifestAllowlist?: readonly string[];
}

/**
 * The absolute path of an allowlisted program. Throws CliError NOT_CONFIGURED when the program is
 * not on PATH or no allowlist names it; the message says which variable to set.
 */
export function resolveAllowedProgram(program: string, options: ResolveOptions): string {
  if (!program || program.includes("\0")) throw new CliError("ARG_VALIDATION_FAILED", "the program name is empty or holds a NUL byte");
  const resolved = findOnPath(program, options.env);
  if (!resolved) {
    throw new CliError("NOT_CONFIGURED", `program '${program}' was not found${isPath(program) ? "" : " on PATH"}; install it or fix PATH in the agent-tools server's environment`, { variables: ["PATH"] });
  }
  const hostEntries = parseAllowlist(options.env[ALLOWLIST_VARIABLE]);
  const manifestEntries = options.manifestAllowlist ?? [];
  if (allowlistAdmits(manifestEntries, program, resolved, options.env) || allowlistAdmits(hostEntries, program, resolved, options.env)) return resolved;
  const current = hostEntries.length ? `currently: ${hostEntries.join(", ")}` : "currently unset";
  const manifestHint = options.manifestAllowlist === undefined ? "" : ", or list it in the plugin's adapter.allowlist";
  throw new CliError(
    "NOT_CONFIGURED",
    `program '${program}' (${resolved}) is not allowlisted: add '${isPath(program) ? resolved : program}' to $${ALLOWLIST_VARIABLE} (comma or space separated; ${current}) in the agent-tools server's environment${manifestHint}`,
    { variables: [ALLOWLIST_VARIABLE] },
  );
}
