import { isPlainObject } from "../plain-object.js";
import { headWithinJsonString } from "./json-string-head.js";

/**
 * A write's arguments as the user reads them in the confirmation question. The question used to
 * show the arguments' JSON cut at 400 characters, so a model (steered by text it read) could put
 * a long harmless `comment` first and `table: "production_customers"` after the cut: the user
 * read a routine comment and accepted. Here every top-level key is named, one a line, short
 * values first; a long value is cut on its own, saying how much of it is not shown; a nested
 * object or list that does not fit is summarised by its keys or items. Values are JSON (a string
 * quoted and escaped), so no value can read as a line of its own. The whole stays bounded: with
 * many keys each value is cut harder, and past the bound the keys left are named without values
 * (within a bound of their own, then counted): at most about twice QUESTION_ARGUMENT_CHARS.
 */

/** The characters the arguments take in the question, at most (a dialog's worth). */
export const QUESTION_ARGUMENT_CHARS = 1500;
/** One value's characters at most, when few keys share the bound. */
const VALUE_CHARS = 300;
/** One value's characters at least, however many keys share the bound. */
const MIN_VALUE_CHARS = 24;
/** A key's characters at most: a key is a name, and a name thousands of characters long is a way to push the others out. */
const KEY_CHARS = 60;

/** `text` cut to `max` characters, with an ellipsis when it was. */
function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? one : many}`;
}

/** A key as shown: JSON-quoted (a key holding a quote or a line break cannot pass for another), cut. */
function keyText(key: string): string {
  return clip(JSON.stringify(key), KEY_CHARS);
}

/** Names (each a keyText) listed within `max` characters, the rest counted. */
function nameList(names: readonly string[], max: number): string {
  const shown: string[] = [];
  let used = 0;
  for (const name of names) {
    if (shown.length > 0 && used + name.length + 2 > max) break;
    shown.push(name);
    used += name.length + 2;
  }
  const left = names.length - shown.length;
  return `${shown.join(", ")}${left > 0 ? ` and ${left} more` : ""}`;
}

/** A value within about `max` characters: whole when its JSON fits, else its head (a string) or its shape (an object, a list). */
function valueText(value: unknown, max: number): string {
  const json = JSON.stringify(value) ?? String(value);
  if (json.length <= max) return json;
  if (typeof value === "string") {
    const head = headWithinJsonString(value, max);
    return `${JSON.stringify(head)}… (${plural(value.length - head.length, "more character")} not shown)`;
  }
  if (Array.isArray(value)) return `[…] (a list of ${plural(value.length, "item")}, ${plural(json.length, "character")} as JSON, not shown)`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).map(keyText);
    return `{…} (an object of ${plural(keys.length, "key")}: ${nameList(keys, max)}; ${plural(json.length, "character")} as JSON, not shown)`;
  }
  return `${json.slice(0, max - 1)}… (${plural(json.length - max + 1, "more character")} not shown)`;
}

/** Short scalars first (what a write is about is usually a short value: a table, an id), then long ones, then objects and lists; the order is kept within each. */
function rank(value: unknown, json: string, share: number): number {
  if (value !== null && typeof value === "object") return 2;
  return json.length <= share ? 0 : 1;
}

/** The arguments (masked already) as the question's lines: one per key for an object, else the value itself. */
export function argumentLines(args: unknown, max: number = QUESTION_ARGUMENT_CHARS): string[] {
  if (!isPlainObject(args)) return [valueText(args ?? {}, max)];
  const entries = Object.entries(args).map(([key, value]) => ({ key: keyText(key), value, json: JSON.stringify(value) ?? String(value) }));
  if (entries.length === 0) return ["(none)"];
  const keysChars = entries.reduce((sum, entry) => sum + entry.key.length + 2, 0);
  const share = Math.max(MIN_VALUE_CHARS, Math.min(VALUE_CHARS, Math.floor((max - keysChars) / entries.length)));
  const ordered = entries.map((entry, index) => ({ ...entry, index, rank: rank(entry.value, entry.json, share) })).sort((a, b) => a.rank - b.rank || a.index - b.index);
  const lines: string[] = [];
  let used = 0;
  for (const [at, entry] of ordered.entries()) {
    const line = `${entry.key}: ${valueText(entry.value, share)}`;
    if (used + line.length > max && lines.length > 0) {
      // Past the bound: the keys left are still named, without their values.
      const left = ordered.slice(at).map((rest) => rest.key);
      // The names get a bound of their own: a key left unnamed is what this module is against.
      lines.push(`(${plural(left.length, "more key")}, values not shown: ${nameList(left, max)})`);
      break;
    }
    lines.push(line);
    used += line.length + 1;
  }
  return lines;
}
