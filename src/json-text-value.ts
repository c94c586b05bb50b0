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
 * What any number whose value JSON.parse would change needs: 16 significant digits or more (past
 * 2^53, or more precision than a double keeps; 15 always read back) or an exponent (`1e400`
 * overflows, `1e-400` underflows). A JSON text without one of these parses losslessly, and most
 * do: only they pay for the scan. `1.50`, `1.0` and `-0` are not among them: JSON.parse keeps
 * their value (1.5, 1, 0), only the way they were written.
 */
const MAY_LOSE = /(?:\d\.?){16}|\d[eE]/;
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** A decimal number's value as one text, whatever way it is written: `1.50`, `1.5` and `15e-1` all give "15e-1". */
function decimalValue(written: string): string {
  const match = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(written);
  if (!match) return written;
  const fraction = match[3] ?? "";
  let digits = `${match[2]}${fraction}`.replace(/^0+/, "");
  if (digits === "") return "0";
  let exponent = Number(match[4] ?? 0) - fraction.length;
  const kept = digits.replace(/0+$/, "");
  exponent += digits.length - kept.length;
  digits = kept;
  return `${match[1]}${digits}e${exponent}`;
}

/** Whether JSON.parse keeps a JSON number token's value: `1.50` yes (1.5), `12345678901234567890` no. */
function keepsValue(token: string): boolean {
  const number = Number(token);
  return Number.isFinite(number) && decimalValue(String(number)) === decimalValue(token);
}

/**
 * Walks a valid JSON text's numbers (outside its strings); `onLossy` is given the start and end of
 * each whose value JSON.parse would change.
 */
function eachLossyNumber(json: string, onLossy: (start: number, end: number) => void): void {
  if (!MAY_LOSE.test(json)) return;
  for (let i = 0; i < json.length; i++) {
    const code = json.charCodeAt(i);
    if (code === 0x22) {
      // Skip the string: to its closing quote, past escapes.
      for (i++; i < json.length && json.charCodeAt(i) !== 0x22; i++) if (json.charCodeAt(i) === 0x5c) i++;
    } else if (code === 0x2d || (code >= 0x30 && code <= 0x39)) {
      NUMBER.lastIndex = i;
      const token = NUMBER.exec(json)?.[0];
      if (!token) continue;
      if (!keepsValue(token)) onLossy(i, i + token.length);
      i += token.length - 1;
    }
  }
}

/**
 * Whether a valid JSON text holds a number (outside its strings) whose value JSON.parse would
 * change: `12345678901234567890` read as 12345678901234567000. Such a text is kept as the text it
 * is by those that parse a tool's text result, which loses nothing.
 */
export function hasLossyNumber(json: string): boolean {
  let found = false;
  eachLossyNumber(json, () => (found = true));
  return found;
}

/**
 * A valid JSON text parsed without losing a value: each number whose value JSON.parse would change
 * (an id past 2^53) becomes a string of its exact text (`"12345678901234567890"`); every other
 * value is parsed as JSON.parse does. Throws as JSON.parse does on text that is not JSON.
 */
export function parseJsonLossless(json: string): unknown {
  const cuts: Array<[number, number]> = [];
  eachLossyNumber(json, (start, end) => cuts.push([start, end]));
  if (cuts.length === 0) return JSON.parse(json) as unknown;
  let quoted = "";
  let from = 0;
  for (const [start, end] of cuts) {
    quoted += `${json.slice(from, start)}"${json.slice(start, end)}"`;
    from = end;
  }
  return JSON.parse(quoted + json.slice(from)) as unknown;
}

/**
 * `{value}` when the text (surrounding whitespace aside) is one JSON text, else undefined. A number
 * anywhere in it counts only when JSON.parse keeps its value: a text with an id past 2^53 stays
 * text, which loses nothing (`1.50` is read as 1.5, the same value).
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
