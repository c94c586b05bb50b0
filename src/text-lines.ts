/**
 * `text.split(/\r?\n/)` without a regexp, for text that can be megabytes (a downstream's stderr,
 * a response body). A string separator is always V8's fast path; a regexp split is its slow,
 * character-by-character one in a process where anything ever redefined a property of
 * RegExp.prototype, which no later restore undoes (a 3 MB split: 4 ms, then 2 s; see the
 * sandbox's defenseInDepth in text/sandbox.ts).
 */
export function splitLines(text: string): string[] {
  const lines = text.split("\n");
  // Every piece but the last ended at a "\n": a "\r" just before it is part of the line break.
  for (let i = 0; i < lines.length - 1; i++) if (lines[i]!.endsWith("\r")) lines[i] = lines[i]!.slice(0, -1);
  return lines;
}
