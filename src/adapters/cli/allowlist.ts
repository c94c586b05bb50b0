import path from "node:path";
import { findOnPath } from "../../plugins/requirements.js";
import { ALLOWLIST_VARIABLE, allowlistAdmits, isPath, parseAllowlist } from "./allowlist-match.js";
import { CliError } from "./errors.js";

/**
 * Which programs may run. A program runs only when an allowlist names it: the plugin's own
 * `allowlist` or the host's `AGENT_CLI_ALLOWLIST` (comma or space separated), either one.
 * Which entries match a program is allowlist-match.ts.
 */

export { ALLOWLIST_VARIABLE, allowlistAdmits, parseAllowlist } from "./allowlist-match.js";

/** A manifest's program: the plugin's own `allowlist` and the folder its relative paths are resolved against. */
export interface ManifestProgram {
  /** The plugin's `allowlist` (empty when it has none). */
  allowlist: readonly string[];
  /** The plugin folder: a relative program path (`./tool.sh`) and allowlist path entries are resolved against it, as `cwd` is. */
  dir: string;
}

export interface ResolveOptions {
  /** The host environment: PATH for lookup, AGENT_CLI_ALLOWLIST. */
  env: NodeJS.ProcessEnv;
  /** Set when the program comes from a manifest (the cli adapter); the text-layer runner has none. */
  manifest?: ManifestProgram;
}

/**
 * Where `program` is looked for: a path (one with a slash) as an absolute path, resolved against
 * the plugin folder when it comes from a manifest, so a server started in another folder never
 * runs a file of the same name there; a bare name is looked up on PATH.
 */
export function programLocation(program: string, manifest?: ManifestProgram): string {
  return isPath(program) ? path.resolve(manifest?.dir ?? "", program) : program;
}

/**
 * The absolute path of an allowlisted program. Throws CliError NOT_CONFIGURED when the program is
 * not found (naming the path it was resolved to) or no allowlist names it; the message names
 * each list that would admit it.
 */
export function resolveAllowedProgram(program: string, options: ResolveOptions): string {
  if (!program || program.includes("\0")) throw new CliError("ARG_VALIDATION_FAILED", "the program name is empty or holds a NUL byte");
  const { manifest } = options;
  const location = programLocation(program, manifest);
  const resolved = findOnPath(location, options.env);
  if (!resolved) {
    const where = !isPath(program) ? " on PATH" : location === program ? "" : ` (resolved against the plugin folder: ${location})`;
    const fix = isPath(program) ? "make it an executable file there, or fix the plugin's adapter.program" : "install it or fix PATH in the agent-tools server's environment";
    const said = isPath(program) ? { hint: "The plugin's program is not where its manifest says: tell the user the plugin needs fixing (or its file made executable). Tool arguments cannot fix this." } : { variables: ["PATH"] };
    throw new CliError("NOT_CONFIGURED", `program '${program}' was not found${where} or is not executable; ${fix}`, said);
  }
  const hostEntries = parseAllowlist(options.env[ALLOWLIST_VARIABLE]);
  if (manifest && allowlistAdmits(manifest.allowlist, program, resolved, options.env, manifest.dir)) return resolved;
  if (allowlistAdmits(hostEntries, program, resolved, options.env)) return resolved;
  const current = hostEntries.length ? `currently: ${hostEntries.join(", ")}` : "currently unset";
  const entry = isPath(program) ? resolved : program;
  const host = `$${ALLOWLIST_VARIABLE} (comma or space separated; ${current}) in the agent-tools server's environment`;
  const where = manifest ? `add '${program}' to the plugin's adapter.allowlist (its plugin.json), or '${entry}' to ${host}` : `add '${entry}' to ${host}`;
  throw new CliError("NOT_CONFIGURED", `program '${program}' (${resolved}) is not allowlisted: ${where}`, { variables: [ALLOWLIST_VARIABLE] });
}
