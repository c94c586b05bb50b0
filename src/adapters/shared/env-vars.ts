import type { Redactor } from "./redact.js";

/**
 * `${VAR}` references in adapter settings (headers, URLs, auth values, env blocks). They are
 * resolved on the host at use time, from the host environment, and the resolved values are never
 * shown: callers register them with a Redactor so they cannot leak into results or logs.
 */

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export class MissingVariableError extends Error {
  readonly variables: string[];
  constructor(variables: string[], where: string) {
    super(`${where} needs ${variables.map((v) => `$${v}`).join(", ")}, which ${variables.length > 1 ? "are" : "is"} not set on the host; set ${variables.length > 1 ? "them" : "it"} in the agent-tools server's environment`);
    this.name = "MissingVariableError";
    this.variables = variables;
  }
}

/**
 * Where `value` opens a `${` that no `}` closes ("Bearer ${TOKEN"), or -1. Such text is not a
 * reference: it would reach the server as it is written, so the config check refuses it.
 */
export function unclosedReferenceAt(value: string): number {
  const match = /\$\{(?![^}]*\})/.exec(value);
  return match ? match.index : -1;
}

/** The variable names a value refers to. */
export function referencedVariables(value: string): string[] {
  return [...value.matchAll(REFERENCE)].map((m) => m[1] ?? "").filter(Boolean);
}

/**
 * Replace every `${VAR}` (or `${VAR:-default}`) in `value`. A missing variable without a default
 * throws MissingVariableError naming it and `where` it was needed.
 */
export function interpolate(value: string, env: NodeJS.ProcessEnv, where: string): string {
  const missing: string[] = [];
  const out = value.replace(REFERENCE, (_, name: string, fallback: string | undefined) => {
    const resolved = env[name];
    if (resolved !== undefined && resolved !== "") return resolved;
    if (fallback !== undefined) return fallback;
    missing.push(name);
    return "";
  });
  if (missing.length) throw new MissingVariableError([...new Set(missing)], where);
  return out;
}

/**
 * Resolve a value that may reference host variables, and register the referenced variables'
 * values with the redactor: they are usually credentials. Only those values, not the whole
 * string ("Accept: application/json" must not become a redaction target).
 */
export function resolveSecretAware(value: string, hostEnv: NodeJS.ProcessEnv, where: string, redactor: Redactor | undefined): string {
  const resolved = interpolate(value, hostEnv, where);
  // The host values the template used are the secrets (not a `:-default`, not the literal text).
  for (const name of referencedVariables(value)) redactor?.add(hostEnv[name]);
  return resolved;
}
