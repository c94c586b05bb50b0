/** Characters of a name or key the caller sent that an answer quotes back: names are short identifiers. */
export const ECHO_CHARS = 80;

/** MCP's limit on a tool's name (the spec's 1-128 characters): a longer name sent by a caller is no tool's. */
export const MCP_NAME_CHARS = 128;

/**
 * Tool and skill names are short identifiers (MCP allows 128 characters). A longer one is refused
 * before it is compared with every name, and is echoed cut: a 1 MB name came back three times in
 * full (target, message, details: a 3 MB answer into the agent's context) after 0.4 s of similarity search.
 */
export const MAX_NAME_CHARS = 256;

/**
 * What the caller sent, as an answer quotes it: whole up to `max` characters, else its first `max`
 * and an ellipsis. A megabyte key or name was quoted whole, several times over, into the model's
 * context (one error answer of 2 MB); every echo of a sent name, key or value goes through here.
 */
export function echoed(text: string, max: number = ECHO_CHARS): string {
  return text.length > max ? `${headOf(text, max)}…` : text;
}

/**
 * A name another server gave (a tool name from its list) as a log line or problem quotes it: on
 * one line, its control characters escaped as JSON escapes them (a newline in it wrote a fake log
 * line), and cut as `echoed` cuts (a 5,000-character name was repeated whole in every help answer).
 */
export function echoedName(name: string, max: number = ECHO_CHARS): string {
  return echoed(JSON.stringify(name).slice(1, -1), max);
}

/** The fleet's redactor for a text (Runtime.redact): every credential it knows masked. */
export type Mask = (text: string) => string;

/**
 * `echoed` of a sent text after `mask`: masked whole first, then cut. A name sent with a token in
 * it and cut first could keep a piece of the token too short for the redactor to recognise, and
 * the answer would show that piece.
 */
export function echoedMasked(text: string, mask: Mask | undefined, max: number = ECHO_CHARS): string {
  return echoed(mask ? mask(text) : text, max);
}

/**
 * The first `max` UTF-16 units of `text`, one fewer when the cut would fall between the two
 * halves of a surrogate pair (an emoji, a CJK extension character): a lone high surrogate is not
 * text (it shows as U+FFFD, and some JSON encoders refuse it), so the whole character goes.
 */
export function headOf(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return max > 0 && last >= 0xd800 && last <= 0xdbff ? text.slice(0, max - 1) : text.slice(0, max);
}

/**
 * The last `max` UTF-16 units of `text`, one fewer when the cut would fall between the two halves
 * of a surrogate pair: headOf's mirror (a lone low surrogate is no more text than a lone high one).
 */
export function tailOf(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return "";
  const from = text.length - max;
  const first = text.charCodeAt(from);
  const before = text.charCodeAt(from - 1);
  return first >= 0xdc00 && first <= 0xdfff && before >= 0xd800 && before <= 0xdbff ? text.slice(from + 1) : text.slice(from);
}

/**
 * A facade argument's value as a refusal names it (`the string "ten"`, `an empty string`,
 * `an array`, `5`): a string always says it is one, so `"5.5"` does not read as the number.
 */
export function describeArgumentValue(value: unknown): string {
  if (typeof value === "string") {
    return value.trim() ? `the string ${JSON.stringify(echoed(value, 40))}` : "an empty string";
  }
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object" && value !== null) return "an object";
  return String(value);
}

/**
 * A facade `plugin` argument, read one way on every tool that looks at it: a prefix (trimmed), or
 * undefined when not given (`null` too: clients fill unset optional fields with it). Anything
 * else (5, "", ["fx"]) is `got`, what the caller's refusal names; never read as "not given".
 */
export function readPluginArgument(value: unknown): { ok: true; prefix: string | undefined } | { ok: false; got: string } {
  if (value === undefined || value === null) return { ok: true, prefix: undefined };
  if (typeof value === "string" && value.trim()) return { ok: true, prefix: value.trim() };
  return { ok: false, got: describeArgumentValue(value) };
}
