/**
 * How a downstream schema's `pattern` (and `patternProperties`) regexes are compiled: Ajv's
 * `code.regExp` engine (see json-schema.ts). Each pattern on its own:
 *  - with JavaScript's `u` flag first (exact for characters beyond the BMP and `\p{…}` classes);
 *  - without it only when `u` refuses that pattern (a needless escape such as `\-` or `\/`, which
 *    plain JS and the server's own regex engine accept), so one such pattern does not change what
 *    the tool's other patterns mean;
 *  - refused when it can take exponential time (a quantified group inside a quantified group,
 *    `^(a+)+$`): the runtime checks arguments on its one thread, and such a pattern against 30
 *    characters froze every session for seconds. The refusal makes the schema uncompilable, so
 *    the call goes on unchecked, as for any other schema the runtime cannot compile.
 */

/** Thrown for a pattern that can take exponential time: its message names the pattern and why. */
export class UnsafePatternError extends Error {}

export function schemaRegExp(pattern: string, flags: string): RegExp {
  const nested = nestedQuantifier(pattern);
  if (nested) {
    throw new UnsafePatternError(
      `the pattern ${JSON.stringify(pattern.length > 200 ? `${pattern.slice(0, 200)}…` : pattern)} can take exponential time (${nested}), so the runtime does not run it`,
    );
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

interface Group {
  /** Whether something inside repeats without bound (`+`, `*`, `{n,}`). */
  repeats: boolean;
  /** Where the group opened, to quote it. */
  start: number;
}

/**
 * A group that repeats (`+`, `*`, `{n,}`, `{n,m}` with m ≥ 2) and holds something that repeats
 * without bound (`(a+)+`, `(\w*)*`, `(?:x{2,}){1,9}`), described; undefined for a pattern without one. Backreferences and overlapping
 * alternatives (`(a|a)*`) are not screened: they are rare in tool schemas.
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
