import { isPlainObject } from "../plain-object.js";
import { LIMIT_RULE, readLimit } from "../runtime/limit-argument.js";
/**
 * Arguments of a plugin or module command as one JSON object: either a JSON object word
 * (`'{"owner":"a"}'`), or `--name value` / `--name=value` flags, or JSON piped on stdin.
 * `--confirm` is the confirm gate and never an argument; a tool parameter literally named
 * `confirm` goes in the JSON form.
 *
 * Flag values are typed the way a shell user expects: `true`, `false`, `null`, numbers and
 * JSON objects/arrays/strings are parsed, anything else is a string. A number that would not come
 * back as written (past 2^53, or beyond a double's range) stays a string. To pass a string that
 * looks like a number, quote it as JSON: `--id '"123"'`. A word that starts like JSON (`[`, `{`,
 * `"`) but does not parse (`[WIP] fix parser`) is a string too: it is refused only once the
 * tool's schema shows the parameter takes no string (flag-call.ts). For a parameter the schema
 * types as a string, a call's flags read as anything but a string are sent as their text, since
 * the schema knows best.
 */

export interface FlagTexts {
  /** Flags whose text was read as JSON other than a string (number, boolean, null, array, object): name → the text as written. */
  typed: Record<string, string>;
  /** Flags given with no value (the next word was another flag, or none): read as true. */
  bare: string[];
  /** Flags whose text is a number a double does not hold exactly (1e400, 2^53 + 1): kept as text. */
  inexact: string[];
  /** Flags whose text starts like JSON but does not parse, so it was kept as text: name → why it does not parse. */
  unparsed: Record<string, string>;
  /** Every flag given a value: name → its text as written (a plain word for a list is only known wrong by the schema). */
  written: Record<string, string>;
}

export type ParsedArguments =
  | { ok: true; args: Record<string, unknown>; confirm: boolean; positionals: string[]; flags?: FlagTexts }
  | { ok: false; message: string };

const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;
/**
 * A `--name`: letters of any script (a server may name its parameters `查询` or `名前`), digits,
 * combining marks (Indic vowel signs, a decomposed accent), `_ . -`; it starts with a letter or
 * `_`, so `--1` and `---x` are no names. Anything else goes in the JSON form.
 */
const NAME = /^[\p{L}_][\p{L}\p{M}\p{N}_.-]*$/u;

/** A flag's text as a value; `unparsed` says why a text that starts like JSON was kept as text. */
export function typedValue(text: string): { ok: true; value: unknown; unparsed?: string } {
  if (text === "true") return { ok: true, value: true };
  if (text === "false") return { ok: true, value: false };
  if (text === "null") return { ok: true, value: null };
  if (NUMBER.test(text) && isExactNumber(text)) return { ok: true, value: Number(text) };
  const first = text.trimStart()[0];
  if (first === "{" || first === "[" || first === '"') {
    try {
      return { ok: true, value: JSON.parse(text) as unknown };
    } catch (error) {
      // Titles start with "[WIP]", templates with "{owner}": text, unless the schema takes no string.
      return { ok: true, value: text, unparsed: (error as Error).message };
    }
  }
  return { ok: true, value: text };
}

/** Whether `text` (a JSON number) is kept by a double: finite, and an integer at most 2^53 exactly. */
function isExactNumber(text: string): boolean {
  const value = Number(text);
  if (!Number.isFinite(value)) return false;
  return /[.eE]/.test(text) || Number.isSafeInteger(value);
}

export function shorten(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * `__proto__` as an argument name would not name an argument: assigned (`args[name] = …`,
 * `Object.assign`), it replaces the arguments object's prototype, so its fields pass schema
 * checks as inherited ones (a required field "present", additionalProperties not seen).
 */
/** `--confirm` twice: refused as any flag given twice is, so a doubled gate is not taken as one on purpose. */
const CONFIRM_TWICE = "--confirm was given twice: give it once";

/**
 * `--confirm` right after a flag that got no value: it may have been meant as that flag's value
 * (`--note "$title"` with title="--confirm", text taken from an earlier result), and read as the
 * gate it would confirm a write nobody confirmed. Refused, naming both, with the unambiguous forms.
 */
function confirmAfterBareFlag(name: string): string {
  // `TOOL --help` shows the parameters and calls nothing: --confirm with it is a misreading, not a value.
  if (name === "help") return "--confirm with --help is refused: --help shows the parameters and runs nothing, so there is nothing to confirm. Write --help alone to read them, then the call with --confirm (a parameter named help takes --help=VALUE)";
  return `--confirm right after --${name}, which got no value, is refused: it may be --${name}'s value (from a variable), and then nobody confirmed. Write --${name}=VALUE for a value that starts with -- (--${name}=true for true), and --confirm where no flag waits for a value (before the flags, or after a value)`;
}

const PROTO_MESSAGE = "'__proto__' cannot be an argument name (it is JavaScript's prototype key, not a tool parameter): leave it out, and give the tool's own parameters by name";

/**
 * `tokens` are the words after the command's fixed part (after `call TOOL`). Words that are
 * neither flags nor a JSON object are returned as `positionals` for the caller to accept or
 * refuse. When no arguments were given on the line, non-empty `stdin` must be one JSON object;
 * anything else there is refused, saying what came (with arguments on the line stdin is not read:
 * a loop's `while read` input is not the call's). A flag given twice is refused, `--confirm` too,
 * and so is a `--confirm` right after a flag that got no value (it may be that flag's value).
 */
export function parseArguments(tokens: readonly string[], stdin = ""): ParsedArguments {
  const args: Record<string, unknown> = {};
  const positionals: string[] = [];
  let confirm = false;
  let sawJson = false;
  let sawFlag = false;
  const flags: FlagTexts = { typed: {}, bare: [], inexact: [], unparsed: {}, written: {} };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] ?? "";
    if (token === "--confirm") {
      if (confirm) return { ok: false, message: CONFIRM_TWICE };
      confirm = true;
      continue;
    }
    // `--confirm=true` would otherwise become an argument named confirm, which the gate ignores.
    if (token.startsWith("--confirm=")) return { ok: false, message: `--confirm takes no value (got '${shorten(token)}'): write --confirm; a tool parameter named confirm goes in the JSON form '{"confirm": …}'` };
    if (token === "--") {
      positionals.push(...tokens.slice(i + 1));
      break;
    }
    if (token.startsWith("--") && token.length > 2) {
      const eq = token.indexOf("=");
      const name = eq > 0 ? token.slice(2, eq) : token.slice(2);
      if (!NAME.test(name)) return { ok: false, message: `'${shorten(token)}' is not a valid --name (letters, digits, _ . -, starting with a letter or _); for any other name use the JSON form '{"name": …}'` };
      if (name === "__proto__") return { ok: false, message: `--__proto__: ${PROTO_MESSAGE}` };
      let raw: string | undefined;
      if (eq > 0) raw = token.slice(eq + 1);
      else {
        const next = tokens[i + 1];
        if (next !== undefined && !(next.startsWith("--") && next.length > 2)) {
          raw = next;
          i += 1;
        } else if (next === "--confirm") return { ok: false, message: confirmAfterBareFlag(name) };
      }
      if (Object.hasOwn(args, name)) return { ok: false, message: `--${name} was given twice: give it once; for a list, give one JSON array: --${name} '["a","b"]'` };
      const typed: ReturnType<typeof typedValue> = raw === undefined ? { ok: true, value: true } : typedValue(raw);
      if (raw === undefined) flags.bare.push(name);
      else if (typed.unparsed !== undefined) flags.unparsed[name] = typed.unparsed;
      else if (typeof typed.value === "string" && NUMBER.test(raw)) flags.inexact.push(name);
      else if (typeof typed.value !== "string") flags.typed[name] = raw;
      if (raw !== undefined) flags.written[name] = raw;
      args[name] = typed.value;
      sawFlag = true;
      continue;
    }
    if (token.trimStart().startsWith("{")) {
      if (sawJson) return { ok: false, message: "more than one JSON object was given; merge them into one" };
      let parsed: unknown;
      try {
        parsed = JSON.parse(token);
      } catch (error) {
        return { ok: false, message: `the JSON arguments do not parse (${(error as Error).message}); quote them in single quotes: '{"key":"value"}'` };
      }
      if (!isPlainObject(parsed)) return { ok: false, message: "the JSON arguments must be an object" };
      if (Object.hasOwn(parsed, "__proto__")) return { ok: false, message: `the JSON arguments: ${PROTO_MESSAGE}` };
      Object.assign(args, parsed);
      sawJson = true;
      continue;
    }
    positionals.push(token);
  }
  if (!sawJson && !sawFlag && stdin.trim() !== "") {
    const stdinArgs = stdinObject(stdin);
    if (!stdinArgs.ok) return stdinArgs;
    Object.assign(args, stdinArgs.args);
  }
  return { ok: true, args, confirm, positionals, ...(sawFlag ? { flags } : {}) };
}

const STDIN_FIX = `pipe one JSON object, e.g. echo '{"id":"T-1"}' | …, or give the arguments on the line (--name value)`;

/** Non-empty stdin as the arguments: one JSON object, or a refusal saying what came instead. */
function stdinObject(stdin: string): { ok: true; args: Record<string, unknown> } | { ok: false; message: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdin);
  } catch (error) {
    return { ok: false, message: `stdin holds '${shorten(stdin.trim(), 40)}', which is not JSON (${(error as Error).message}): ${STDIN_FIX}` };
  }
  if (isPlainObject(parsed) && Object.hasOwn(parsed, "__proto__")) return { ok: false, message: `the JSON arguments on stdin: ${PROTO_MESSAGE}` };
  if (isPlainObject(parsed)) return { ok: true, args: parsed };
  const kind = Array.isArray(parsed) ? "a JSON array" : parsed === null ? "JSON null" : `a JSON ${typeof parsed}`;
  return { ok: false, message: `stdin holds ${kind} ('${shorten(stdin.trim(), 40)}'), not the JSON object of arguments: ${STDIN_FIX}` };
}

export type ParsedNamedCall = { ok: true; name: string; args: Record<string, unknown>; confirm: boolean; flags?: FlagTexts; note?: string } | { ok: false; message: string };

/**
 * The flags that name the target, as the typed tools' keys do (`toolName`, `skill`) or their short
 * form: `call --toolName get_item --sku X` is what a model writes after a typed `_call`. Before the
 * target's arguments such a flag can be nothing else, so it is read as the name, and said.
 */
const NAME_FLAGS: Readonly<Record<string, readonly string[]>> = { tool: ["toolName", "tool"], skill: ["skill", "skillName"] };

/** The name a leading `--toolName X` / `--toolName=X` gives, and how many words it took; undefined for any other word. */
function nameFlagAt(words: readonly string[], at: number, what: string): { flag: string; name: string; words: number } | undefined {
  const word = words[at] ?? "";
  for (const flag of NAME_FLAGS[what] ?? []) {
    if (word.startsWith(`--${flag}=`)) return { flag: `--${flag}`, name: word.slice(flag.length + 3), words: 1 };
    const next = words[at + 1];
    if (word === `--${flag}` && next !== undefined && !next.startsWith("-") && !next.trimStart().startsWith("{")) return { flag: word, name: next, words: 2 };
  }
  return undefined;
}

/**
 * The words of `call TOOL …` or `skill NAME …` (after the subcommand): `--confirm` may come before
 * the name or anywhere after it, so `call --confirm TOOL --x 1` and `call TOOL --x 1 --confirm` are
 * one call. Any other flag, or the JSON object, before the name is refused, naming the word: read in
 * that order, `--title Plan create_note` would take the tool name for an argument's value; but a
 * leading `--toolName X` (`--tool X`; `--skill X` for a skill) is read as the name, with a `note`
 * saying so. `what` is "tool" or "skill"; `missing` is the message when no name is given;
 * `command` is the command's words before the name (`notes call`), for the note.
 */
export function parseNamedCall(words: readonly string[], stdin: string, what: string, missing: string, command = what === "skill" ? "skill" : "call"): ParsedNamedCall {
  let at = 0;
  while (words[at] === "--confirm") at += 1;
  const confirms = at;
  const named = nameFlagAt(words, at, what);
  const name = named ? named.name : words[at];
  if (name === undefined || name === "") return { ok: false, message: missing };
  if (!named && (name.startsWith("-") || name.trimStart().startsWith("{"))) {
    const kind = name.trimStart().startsWith("{") ? "the JSON arguments" : `'${shorten(name)}'`;
    const example = `${what.toUpperCase()} ${name.startsWith("-") ? `${shorten(name, 30)} …` : "'{…}'"}`;
    return { ok: false, message: `${kind} came before the ${what} name; name the ${what} first, then its arguments: ${example}` };
  }
  const parsed = parseArguments(words.slice(at + (named?.words ?? 1)), stdin);
  if (!parsed.ok) return parsed;
  if (confirms > 1 || (confirms === 1 && parsed.confirm)) return { ok: false, message: CONFIRM_TWICE };
  if (parsed.positionals.length) return { ok: false, message: `unexpected word '${shorten(parsed.positionals[0] ?? "")}' after the ${what} name: pass arguments as one JSON object or as --name value` };
  // Said once, on stderr: the call ran, and the next line can name it the usual way.
  const note = named ? `${named.flag} ${shorten(name, 40)} was read as the ${what} name; the usual form names it first, with no flag: \`${command} ${shorten(name, 40)} …\`` : undefined;
  return { ok: true, name, args: parsed.args, confirm: parsed.confirm || confirms > 0, ...(parsed.flags ? { flags: parsed.flags } : {}), ...(note ? { note } : {}) };
}

/**
 * `--limit N` of a discover, checked as the typed facade checks `limit` (limit-argument.ts) so a
 * bad one is a usage error naming the value. Accepted, it is passed on as given (`limit`
 * undefined when not given): the runtime reads it with the same reader, and a repair it makes
 * (`--limit '"5"'` read as 5, 80 as 50) is named in the answer's `repairs`, as on the typed tools.
 */
export function limitArgument(args: Record<string, unknown>): { ok: true; limit?: unknown } | { ok: false; message: string } {
  const value = args.limit;
  const read = value === true ? undefined : readLimit(value);
  if (read?.ok) return read.limit === undefined ? { ok: true } : { ok: true, limit: value };
  return { ok: false, message: `--limit needs ${LIMIT_RULE}, e.g. --limit 5 (got ${read ? read.got : "no value"})` };
}
