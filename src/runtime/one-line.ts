/** Characters of a one-line description in answers (discover, help, error details). */
const ONE_LINE_CHARS = 160;

/**
 * A description as one line for an answer: whitespace flattened, the first sentence when it says
 * enough on its own (40 characters or more; a shorter one, e.g. "Lists notes.", keeps what follows),
 * cut at `max` with an ellipsis.
 */
export function oneLine(text: string | undefined, max: number = ONE_LINE_CHARS): string {
  const flat = flatLine(text ?? "");
  const firstSentence = flat.match(/^(.+?[.!?])(\s|$)/)?.[1] ?? flat;
  const line = firstSentence.length >= 40 ? firstSentence : flat;
  return cutLine(line, max);
}

/**
 * A text as one line, whole sentences and all (no first-sentence rule: an error's text says what
 * went wrong in all of it): whitespace flattened, cut at `max` with an ellipsis.
 */
export function flatLine(text: string, max = Infinity): string {
  return cutLine(text.replace(/\s+/g, " ").trim(), max);
}

/** `line` within `max` characters, the last one an ellipsis when it was cut. */
function cutLine(line: string, max: number): string {
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line;
}

/** Characters of an error's one line where many are shown together (search's `unavailable`). */
const REASON_CHARS = 160;
/** Where an adapter's own words end and a server's stderr begins (adapters/mcp: "…; its last stderr lines:\n…"). */
const STDERR_TAIL = /;\s*its last stderr lines:\s*/;
/** A stderr line that says what went wrong ("Error: Cannot find module …", "TypeError: …", "fatal: …"). */
const ERROR_LINE = /^(?:[A-Z]\w*Error|Error|error|fatal|panic|Exception)\b\s*:/;
/** Node's closing "Node.js v20.20.2": no reason. */
const RUNTIME_BANNER = /^Node\.js v\d/;

/**
 * An error's message as one short line, for answers that list several failures side by side: the
 * adapter's own first line, and of a server's stderr tail (a stack trace of a dozen lines) only the
 * line that names the error ("MCP server 'x' exited with code 1 before it finished starting
 * (Connection closed): Cannot find module '/x/y.js'"). The whole message stays with the answers
 * about that plugin alone (its discover, a call).
 */
export function oneLineReason(message: string, max: number = REASON_CHARS): string {
  const [own = "", tail] = message.split(STDERR_TAIL, 2);
  const lines = (tail ?? "").split("\n").map((l) => l.trim()).filter(Boolean);
  const named = lines.find((l) => ERROR_LINE.test(l)) ?? lines.filter((l) => !RUNTIME_BANNER.test(l)).at(-1);
  const head = (own.split("\n")[0] ?? "").trim();
  return flatLine(named ? `${head}: ${named.replace(/^Error:\s*/, "")}` : head, max);
}
