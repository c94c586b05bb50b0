import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import type { Adapter, CallContext } from "../adapters/types.js";
import type { ApprovedCall } from "../runtime/approved-call.js";
import { RuntimeError } from "../errors.js";
import { sha256Hex } from "../sha256.js";
import { importWithDeadline } from "./import-deadline.js";
import { skillArgsProblem } from "./skill-args.js";
import { importFailureWithTip, notJavaScriptProblem, TYPESCRIPT_FILE } from "./syntax-error-tip.js";
import { checkBoundedFileSync, FileShapeError, readBoundedFileSync, readSettingsFileSync, type FileBound } from "../bounded-file.js";

/**
 * Skills: deterministic server-side recipes, one module each (`skills/<name>.js|.mjs`), exporting
 * `run(adapter, args)` and `meta = { description, args, related? }`.
 */

export interface SkillRelated {
  /** "prefix:skill" */
  target: string;
  why?: string;
}

export interface SkillMeta {
  description: string;
  /**
   * A JSON Schema for the arguments (validated), a map of argument name → description, or a
   * sentence describing the arguments (the original runtime's skills mostly use that form).
   */
  args?: Record<string, unknown> | string;
  related?: SkillRelated[];
  [key: string]: unknown;
}

export interface Skill {
  name: string;
  file: string;
  meta: SkillMeta;
  /** `context` carries the call's abort signal, the session id, a logger and the plugin's job store. */
  run(adapter: Adapter, args: Record<string, unknown>, context?: SkillContext): Promise<unknown>;
}

/** The third argument of a skill's run: the same fields as an adapter call's context. */
export interface SkillContext extends CallContext {
  /**
   * Whether calls that change data may run on the model's word: true when the skill was run with
   * confirm: true or the plugin does not require confirmation. When the client asks its user
   * instead (confirm policy "elicit"), this says nothing of the user's answer: use approveCall.
   */
  confirmed?: boolean;
  /**
   * When the runtime stops waiting for this run (epoch milliseconds, AGENT_TOOLS_CALL_TIMEOUT_MS
   * after it began); `signal` aborts then. A skill doing many steps (a bulk delete) stops starting
   * new ones in time to answer what it did and what is left, instead of being cut off unanswered.
   */
  deadline?: number;
  /**
   * Put one tool call through the gate now (the user asked, or the confirm flag read, exactly as
   * for `adapter.call`) and answer a function that runs it once, later, without asking again: how
   * a skill hands a write to a background job, whose calls run after the skill's request is over
   * and can no longer ask. A refusal is thrown here, before the job starts (runtime/approved-call.ts).
   */
  approveCall?: (name: string, args?: Record<string, unknown>) => Promise<ApprovedCall>;
}

export interface SkillLoadFailure {
  /** The skill's name as far as it is known without its code: its file's name (`skills/count.mjs` is `count`). */
  name: string;
  file: string;
  error: string;
}

/**
 * The hint of a skill whose file does not load: the plugin is at fault, not the call, so it says
 * who can fix it, not to change the arguments, retry, or pick another skill as if the name were a typo.
 */
export const UNLOADED_SKILL_HINT =
  "Nothing was run: this skill exists but its file does not load (`message` says why and names the file), a fault in the plugin, not in your call, so no arguments or retry can fix it. Tell the user the plugin's author must fix that file (`agent-tools validate` shows the problem), then restart the agent-tools server; meanwhile do the work another way if you can (the plugin's tools, found with its _discover tool).";

/** A skill's name from its file's: `skills/count.mjs` is `count`. */
function nameOfFile(file: string): string {
  return path.basename(file).replace(/\.(mjs|js|cjs)$/, "");
}

/** A skill module's file name in a skills folder: .js, .mjs or .cjs (Node imports all three), not hidden, not a test. */
export const SKILL_FILE_NAME = /^(?!.*\.(test|spec)\.)[^.][^/]*\.(mjs|js|cjs)$/;

/**
 * A TypeScript skill in a skills folder that nothing was compiled from (no `x.js`, `x.mjs` or
 * `x.cjs` beside `x.ts`): it would be skipped without a word, so it is a load failure saying to
 * compile it. A `.d.ts` file and a source beside its compiled file are let be.
 */
function uncompiledTypeScript(folder: string, names: readonly string[]): string[] {
  return names.filter((name) => {
    if (name.startsWith(".") || !TYPESCRIPT_FILE.test(name) || /\.d\.[mc]?ts$/.test(name) || /\.(test|spec)\./.test(name)) return false;
    const stem = name.replace(TYPESCRIPT_FILE, "");
    return !["js", "mjs", "cjs"].some((ext) => names.includes(`${stem}.${ext}`));
  }).map((name) => path.join(folder, name));
}

/** The skill files to load, and the failures of files that look like skills but cannot be loaded (uncompiledTypeScript). */
function skillFiles(dir: string, entries: string[] | undefined): { files: string[]; failures: SkillLoadFailure[] } {
  const roots = entries ?? (existsSync(path.join(dir, "skills")) ? ["skills"] : []);
  const files: string[] = [];
  const failures: SkillLoadFailure[] = [];
  for (const entry of roots) {
    const full = path.resolve(dir, entry);
    let isDirectory = false;
    try {
      isDirectory = statSync(full).isDirectory();
    } catch {
      throw new Error(`skills entry '${entry}' does not exist in ${dir}`);
    }
    if (isDirectory) {
      const names = readdirSync(full).sort();
      for (const name of names) if (SKILL_FILE_NAME.test(name)) files.push(path.join(full, name));
      for (const file of uncompiledTypeScript(full, names)) failures.push({ name: path.basename(file).replace(/\.[mc]?tsx?$/, ""), file, error: notJavaScriptProblem(file) });
    } else {
      files.push(full);
    }
  }
  return { files, failures };
}

function normaliseMeta(raw: unknown): SkillMeta {
  const meta = raw && typeof raw === "object" ? ({ ...(raw as Record<string, unknown>) } as Record<string, unknown>) : {};
  const related = Array.isArray(meta.related)
    ? meta.related
        .map((r) => (typeof r === "string" ? { target: r } : r))
        .filter((r): r is SkillRelated => !!r && typeof r === "object" && typeof (r as SkillRelated).target === "string")
    : [];
  // Only the three shapes of `args` are kept; anything else (a number, an array) is dropped
  // rather than shown as garbage.
  const { args, ...rest } = meta;
  const kept = typeof args === "string" ? (args.trim() ? { args: args.trim() } : {}) : args && typeof args === "object" && !Array.isArray(args) ? { args: args as Record<string, unknown> } : {};
  return {
    ...rest,
    ...kept,
    description: typeof meta.description === "string" ? meta.description : "",
    related,
  };
}

/**
 * A skills folder may hold the skills' meta ahead of time (`skills.meta.json`, written by
 * `npm run skills:meta`), so listing and searching skills does not import their code (and the
 * libraries it imports) at start. An entry counts only while the file's SHA-256 matches; a skill
 * edited since is imported to read its meta, as without the file.
 */
export const SKILLS_META_FILE = "skills.meta.json";

export interface SkillsMetaFile {
  about?: string;
  skills: Record<string, { sha256: string; meta: unknown }>;
}

/**
 * What a skill file may be. It sits in a user's plugin folder, where a FIFO would hang the load
 * (a read, and `import()` too, waits for a writer) and a device or a huge file would exhaust
 * memory. The limit is far above any real skill (a few KiB; one bundled with its libraries, a
 * few MiB).
 */
export const SKILL_FILE_BOUND: FileBound = {
  limit: 16 * 1024 * 1024,
  kind: "skill file",
  notRegularFix: (limit) => `a skill is a module file: put a regular file of at most ${limit} in its place, or remove this one`,
  tooLargeFix: (limit) => `Move the skill's bulk into modules it imports, so the file is under ${limit}, or remove it`,
};

/**
 * A skill file's SHA-256, to tell whether skills.meta.json still describes it. Hashed natively
 * (src/sha256.ts): a start hashes every bundled skill file (about 40 of them), and in JavaScript
 * that ran in V8's interpreter for 10–15 ms of the start's ~160 ms (a CPU profile of warm starts,
 * session 17), more than node:crypto's load and its ~1 MiB of idle memory cost.
 */
export function skillFileHash(file: string): string {
  return sha256Hex(readBoundedFileSync(file, SKILL_FILE_BOUND));
}

/** Why a skill file did not load, for a message that names the file already. */
function loadProblem(error: unknown, file: string): string {
  return error instanceof FileShapeError ? `the file ${error.problem}` : (importFailureWithTip(error, file) ?? (error as Error).message);
}

function readSkillsMeta(folder: string, cache: Map<string, SkillsMetaFile["skills"] | undefined>): SkillsMetaFile["skills"] | undefined {
  if (cache.has(folder)) return cache.get(folder);
  let skills: SkillsMetaFile["skills"] | undefined;
  try {
    // Bounded like plugin.json: a FIFO or a device put in its place must not hang or exhaust the process.
    const parsed = JSON.parse(readSettingsFileSync(path.join(folder, SKILLS_META_FILE))) as Partial<SkillsMetaFile>;
    if (parsed.skills && typeof parsed.skills === "object") skills = parsed.skills;
  } catch {
    // No file (the usual case for a user's plugin), an unreadable one, or not a regular file of at
    // most 4 MiB: import the skills for their own meta.
  }
  cache.set(folder, skills);
  return skills;
}

/** What a skill module exports: its run function and its raw meta. `importTimeoutMs`: see import-deadline.ts. */
export async function importSkill(file: string, importTimeoutMs?: number): Promise<{ run: Skill["run"]; meta: unknown }> {
  checkBoundedFileSync(file, SKILL_FILE_BOUND);
  const mod = await importWithDeadline(file, importTimeoutMs);
  const exported = (mod.default && typeof mod.default === "object" ? (mod.default as Record<string, unknown>) : mod) as Record<string, unknown>;
  const run = typeof mod.run === "function" ? mod.run : exported.run;
  if (typeof run !== "function") throw new Error("does not export a function `run(adapter, args)`");
  const meta: unknown = mod.meta ?? exported.meta;
  const argsProblem = skillArgsProblem((meta as { args?: unknown } | undefined)?.args);
  if (argsProblem) throw new Error(argsProblem);
  return { run: run as Skill["run"], meta };
}

/**
 * What a skill's name may be: it is typed in `_run_skill`, in the text layer (`<prefix> skill NAME`)
 * and in `related` links, so letters, digits, '_', '.' and '-', starting with a letter or digit.
 */
export const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const SKILL_NAME_RULE = "letters, digits, '_', '.' or '-', starting with a letter or digit, at most 64 characters";

function skillOf(file: string, rawMeta: unknown, run: Skill["run"]): Skill {
  const meta = normaliseMeta(rawMeta);
  const fromMeta = typeof meta.name === "string" && meta.name !== "";
  const name = fromMeta ? (meta.name as string) : nameOfFile(file);
  if (!SKILL_NAME.test(name)) {
    const fix = fromMeta ? "change meta.name" : "rename the file, or set meta.name";
    throw new Error(`the skill's name ${JSON.stringify(name)} (${fromMeta ? "meta.name" : "from the file name"}) is not a valid skill name: use ${SKILL_NAME_RULE}; ${fix}`);
  }
  return { name, file, meta, run };
}

/** A skill known from the meta file: its module is imported on its first run. */
function deferredSkill(file: string, rawMeta: unknown, importTimeoutMs: number | undefined): Skill {
  let loading: Promise<Skill["run"]> | undefined;
  const run: Skill["run"] = async (adapter, args, context) => {
    loading ??= importSkill(file, importTimeoutMs).then(
      (loaded) => loaded.run,
      (error: unknown) => {
        loading = undefined;
        throw new RuntimeError("UPSTREAM_ERROR", `skill file ${file} could not be loaded: ${loadProblem(error, file)}`, { file }, UNLOADED_SKILL_HINT);
      },
    );
    return (await loading)(adapter, args, context);
  };
  return skillOf(file, rawMeta, run);
}

export interface LoadSkillsOptions {
  /** The deadline of each skill file's import (import-deadline.ts). */
  importTimeoutMs?: number;
}

type SkillOutcome = { skill: Skill } | { failure: SkillLoadFailure };

/**
 * Load a plugin's skills. One broken skill file (one that throws, or never finishes importing,
 * or whose meta is not valid) is reported and the rest still load. The files are imported
 * together, each under its own deadline, so several that hang cost one deadline, not one each
 * (the server answers `initialize` only after this). Skills and failures keep the files' order.
 */
export async function loadSkills(dir: string, entries: string[] | undefined, options: LoadSkillsOptions = {}): Promise<{ skills: Skill[]; failures: SkillLoadFailure[] }> {
  const metaFiles = new Map<string, SkillsMetaFile["skills"] | undefined>();
  const load = async (file: string): Promise<SkillOutcome> => {
    try {
      const known = readSkillsMeta(path.dirname(file), metaFiles)?.[path.basename(file)];
      if (known && typeof known.sha256 === "string" && known.sha256 === skillFileHash(file)) return { skill: deferredSkill(file, known.meta, options.importTimeoutMs) };
      const { run, meta } = await importSkill(file, options.importTimeoutMs);
      return { skill: skillOf(file, meta, run) };
    } catch (error) {
      return { failure: { name: nameOfFile(file), file, error: loadProblem(error, file) } };
    }
  };
  const found = skillFiles(dir, entries);
  const outcomes = await Promise.all(found.files.map(load));
  const skills: Skill[] = [];
  const failures: SkillLoadFailure[] = [...found.failures];
  // One name, one skill: a second file with a name already taken would be listed but never run.
  const byName = new Map<string, Skill>();
  for (const outcome of outcomes) {
    if ("failure" in outcome) {
      failures.push(outcome.failure);
      continue;
    }
    const { skill } = outcome;
    const first = byName.get(skill.name);
    if (first) {
      failures.push({ name: nameOfFile(skill.file), file: skill.file, error: `its name '${skill.name}' is already the name of the skill in ${first.file}; give one of them another meta.name (or file name)` });
      continue;
    }
    byName.set(skill.name, skill);
    skills.push(skill);
  }
  return { skills, failures };
}
