import { resolveChildVariable } from "../shared/child-variable.js";
import { MissingVariableError } from "../shared/env-vars.js";
import type { Redactor } from "../shared/redact.js";
import { childDepthVariable } from "../shared/runtime-depth.js";

/**
 * The environment a program runs with: a small safe base copied from the host, plus the variables
 * the manifest declares (values may hold `${VAR}`, resolved on the host at call time, and masked in
 * results unless the variable's name says it is a setting such as a host or folder, whose embedded
 * credentials alone are masked: resolveChildVariable). Nothing else of the host environment reaches the child, so
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
