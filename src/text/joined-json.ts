/**
 * An exec answer's stdout that is exactly one JSON document spread over lines (a plugin command's
 * indented JSON, `jq .result`), shown on one line. The answer carries stdout as a JSON string, so
 * every indentation space and line break was paid for once in the text and again escaped: a
 * `get_item` through exec cost 152 tokens against 56 for the typed `_call`.
 *
 * Only the line breaks and the blanks around them go: JSON has no raw line break inside a string,
 * so every line starts and ends outside one, and each line's own text is kept as written (`"qty":
 * 35`, big integers, escapes). The commands still print indented JSON inside the sandbox, so
 * `grep` over a pipe or a saved file finds one field per line, and a pattern copied from the
 * answer (`grep '"qty": 35'`) matches the line it came from. Nothing is parsed into values and
 * written again, so nothing can change. Fully compact (`"qty":35`) would cost about 12% less on a
 * list, but a pattern copied from it would miss the sandbox's indented line.
 */

/** Past this many characters the text is not read for a join: the answer's cap cuts it anyway, and a parse of megabytes holds the thread. */
const JOIN_MAX_CHARS = 1_000_000;

/** `stdout` on one line when it is one JSON object or array over several lines; otherwise as it came. */
export function joinedJsonStdout(stdout: string): string {
  if (stdout.length > JOIN_MAX_CHARS) return stdout;
  const trimmed = stdout.trim();
  const first = trimmed[0];
  const last = trimmed[trimmed.length - 1];
  // Only an object or an array can span lines; a cheap look first, so plain text never pays for a parse.
  if (!((first === "{" && last === "}") || (first === "[" && last === "]")) || !trimmed.includes("\n")) return stdout;
  try {
    JSON.parse(trimmed);
  } catch {
    // Several documents (`jq '.items[]'`), JSON lines or text that only looks like JSON: left as lines.
    return stdout;
  }
  const joined = trimmed
    .split("\n")
    // JSON's own blanks only (what can sit outside a string); each line is trimmed at its ends alone.
    .map((line) => line.replace(/^[ \t\r]+|[ \t\r]+$/g, ""))
    .join("");
  return stdout.endsWith("\n") ? `${joined}\n` : joined;
}
