import { SkillError } from "agent-tools-runtime/plugin";

/**
 * Argument checks for the skills. Every problem is an ARG_VALIDATION_FAILED error that names the
 * argument and lists the valid ones, so a misspelt or mis-nested argument never falls back to a
 * default silently.
 */

/** The kit's skill error with the code every argument problem has. */
export class SkillArgError extends SkillError {
  constructor(message, options) {
    super("ARG_VALIDATION_FAILED", message, options);
    this.name = "SkillArgError";
  }
}

/** Refuse any argument not in `allowed` (for `where`, e.g. "mode 'executions'"). */
export function onlyKnown(args, allowed, where) {
  const unknown = Object.keys(args).filter((key) => !allowed.includes(key));
  if (!unknown.length) return;
  const nested = unknown.filter((key) => args[key] && typeof args[key] === "object" && !Array.isArray(args[key]));
  const hint = nested.length ? ` ('${nested[0]}' looks like nested arguments: pass its fields at the top level of 'arguments')` : "";
  throw new SkillArgError(`unknown argument${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => `'${k}'`).join(", ")} for ${where}${hint}; valid: ${allowed.join(", ") || "none"}`);
}

export function optionalString(args, name) {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || value.trim() === "") throw new SkillArgError(`'${name}' must be a non-empty string`);
  return value.trim();
}

export function requiredString(args, name, what = "") {
  const value = optionalString(args, name);
  if (value === undefined) throw new SkillArgError(`'${name}' is required${what ? `: ${what}` : ""}`);
  return value;
}

/**
 * An id: n8n ids are strings; a whole number is accepted and turned into one. "." and ".." are
 * refused here, naming the argument: in a path they would address another resource.
 */
export function optionalId(args, name) {
  const value = args[name];
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
  const id = optionalString(args, name);
  if (id === "." || id === "..") throw new SkillArgError(`'${name}' is '${id}', which is not an id; give the id of the item`);
  return id;
}

export function requiredId(args, name) {
  const id = optionalId(args, name);
  if (id === undefined) throw new SkillArgError(`'${name}' is required: the id of the item`);
  return id;
}

export function optionalBoolean(args, name) {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  if (value === "true") return true;
  if (value === "false") return false;
  if (typeof value !== "boolean") throw new SkillArgError(`'${name}' must be true or false`);
  return value;
}

export function optionalInt(args, name, { min = 1, max = Number.MAX_SAFE_INTEGER } = {}) {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) {
    throw new SkillArgError(`'${name}' must be a whole number from ${min} to ${max}`);
  }
  return n;
}

export function optionalObject(args, name) {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) throw new SkillArgError(`'${name}' must be an object`);
  return value;
}

export function optionalStringList(args, name) {
  let value = args[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") value = [value];
  if (!Array.isArray(value) || value.length === 0) throw new SkillArgError(`'${name}' must be a non-empty list of strings`);
  return value.map((item, i) => {
    if (typeof item === "number" && Number.isFinite(item)) return String(item);
    if (typeof item !== "string" || item.trim() === "") throw new SkillArgError(`'${name}[${i}]' must be a non-empty string`);
    return item.trim();
  });
}

/** The longest name pattern accepted: far above any real workflow or table name. */
export const MAX_PATTERN_LENGTH = 200;

/**
 * A name pattern: `*` and `?` wildcards match like a shell glob over the whole name; text without
 * wildcards matches anywhere in the name. Case-insensitive either way. The glob is matched by
 * globMatch below, never turned into a regular expression: a pattern like `*a*a*a…*b` against a
 * long name would make a backtracking regex run for minutes and freeze the whole server.
 */
export function namePatternMatcher(pattern, name = "namePattern") {
  if (pattern === undefined) return () => true;
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new SkillArgError(`'${name}' is ${pattern.length} characters; at most ${MAX_PATTERN_LENGTH} are accepted: use a shorter text or glob (e.g. 'report*' or '*2024*')`);
  }
  const lower = pattern.toLowerCase();
  if (!/[*?]/.test(lower)) return (value) => String(value ?? "").toLowerCase().includes(lower);
  return (value) => globMatch(lower, String(value ?? "").toLowerCase());
}

/**
 * Whether `text` matches the glob `pattern` as a whole (`*` any run of characters, `?` exactly
 * one, everything else itself). The classic two-pointer match: on a mismatch it goes back only to
 * the last `*` seen and lets it swallow one more character, so it takes at most
 * pattern length × text length steps whatever the pattern.
 */
export function globMatch(pattern, text) {
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    if (p < pattern.length && (pattern[p] === "?" || (pattern[p] !== "*" && pattern[p] === text[t]))) {
      p++;
      t++;
    } else if (p < pattern.length && pattern[p] === "*") {
      star = p++;
      resume = t;
    } else if (star !== -1) {
      p = star + 1;
      t = ++resume;
    } else return false;
  }
  while (p < pattern.length && pattern[p] === "*") p++;
  return p === pattern.length;
}
