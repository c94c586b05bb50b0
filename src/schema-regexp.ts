import v8 from "node:v8";

/**
 * How a downstream schema's `pattern` (and `patternProperties`) regexes are compiled: Ajv's
 * `code.regExp` engine (see json-schema.ts). The runtime checks arguments on its one thread, so a
 * pattern that backtracks without end (`^(a+)+$`, `^(\w|\d)+$`, `^(\w|\d){1,100}$` against 30
 * characters and a "!") would hold every session for seconds, or a minute. Each pattern on its own:
 *  - without anything whose meaning needs JavaScript's `u` flag (`\p{…}`, `\P{…}`, `\u{…}`, a
 *    surrogate, a code point from U+E000 up, escaped or literal), which is nearly every pattern a
 *    tool schema has, and taken by V8's linear-time engine (its `l` flag compiles it): compiled
 *    with `l`, so it always runs in linear time, and is not screened. It keeps `u`'s meaning for
 *    characters beyond the BMP: it can only see one through `.`, a negated class, `\S`, `\W` or
 *    `\D`, which take one placeholder character (U+E000) the same way, so an input holding one is
 *    tested with each surrogate pair made that placeholder (`^.$` takes one emoji, as under `u`).
 *    A pattern naming U+E000 or above could see the placeholder (`^[\uE000-\uF8FF]$` would take
 *    an emoji), so it goes below. A needless escape `u` refuses (`^\d{4}\-\d{2}$`) is taken the
 *    same way.
 *  - any other pattern (the linear engine takes no `u` pattern, no backreference, no lookaround,
 *    and no bounded repeat it would have to unroll past its limit, `^(\w|\d){1,100}$`,
 *    `^[a-z]{1,100}$`): screened. One with a quantified group holding an alternation or a repeat
 *    (`(a+)+`, `(\w|\d){1,100}`, `(a{1,20}){1,20}`) can take exponential time, so it is not run:
 *    it is skipped alone (it passes every value; the tool's other checks stay), and said
 *    (json-schema.ts collects it for the caller to report). Any other is run by the backtracking
 *    engine, where it is linear or polynomial (`^[a-z]{1,100}$`): without `u` (and tested with the
 *    placeholder, as above) when its meaning allows, else with `u` (without it only when `u`
 *    refuses that pattern).
 */

/**
 * `--enable-experimental-regexp-engine` lets a regexp ask for V8's linear-time (breadth-first)
 * engine with the `l` flag; compiling with it throws a SyntaxError for a pattern that engine
 * cannot run, which is how a pattern is sorted (module comment), in microseconds, once per schema.
 * The backtracks flag makes a regexp without `u` switch to the same engine once it has backtracked
 * more than 50,000 times: kept as a second guard, though every pattern it could cover now runs
 * with `l`. V8 reads the flags when a regexp is compiled or run, so setting them here, when the
 * first schema's patterns are about to be compiled, covers every one of them
 * (test/validation.schema-shapes.stdio.test.ts checks it on a real server).
 */
v8.setFlagsFromString("--enable-experimental-regexp-engine");
v8.setFlagsFromString("--enable-experimental-regexp-engine-on-excessive-backtracks");

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
  const needsU = needsUnicodeMeaning(pattern);
  const withoutU = flags.replace("u", "");
  if (!needsU) {
    const linear = linearEngine(pattern, withoutU);
    if (linear) return placeholderTested(linear);
  }
  const risk = backtrackingRisk(pattern);
  if (risk) {
    const reason = `it can take exponential time (${risk}), so the runtime does not run it`;
    unrunSink?.push({ pattern, reason });
    // Ajv keys compiled patterns by toString(): one per pattern, never shared with a run one.
    return { test: () => true, toString: () => `unrun:${pattern}` };
  }
  if (!needsU) return placeholderTested(new RegExp(pattern, withoutU));
  try {
    return new RegExp(pattern, flags);
  } catch (error) {
    if (!flags.includes("u") || !(error instanceof SyntaxError)) throw error;
    return new RegExp(pattern, withoutU);
  }
}
// Ajv writes this name into standalone code only; the runtime's validators are not standalone.
schemaRegExp.code = "schemaRegExp";

/** The pattern compiled for V8's linear-time engine, or undefined when that engine cannot run it. */
function linearEngine(pattern: string, flags: string): RegExp | undefined {
  try {
    return new RegExp(pattern, `${flags}l`);
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

/** A pattern without `u`, tested with each surrogate pair of the value as one placeholder (module comment). */
function placeholderTested(regExp: RegExp): RegExpLike {
  return {
    test: (value: string) => regExp.test(HAS_SURROGATE.test(value) ? value.replace(SURROGATE_PAIRS, ASTRAL_PLACEHOLDER) : value),
    // Ajv keys compiled patterns by toString(): this one must not share a key with the `u` form.
    toString: () => `placeholder:${regExp.toString()}`,
  };
}

/** A surrogate or a code point from U+E000 up (the placeholder's own range), written out. */
const U_OR_PLACEHOLDER_CHAR = /[\uD800-\uFFFF]/;
/** After `\u`: a surrogate (D800–DFFF) or a code point from U+E000 up. */
const U_OR_PLACEHOLDER_ESCAPE = /^(?:[dD][89a-fA-F]|[eEfF][0-9a-fA-F])[0-9a-fA-F]{2}$/;

/**
 * Whether the pattern's meaning needs the `u` flag (`\p{…}`, `\P{…}`, `\u{…}`, a surrogate written
 * out or escaped), or it names a code point from U+E000 up, where the placeholder a character
 * beyond the BMP becomes would be seen as itself (`[\uE000-\uF8FF]`, `[\u0020-\uFFFF]`).
 */
function needsUnicodeMeaning(pattern: string): boolean {
  if (U_OR_PLACEHOLDER_CHAR.test(pattern)) return true;
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] !== "\\") continue;
    const next = pattern[i + 1] ?? "";
    if ((next === "p" || next === "P" || next === "u") && pattern[i + 2] === "{") return true;
    if (next === "u" && U_OR_PLACEHOLDER_ESCAPE.test(pattern.slice(i + 2, i + 6))) return true;
    i++;
  }
  return false;
}

interface Group {
  /** Whether an alternation or a repeat sits inside, at any depth. */
  branches: boolean;
  /** What sits inside, to name it. */
  holds: "an alternation" | "a repeat" | undefined;
  /** Where the group opened, to quote it. */
  start: number;
}

/**
 * A quantified group (`*`, `+`, `?`, `{n,m}`, `{n}` with n ≥ 2) holding an alternation or a repeat
 * (`(a+)+`, `(\w|\d){1,100}`, `(a{1,20}){1,20}`), described; undefined for a pattern without one.
 * Each choice inside is made again at each repetition, so a value that fails is tried every way.
 * A fixed count inside (`(\d{3})+`) offers no choice, so it is no repeat here. Only patterns the
 * linear-time engine cannot take come here (module comment).
 */
function backtrackingRisk(pattern: string): string | undefined {
  const stack: Group[] = [{ branches: false, holds: undefined, start: 0 }];
  const inside = (holds: Group["holds"]) => {
    const group = stack[stack.length - 1] as Group;
    group.branches = true;
    group.holds ??= holds;
  };
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === "(") {
      stack.push({ branches: false, holds: undefined, start: i });
      // `(?:`, `(?=`, `(?<name>`: the `?` opens the group's kind, it is no quantifier.
      const kind = /^\(\?(?:<[=!]|<[^>]*>|[:=!])?/.exec(pattern.slice(i, i + 64));
      if (kind) i += kind[0].length - 1;
      continue;
    }
    if (char === "|") {
      inside("an alternation");
      continue;
    }
    if (char === ")" && stack.length > 1) {
      const group = stack.pop() as Group;
      const quantifier = quantifierAt(pattern, i + 1);
      // A `?` on its own gives a group two ways at most: the risk is a group tried again and again.
      if (quantifier && quantifier.most >= 2 && group.branches) {
        return `the group ${pattern.slice(group.start, i + 1)} repeats and holds ${group.holds ?? "a repeat"}`;
      }
      if (group.branches) inside(group.holds);
      if (quantifier && quantifier.least !== quantifier.most) inside("a repeat");
      i += quantifier?.length ?? 0;
      continue;
    }
    // One atom: an escape, a class (to its closing bracket, past escapes) or a character.
    if (char === "\\") i++;
    else if (char === "[") for (i++; i < pattern.length && pattern[i] !== "]"; i++) if (pattern[i] === "\\") i++;
    const quantifier = quantifierAt(pattern, i + 1);
    if (quantifier && quantifier.least !== quantifier.most) inside("a repeat");
    i += quantifier?.length ?? 0;
  }
  return undefined;
}

/** The quantifier at `i` (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, each maybe lazy): its bounds and length. */
function quantifierAt(pattern: string, i: number): { least: number; most: number; length: number } | undefined {
  const match = /^(?:([*+?])|\{(\d+)(,(\d*))?\})\??/.exec(pattern.slice(i, i + 48));
  if (!match) return undefined;
  const [text, symbol, least, comma, most] = match;
  if (symbol) return { least: symbol === "+" ? 1 : 0, most: symbol === "?" ? 1 : Infinity, length: text.length };
  const low = Number(least);
  return { least: low, most: comma === undefined ? low : most === "" ? Infinity : Number(most), length: text.length };
}
