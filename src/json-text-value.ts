/**
 * A tool's text that is one whole JSON text, read as its value: an object, an array, or a scalar
 * (`true`, `null`, `3`, `"done"`), the way the original runtime's adapters answer a delete (`true`)
 * or a count. Shared by the runtime's result unwrapping (runtime/result.ts) and the plugin kit's
 * `unwrapResult` (plugin.ts), so a skill reads a tool's answer as the agent does. No imports: the
 * kit's import graph is pinned (test/plugin-kit.test.ts).
 */

/** Whether `trimmed` can be one JSON text, by its first character, so that prose never pays for a failing JSON.parse. */
function mayBeJsonText(trimmed: string): boolean {
  const first = trimmed.charCodeAt(0);
  // { [ " - 0-9
  if (first === 0x7b || first === 0x5b || first === 0x22 || first === 0x2d || (first >= 0x30 && first <= 0x39)) return true;
  return trimmed === "true" || trimmed === "false" || trimmed === "null";
}

/**
 * What any number that would not read back as written needs: 16 digits in a row (past 2^53, or
 * more precision than a double keeps), a fraction ending in 0 (`1.50`), an exponent, or `-0`. A
 * JSON text without one of these parses losslessly, and most do: only they pay for the scan.
 */
const MAY_LOSE = /\d{16}|\.\d*0(?!\d)|\d[eE]|-0(?![.\d])/;
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Whether a valid JSON text holds a number (outside its strings) that JSON.parse would change:
 * `12345678901234567890` read as 12345678901234567000, `1.50` as 1.5. Such a text is kept as the
 * text it is by those that parse downstream JSON, which loses nothing.
 */
export function hasLossyNumber(json: string): boolean {
  if (!MAY_LOSE.test(json)) return false;
  for (let i = 0; i < json.length; i++) {
    const code = json.charCodeAt(i);
    if (code === 0x22) {
      // Skip the string: to its closing quote, past escapes.
      for (i++; i < json.length && json.charCodeAt(i) !== 0x22; i++) if (json.charCodeAt(i) === 0x5c) i++;
    } else if (code === 0x2d || (code >= 0x30 && code <= 0x39)) {
      NUMBER.lastIndex = i;
      const token = NUMBER.exec(json)?.[0];
      if (!token) continue;
      if (JSON.stringify(Number(token)) !== token) return true;
      i += token.length - 1;
    }
  }
  return false;
}

/**
 * `{value}` when the text (surrounding whitespace aside) is one JSON text, else undefined. A number
 * anywhere in it counts only when it reads back as written: a text with an id past 2^53 or a price
 * written `1.50` stays text, which loses nothing.
 */
export function jsonTextValue(text: string): { value: unknown } | undefined {
  const trimmed = text.trim();
  if (!mayBeJsonText(trimmed)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(trimmed) as unknown;
  } catch {
    return undefined;
  }
  return hasLossyNumber(trimmed) ? undefined : { value };
}
