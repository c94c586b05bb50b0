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
 * `{value}` when the text (surrounding whitespace aside) is one JSON text, else undefined. A number
 * counts only when it reads back as written: an id past 2^53 or a price written `1.50` stays text,
 * which loses nothing.
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
  return typeof value === "number" && JSON.stringify(value) !== trimmed ? undefined : { value };
}
