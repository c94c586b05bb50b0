import { createRequire } from "node:module";
import { existsSync } from "node:fs";
import path from "node:path";
import { RUNTIME_ROOT, packageJson } from "../paths.js";
import { findOnPath } from "../plugins/requirements.js";
import { ALLOWLIST_VARIABLE, allowlistAdmits, parseAllowlist } from "../adapters/cli/allowlist-match.js";

/**
 * `agent-tools probe`: a preflight report that never runs the command it checks.
 * Exit status: 0 ready, 1 installable (something `npm install` can fix), 2 blocked.
 */

export type ProbeStatus = "ready" | "installable" | "blocked";

export interface ProbeCheck {
  name: string;
  ok: boolean;
  /** Always false: probe looks (PATH, files, versions) and never runs what it checks. Said per check for scripts. */
  executed: false;
  detail: string;
  /** What failing this check means for the whole report. */
  severity?: "installable" | "blocked";
  fix?: string;
}

export interface ProbeReport {
  status: ProbeStatus;
  checks: ProbeCheck[];
}

function parseVersion(v: string): number[] {
  return v.replace(/^[^\d]*/, "").split(".").map((p) => Number.parseInt(p, 10) || 0);
}

export function versionAtLeast(actual: string, minimum: string): boolean {
  const a = parseVersion(actual);
  const m = parseVersion(minimum);
  for (let i = 0; i < 3; i++) {
    const x = a[i] ?? 0;
    const y = m[i] ?? 0;
    if (x !== y) return x > y;
  }
  return true;
}

export function probe(env: NodeJS.ProcessEnv = process.env, nodeVersion: string = process.version): ProbeReport {
  const pkg = packageJson();
  const checks: Omit<ProbeCheck, "executed">[] = [];
  const minimum = (pkg.engines?.node ?? ">=20.18.1").replace(/^>=\s*/, "");
  const nodeOk = versionAtLeast(nodeVersion, minimum);
  checks.push({
    name: "node",
    ok: nodeOk,
    detail: `Node.js ${nodeVersion}, minimum ${minimum}`,
    ...(nodeOk ? {} : { severity: "blocked" as const, fix: `install Node.js ${minimum} or later` }),
  });

  const require = createRequire(path.join(RUNTIME_ROOT, "package.json"));
  const missing: string[] = [];
  for (const dependency of Object.keys(pkg.dependencies ?? {})) {
    // Look for the installed folder rather than resolving `<dep>/package.json`: packages whose
    // `exports` map does not list package.json (just-bash, minisearch) cannot be resolved that way.
    const dirs = require.resolve.paths(dependency) ?? [];
    if (!dirs.some((dir) => existsSync(path.join(dir, dependency, "package.json")))) missing.push(dependency);
  }
  checks.push({
    name: "dependencies",
    ok: missing.length === 0,
    detail: missing.length ? `not resolvable: ${missing.join(", ")}` : `${Object.keys(pkg.dependencies ?? {}).length} resolvable`,
    ...(missing.length ? { severity: "installable" as const, fix: `run 'npm ci' in ${RUNTIME_ROOT}` } : {}),
  });

  const command = env.AGENT_TOOLS_COMMAND?.trim();
  if (command) {
    const program = command.split(/\s+/)[0] ?? command;
    const found = findOnPath(program, env);
    checks.push({
      name: "command",
      ok: !!found,
      detail: found ? `${program} found at ${found} (not executed)` : `${program} not found on PATH`,
      ...(found ? {} : { severity: "blocked" as const, fix: `install ${program} or put it on PATH` }),
    });
    // The runtime's own matcher, alone: a bare entry admits the program written bare or the path
    // it resolves to, a path entry that path. A program not found resolves nowhere (""), so a
    // path-written one is not admitted by its text alone.
    const allowlist = parseAllowlist(env[ALLOWLIST_VARIABLE]);
    const allowed = allowlistAdmits(allowlist, program, found ?? "", env);
    checks.push({
      name: "allowlist",
      ok: allowed,
      detail: allowed ? `${program} is admitted by ${ALLOWLIST_VARIABLE}` : `${program} is not admitted by ${ALLOWLIST_VARIABLE} (${allowlist.join(", ") || "empty"})`,
      ...(allowed ? {} : { severity: "blocked" as const, fix: `add ${program} to ${ALLOWLIST_VARIABLE} (comma or space separated)` }),
    });
  } else {
    checks.push({ name: "command", ok: true, detail: "AGENT_TOOLS_COMMAND not set; nothing to check" });
  }

  const failed = checks.filter((c) => !c.ok);
  const status: ProbeStatus = failed.some((c) => c.severity === "blocked") ? "blocked" : failed.length ? "installable" : "ready";
  return { status, checks: checks.map((check) => ({ ...check, executed: false as const })) };
}

export function probeExitCode(status: ProbeStatus): number {
  return status === "ready" ? 0 : status === "installable" ? 1 : 2;
}
