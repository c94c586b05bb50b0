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

/** Why the program at `file` (an absolute path) cannot be run, or undefined when it can. */
export function notRunnable(file: string): string | undefined {
  try {
    const stat = statSync(file);
    if (stat.isDirectory()) return "is a folder, not a program";
    if (!stat.isFile()) return "is not a regular file";
    // Windows has no execute bit: the extension is what makes a file runnable there.
    if (process.platform !== "win32") accessSync(file, constants.X_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return "does not exist";
    if (code === "EACCES") return "is not executable (make it so with chmod +x, or name its interpreter as the command and the file in args)";
    return `cannot be read (${code ?? (error as Error).message})`;
  }
}

export interface MissingRequirements {
  env: string[];
  bins: string[];
  /** Where the bins were looked for when that is not the host's PATH ("the PATH its env.PATH sets ('…')"). */
  searched?: string;
  /** For a `${VAR:-name}` bin whose VAR is set: why what VAR names cannot run ("is a folder, not a program"). */
  unusable?: Record<string, string>;
  /** The manifest's way to configure it other than the environment (requires.otherwise). */
  otherwise?: string;
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
export function missingRequirements(requires: { env: string[]; bins: string[]; otherwise?: string }, env: NodeJS.ProcessEnv, search?: { env: NodeJS.ProcessEnv; words: string }): MissingRequirements {
  const bins = requires.bins.filter((bin) => !findOnPath(resolveBin(bin, env).program, search?.env ?? env));
  // A variable that is set names the program: say what is wrong with it, not "set it".
  const unusable: Record<string, string> = {};
  for (const bin of bins) {
    const { variable, program } = resolveBin(bin, env);
    if (variable && env[variable]) unusable[bin] = /[\\/]/.test(program) ? (notRunnable(path.resolve(program)) ?? "cannot be run") : "is not found on PATH";
  }
  const missingEnv = requires.env.filter((entry) => !envAlternatives(entry).some((name) => env[name]));
  return {
    env: missingEnv,
    bins,
    ...(bins.length && search ? { searched: search.words } : {}),
    ...(Object.keys(unusable).length ? { unusable } : {}),
    ...(requires.otherwise && (missingEnv.length || bins.length) ? { otherwise: requires.otherwise } : {}),
  };
}

/**
 * A NOT_CONFIGURED error's `details`: `missing`, what to set or install, by name: a variable, a
 * program, and for a `${VAR:-name}` program the variable VAR (the template itself names nothing to
 * set); `bins`, when programs are missing, the programs (`gh` for `${GH_CLI_BIN:-gh}`).
 */
export function missingDetails(missing: MissingRequirements): { missing: string[]; bins?: string[] } {
  const bins = missing.bins.map((entry) => resolveBin(entry, {}));
  return {
    missing: [...missing.env, ...bins.map((bin) => bin.variable ?? bin.program)],
    ...(bins.length ? { bins: bins.map((bin) => bin.fallback ?? bin.variable ?? bin.program) } : {}),
  };
}

function describeBin(entry: string, unusable?: string): string {
  const { variable, fallback } = resolveBin(entry, {});
  if (!variable) return `install ${entry} (not found on PATH)`;
  // Its value is not quoted: the message goes to the model, and the user knows what they set.
  if (unusable) return `${variable} is set, but the program it names ${unusable}; set ${variable} to ${fallback ? `the ${fallback} program` : "an executable program"}${fallback ? ` or unset it to use ${fallback} from PATH` : ""}`;
  return fallback ? `set ${variable} to the ${fallback} program or install ${fallback} on PATH` : `set ${variable} to an executable program`;
}

export function describeMissing(missing: MissingRequirements): string {
  return `${missingParts(missing).join("; ")}${missing.otherwise ? `, or ${missing.otherwise}` : ""}`;
}

function missingParts(missing: MissingRequirements): string[] {
  const parts: string[] = [];
  if (missing.env.length) parts.push(`set ${missing.env.map((entry) => envAlternatives(entry).join(" or ")).join(", ")}`);
  const plain = missing.bins.filter((bin) => !BIN_REFERENCE.test(bin));
  if (plain.length) parts.push(`install ${plain.join(", ")} (not found on ${missing.searched ?? "PATH"})`);
  for (const bin of missing.bins.filter((b) => BIN_REFERENCE.test(b))) parts.push(describeBin(bin, missing.unusable?.[bin]));
  return parts;
}

/**
 * What to do, as help's `next.configure` says it: the settings, where they go (the server's
 * environment, never tool arguments), then the other way (`otherwise`), then the restart; the
 * environment clause belongs to the settings, not to the other way, nor to a program to install
 * (a program is not put in an environment). `command`: the setting that names a missing program,
 * when a file the user wrote does (a config entry's `command`): a misspelt one is corrected there.
 */
export function configureAdvice(missing: MissingRequirements, command?: string): string {
  const plain = missing.bins.filter((bin) => !BIN_REFERENCE.test(bin));
  const settings = missingParts({ ...missing, bins: missing.bins.filter((bin) => BIN_REFERENCE.test(bin)) }).join("; ");
  const parts: string[] = [];
  if (settings) parts.push(`${settings} in the environment of the agent-tools server (not in tool arguments)`);
  if (plain.length) parts.push(`install ${plain.join(", ")} (not found on ${missing.searched ?? "PATH"})${command ? `, or correct ${command} if it is misspelt` : ""}`);
  const said = parts.join("; ");
  // "it" is the server only where the environment clause has named it.
  return `${said.charAt(0).toUpperCase()}${said.slice(1)}${missing.otherwise ? `, or ${missing.otherwise}` : ""}, then restart ${settings ? "it" : "the agent-tools server"}`;
}

/**
 * NOT_CONFIGURED's hint when a program is missing (undefined otherwise: the code's own hint, which
 * says to set the variables `details.missing` lists, fits): "set it in the environment" means
 * nothing for a program. The user installs it, or corrects the setting that names it (`command`,
 * as configureAdvice); the model can do neither, and is told to tell the user.
 */
export function missingProgramHint(missing: MissingRequirements, command?: string): string | undefined {
  if (!missing.bins.length) return undefined;
  const variables = missing.bins.map((bin) => resolveBin(bin, {}).variable).filter((name): name is string => name !== undefined);
  const ways = [
    "install it",
    ...(variables.length ? [`set ${variables.join(", ")} in its environment to where it is`] : []),
    ...(command ? [`correct ${command} if it is misspelt`] : []),
  ];
  const also = missing.env.length ? `; they also set ${missing.env.map((entry) => envAlternatives(entry).join(" or ")).join(", ")} in its environment` : "";
  const them = missing.bins.length > 1 ? "programs are" : "program is";
  return `Tell the user (do not install it yourself): the ${them} not installed where the agent-tools server looks; they ${ways.join(", or ")}, then restart the server${also}. Tool arguments cannot fix this.`;
}
