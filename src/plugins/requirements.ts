import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";

/**
 * Find an executable on PATH without running it. Returns its absolute path or undefined. On
 * Windows a bare name is tried with each PATHEXT extension (`gh` is `gh.exe`), as the shell does.
 * Hand-written rather than the `which` package on purpose: `agent-tools probe` uses it to report a
 * broken install, so it must work with no dependency installed.
 */
export function findOnPath(program: string, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string | undefined {
  if (!program) return undefined;
  const windows = platform === "win32";
  const extensions = windows && !path.extname(program) ? ["", ...(env.PATHEXT || env.Pathext || ".COM;.EXE;.BAT;.CMD").split(";").filter(Boolean)] : [""];
  const bases = program.includes("/") || program.includes(path.sep)
    ? [path.resolve(program)]
    : (env.PATH ?? env.Path ?? "").split(windows ? ";" : path.delimiter).filter(Boolean).map((dir) => path.join(dir, program));
  const candidates = bases.flatMap((base) => extensions.map((ext) => base + ext));
  for (const candidate of candidates) {
    try {
      if (!statSync(candidate).isFile()) continue;
      // Windows has no execute bit: the extension is what makes a file runnable there.
      if (!windows) accessSync(candidate, constants.X_OK);
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
  /** Where the bins were looked for when that is not the host's PATH ("the PATH its env.PATH sets ('…')"). */
  searched?: string;
}

/**
 * A `requires.bins` entry is a program name (`kite-lite`) or `${VAR:-name}`: the program the host
 * variable VAR names when it is set (a path or a name on PATH), else `name` on PATH. The second
 * form lets a manifest say "set KITE_LITE_BIN, or put kite-lite on PATH" and use the same
 * reference in its adapter's command.
 */
const BIN_REFERENCE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}$/;

export function resolveBin(entry: string, env: NodeJS.ProcessEnv): { variable?: string; fallback?: string; program: string } {
  const match = BIN_REFERENCE.exec(entry);
  if (!match) return { program: entry };
  const variable = match[1] as string;
  const fallback = match[2] || undefined;
  const program = env[variable] || fallback || "";
  return { variable, ...(fallback ? { fallback } : {}), program };
}

/**
 * The names of one `requires.env` entry: "A|B" means either variable will do (a plugin reachable
 * through either of two settings, e.g. an explicit MCP URL or the instance URL it derives from).
 */
export function envAlternatives(entry: string): string[] {
  return entry.split("|").map((name) => name.trim()).filter(Boolean);
}

/**
 * Which of a plugin's declared variables and binaries the host lacks. `search`: the PATH the
 * binaries are looked up on when it is not the host's (command-path.ts: a stdio server whose env
 * sets PATH), with its words for the message.
 */
export function missingRequirements(requires: { env: string[]; bins: string[] }, env: NodeJS.ProcessEnv, search?: { env: NodeJS.ProcessEnv; words: string }): MissingRequirements {
  const bins = requires.bins.filter((bin) => !findOnPath(resolveBin(bin, env).program, search?.env ?? env));
  return {
    env: requires.env.filter((entry) => !envAlternatives(entry).some((name) => env[name])),
    bins,
    ...(bins.length && search ? { searched: search.words } : {}),
  };
}

function describeBin(entry: string): string {
  const { variable, fallback } = resolveBin(entry, {});
  if (!variable) return `install ${entry} (not found on PATH)`;
  return fallback ? `set ${variable} to the ${fallback} program or install ${fallback} on PATH` : `set ${variable} to an executable program`;
}

export function describeMissing(missing: MissingRequirements): string {
  const parts: string[] = [];
  if (missing.env.length) parts.push(`set ${missing.env.map((entry) => envAlternatives(entry).join(" or ")).join(", ")}`);
  const plain = missing.bins.filter((bin) => !BIN_REFERENCE.test(bin));
  if (plain.length) parts.push(`install ${plain.join(", ")} (not found on ${missing.searched ?? "PATH"})`);
  for (const bin of missing.bins.filter((b) => BIN_REFERENCE.test(b))) parts.push(describeBin(bin));
  return parts.join("; ");
}
