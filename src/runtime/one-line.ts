/** Characters of a one-line description in answers (discover, help, error details). */
const ONE_LINE_CHARS = 160;

/**
 * A description as one line for an answer: whitespace flattened, the first sentence when it says
 * enough on its own (40 characters or more; a shorter one, e.g. "Lists notes.", keeps what follows),
 * cut at `max` with an ellipsis.
 */
export function oneLine(text: string | undefined, max: number = ONE_LINE_CHARS): string {
  const flat = (text ?? "").replace(/\s+/g, " ").trim();
  const firstSentence = flat.match(/^(.+?[.!?])(\s|$)/)?.[1] ?? flat;
  const line = firstSentence.length >= 40 ? firstSentence : flat;
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line;
}
