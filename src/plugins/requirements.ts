import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";

/** Find an executable on PATH without running it. Returns its absolute path or undefined. */
export function findOnPath(program: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!program) return undefined;
  const candidates = program.includes("/") || program.includes(path.sep)
    ? [path.resolve(program)]
    : (env.PATH ?? "").split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, program));
  for (const candidate of candidates) {
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
}

export interface MissingRequirements {
  env: string[];
  bins: string[];
}

/**
 * The names of one `requires.env` entry: "A|B" means either variable will do (a plugin reachable
 * through either of two settings, e.g. an explicit MCP URL or the instance URL it derives from).
 */
export function envAlternatives(entry: string): string[] {
  return entry.split("|").map((name) => name.trim()).filter(Boolean);
}

/** Which of a plugin's declared variables and binaries the host lacks. */
export function missingRequirements(requires: { env: string[]; bins: string[] }, env: NodeJS.ProcessEnv): MissingRequirements {
  return {
    env: requires.env.filter((entry) => !envAlternatives(entry).some((name) => env[name])),
    bins: requires.bins.filter((bin) => !findOnPath(bin, env)),
  };
}

export function describeMissing(missing: MissingRequirements): string {
  const parts: string[] = [];
  if (missing.env.length) parts.push(`set ${missing.env.map((entry) => envAlternatives(entry).join(" or ")).join(", ")}`);
  if (missing.bins.length) parts.push(`install ${missing.bins.join(", ")} (not found on PATH)`);
  return parts.join("; ");
}
