import { MissingVariableError, resolveChildVariable } from "../shared/env-vars.js";
import type { Redactor } from "../shared/redact.js";
import { childDepthVariable } from "../shared/runtime-depth.js";

/**
 * The environment a program runs with: a small safe base copied from the host, plus the variables
 * the manifest declares (values may hold `${VAR}`, resolved on the host at call time; a credential
 * among them, by its name, is registered with the redactor, a host name or folder is not). Nothing else of the host environment reaches the child, so
 * unrelated secrets (cloud keys, tokens of other plugins) stay out of it.
 */

export const BASE_VARIABLES = ["PATH", "HOME", "LANG", "LC_ALL", "TERM", "TMPDIR", "USER"] as const;

export function baseEnv(host: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of BASE_VARIABLES) {
    const value = host[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/**
 * The child's environment, with this runtime's depth + 1 last (runtime-depth.ts: a program that
 * starts agent-tools again is counted too). A declared value referring to an unset variable throws
 * MissingVariableError (with `code = "NOT_CONFIGURED"`), naming it.
 */
export function childEnv(host: NodeJS.ProcessEnv, declared: Readonly<Record<string, string>>, redactor: Redactor | undefined, where = "adapter.env"): Record<string, string> {
  const out = baseEnv(host);
  for (const [name, template] of Object.entries(declared)) {
    try {
      out[name] = resolveChildVariable(name, template, host, `${where}.${name}`, redactor);
    } catch (error) {
      if (error instanceof MissingVariableError) throw Object.assign(error, { code: "NOT_CONFIGURED" });
      throw error;
    }
  }
  return { ...out, ...childDepthVariable(host) };
}
