import v8 from "node:v8";

/**
 * How a downstream schema's `pattern` (and `patternProperties`) regexes are compiled: Ajv's
 * `code.regExp` engine (see json-schema.ts). The runtime checks arguments on its one thread, so a
 * pattern that backtracks without end (`^(a+)+$`, `^(\w|\d)+$` against 30 characters and a "!")
 * would hold every session for seconds. Each pattern on its own:
 *  - without anything whose meaning needs JavaScript's `u` flag (`\p{…}`, `\P{…}`, `\u{…}`, a
 *    surrogate, escaped or literal) and without backreferences or lookarounds, which is nearly
 *    every pattern a tool schema has: compiled WITHOUT `u`, so V8's linear-time engine takes over
 *    when it backtracks too much (below). Such a pattern is not screened: any of them answers in
 *    linear time. It keeps `u`'s meaning for characters beyond the BMP: it can only see one through
 *    `.`, a negated class, `\S`, `\W` or `\D`, which take one placeholder character the same way, so
 *    an input holding one is tested with each surrogate pair made that placeholder (`^.$` takes one
 *    emoji, as under `u`). A needless escape `u` refuses (`^\d{4}\-\d{2}$`) is taken the same way.
 *  - any other pattern: with `u` (without it only when `u` refuses that pattern), and screened,
 *    since the linear-time engine runs neither `u` patterns nor backreferences nor lookarounds. One
 *    that can take exponential time, a quantified group inside a quantified group, is not run:
 *    it is skipped alone (it passes every value; the tool's other checks stay), and said
 *    (json-schema.ts collects it for the caller to report). Overlapping alternatives (`(a|a)*`)
 *    are not screened in this rare class.
 */

/**
 * V8's linear-time (breadth-first) regexp engine, used for a regexp without the `u` flag once it
 * has backtracked more than 50,000 times (`--regexp-backtracks-before-fallback`): `^(\w|\d)+$`,
 * `^(a|a)*$`, `^(a+)+$` against 30 characters and a "!" answer in about a millisecond instead of
 * 15 s. V8 reads the flag when a regexp runs, so setting it here, when the first schema's patterns
 * are about to be compiled, covers every one of them (test/validation.schema-shapes.stdio.test.ts
 * checks it on a real server). It changes nothing for a regexp that never backtracks that much.
 */
const LINEAR_FALLBACK_FLAG = "--enable-experimental-regexp-engine-on-excessive-backtracks";
v8.setFlagsFromString(LINEAR_FALLBACK_FLAG);

/** What Ajv's `code.regExp` engine returns (its RegExpLike); `toString` is its key for the compiled pattern. */
interface RegExpLike {
  test(value: string): boolean;
  toString(): string;
}

/** A pattern the runtime does not run, and why: json-schema.ts collects them per schema compiled. */
export interface UnrunPattern {
  pattern: string;
  reason: string;
}

let unrunSink: UnrunPattern[] | undefined;

/** Runs `compile`, and returns with its result the patterns schemaRegExp refused to run during it. */
export function collectUnrunPatterns<T>(compile: () => T): { result: T; unrun: UnrunPattern[] } {
  const outer = unrunSink;
  const unrun: UnrunPattern[] = [];
  unrunSink = unrun;
  try {
    return { result: compile(), unrun };
  } finally {
    unrunSink = outer;
  }
}

/** The character a surrogate pair in a tested value becomes (the first of the BMP's private-use area). */
const ASTRAL_PLACEHOLDER = "\uE000";
const HAS_SURROGATE = /[\uD800-\uDFFF]/;
const SURROGATE_PAIRS = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;

/** Shown for a pattern in logs and problems: cut, as a server's pattern can be long. */
export function quotedPattern(pattern: string): string {
  return JSON.stringify(pattern.length > 200 ? `${pattern.slice(0, 200)}…` : pattern);
}

export function schemaRegExp(pattern: string, flags: string): RegExpLike {
  if (!needsBacktrackingEngine(pattern)) return linearTime(pattern, flags.replace("u", ""));
  const nested = nestedQuantifier(pattern);
  if (nested) {
    const reason = `it can take exponential time (${nested}), so the runtime does not run it`;
    unrunSink?.push({ pattern, reason });
    // Ajv keys compiled patterns by toString(): one per pattern, never shared with a run one.
    return { test: () => true, toString: () => `unrun:${pattern}` }
  }
  try {
    return new RegExp(pattern, flags);
  } catch (error) {
    if (!flags.includes("u") || !(error instanceof SyntaxError)) throw error;
    return new RegExp(pattern, flags.replace("u", ""));
  }
}
// Ajv writes this name into standalone code only; the runtime's validators are not standalone.
schemaRegExp.code = "schemaRegExp";

/** A pattern without `u`, tested with each surrogate pair of the value as one placeholder (module comment). */
function linearTime(pattern: string, flags: string): RegExpLike {
  const regExp = new RegExp(pattern, flags);
  return {
    test: (value: string) => regExp.test(HAS_SURROGATE.test(value) ? value.replace(SURROGATE_PAIRS, ASTRAL_PLACEHOLDER) : value),
    // Ajv keys compiled patterns by toString(): this one must not share a key with the `u` form.
    toString: () => `linear:${regExp.toString()}`,
  }
}

/**
 * Whether the pattern needs V8's backtracking engine with `u`, or at all: syntax whose meaning
 * depends on `u` (`\p{…}`, `\P{…}`, `\u{…}`, a surrogate written out or escaped), a
 * backreference (`\1`, `\k<name>`), a lookahead or lookbehind.
 */
function needsBacktrackingEngine(pattern: string): boolean {
  if (HAS_SURROGATE.test(pattern)) return true;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === "\\") {
      const next = pattern[i + 1] ?? "";
      const after = pattern[i + 2];
      if ((next === "p" || next === "P" || next === "u") && after === "{") return true;
      if (next === "u" && /^[dD][89a-fA-F]/.test(pattern.slice(i + 2, i + 4))) return true;
      if (!inClass && ((next >= "1" && next <= "9") || (next === "k" && after === "<"))) return true;
      i++;
      continue;
    }
    if (inClass) {
      if (char === "]") inClass = false;
      continue;
    }
    if (char === "[") inClass = true;
    else if (char === "(" && /^\(\?(?:[=!]|<[=!])/.test(pattern.slice(i, i + 4))) return true;
  }
  return false;
}

interface Group {
  /** Whether something inside repeats without bound (`+`, `*`, `{n,}`). */
  repeats: boolean;
  /** Where the group opened, to quote it. */
  start: number;
}

/**
 * A group that repeats (`+`, `*`, `{n,}`, `{n,m}` with m ≥ 2) and holds something that repeats
 * without bound (`(a+)+`, `(\w*)*`, `(?:x{2,}){1,9}`), described; undefined for a pattern without one. Only patterns the linear-time engine cannot
 * take come here (module comment); overlapping alternatives (`(a|a)*`) among them are not screened.
 */
function nestedQuantifier(pattern: string): string | undefined {
  const stack: Group[] = [{ repeats: false, start: 0 }];
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === "\\") {
      i++;
      continue;
    }
    if (char === "[") {
      // A class is one character: skip to its closing bracket, past escapes.
      for (i++; i < pattern.length && pattern[i] !== "]"; i++) if (pattern[i] === "\\") i++;
      continue;
    }
    if (char === "(") {
      stack.push({ repeats: false, start: i });
      continue;
    }
    const unbounded = repeatsAt(pattern, i, Infinity);
    if (char === ")" && stack.length > 1) {
      const group = stack.pop() as Group;
      const after = repeatsAt(pattern, i + 1, 2);
      if (after && group.repeats) return `the group ${pattern.slice(group.start, i + 1)} repeats and holds a repeat`;
      const parent = stack[stack.length - 1] as Group;
      parent.repeats ||= group.repeats || after;
      continue;
    }
    if (unbounded) (stack[stack.length - 1] as Group).repeats = true;
  }
  return undefined;
}

/**
 * Whether a quantifier at `i` lets what it follows repeat at least `many` times: `+`, `*`, `{n,}`
 * always; `{n,m}` when m reaches `many`. A fixed count (`{3}`) is bounded work.
 */
function repeatsAt(pattern: string, i: number, many: number): boolean {
  const char = pattern[i];
  if (char === "+" || char === "*") return true;
  if (char !== "{") return false;
  const range = /^\{\d+,(\d*)\}/.exec(pattern.slice(i, i + 24));
  return !!range && (range[1] === "" || Number(range[1]) >= many);
}
