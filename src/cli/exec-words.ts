import { TEXT_BUILTINS } from "../text/reserved-names.js";

/**
 * The words after `agent-tools exec`. The command line is taken verbatim, so the CLI's own options
 * (--config, --plugins-dir) are read only right after `exec`, before the command's first word, and a
 * `--` ends them. From the command's first word on, the words are the command's own: a plugin call
 * (`notes call TOOL --config '{…}'`) or a sandbox command may well take `--config`. The one misplaced
 * case refused is a text-layer built-in (`status`, `list`, `load`) followed by such an option: those
 * take no options, so `exec status --config F` would silently not read F (bash would run `status`).
 */

/** The CLI's options that `exec` accepts between `exec` and the command line, with what their value is. */
const EXEC_OPTION_VALUES = { "--config": "FILE", "--plugins-dir": "DIR" } as const;
const EXEC_OPTIONS = Object.keys(EXEC_OPTION_VALUES) as (keyof typeof EXEC_OPTION_VALUES)[];

export type ExecWords = { ok: true; options: string[]; words: string[] } | { ok: false; message: string };

function optionOf(word: string): (typeof EXEC_OPTIONS)[number] | undefined {
  return EXEC_OPTIONS.find((option) => word === option || word.startsWith(`${option}=`));
}

function quoted(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The refusal for `status --config F`-like lines, or undefined when the words are the command's own. */
function misplacedOption(words: readonly string[], earlier: readonly string[]): string | undefined {
  // The words are joined into one line (src/cli/text.ts), so `'status --config F'` counts too.
  const tokens = words.join(" ").trim().split(/\s+/);
  const first = tokens[0] ?? "";
  if (!(TEXT_BUILTINS as readonly string[]).includes(first)) return undefined;
  const stray = tokens.findIndex((token, at) => at > 0 && optionOf(token) !== undefined);
  if (stray < 0) return undefined;
  const token = tokens[stray] as string;
  const option = optionOf(token) as string;
  const value = token === option ? tokens[stray + 1] : token.slice(option.length + 1);
  const rest = tokens.filter((_, at) => at !== stray && !(token === option && at === stray + 1));
  // Keep the options the user had already put in the right place.
  const before = [...earlier, option, value ?? "VALUE"].map(quoted).join(" ");
  return `'${first}' takes no ${option}: after the command it would not be read as agent-tools' option. Put it before the command: agent-tools ${before} exec ${rest.map(quoted).join(" ")}`;
}

/**
 * Splits `exec`'s words into the CLI's options (for parseArgs) and the command line's words.
 * `beforeExec`: the CLI's words before `exec` (`agent-tools --plugins-dir D exec …`), for the suggestion.
 */
export function splitExecWords(after: readonly string[], beforeExec: readonly string[] = []): ExecWords {
  const options: string[] = [];
  let i = 0;
  for (; i < after.length; i++) {
    const word = after[i] as string;
    const option = optionOf(word);
    if (!option) break;
    options.push(word);
    if (word !== option) continue;
    // The value is the next word; none (or an option in its place) is refused, not read as unset
    // or taken from the command line. A value that starts with "-" goes as --config=-x, as parseArgs says.
    const value = after[++i];
    if (value === undefined || value.startsWith("-")) {
      const what = EXEC_OPTION_VALUES[option];
      const got =
        value === undefined ? "nothing follows it" : optionOf(value) || value === "--" ? `'${value}' follows it` : `'${value}' follows it (a name starting with '-' goes as ${option}=${value})`;
      return { ok: false, message: `${option} needs a ${what === "FILE" ? "file" : "folder"}, but ${got}: agent-tools exec ${option} ${what} COMMAND…` };
    }
    options.push(value);
  }
  if (after[i] === "--") return { ok: true, options, words: after.slice(i + 1) };
  const words = after.slice(i);
  const message = misplacedOption(words, [...beforeExec, ...options]);
  return message ? { ok: false, message } : { ok: true, options, words };
}
