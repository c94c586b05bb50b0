/**
 * The words after `agent-tools exec`. The command line is taken verbatim, so the CLI's own options
 * (--config, --plugins-dir) are read only right after `exec`, before the command's first word, and a
 * `--` ends them. The same options after the command's first word are refused: they would silently
 * become part of the command line (and `exec status --config F` would be run by bash as `status`).
 */

/** The CLI's options that `exec` accepts between `exec` and the command line. */
const EXEC_OPTIONS = ["--config", "--plugins-dir"] as const;

export type ExecWords = { ok: true; options: string[]; words: string[] } | { ok: false; message: string };

function optionOf(word: string): (typeof EXEC_OPTIONS)[number] | undefined {
  return EXEC_OPTIONS.find((option) => word === option || word.startsWith(`${option}=`));
}

function quoted(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Splits `exec`'s words into the CLI's options (for parseArgs) and the command line's words. */
export function splitExecWords(after: readonly string[]): ExecWords {
  const options: string[] = [];
  let i = 0;
  for (; i < after.length; i++) {
    const word = after[i] as string;
    const option = optionOf(word);
    if (!option) break;
    options.push(word);
    if (word === option) options.push(after[++i] ?? "");
  }
  if (after[i] === "--") return { ok: true, options, words: after.slice(i + 1) };
  const words = after.slice(i);
  const stray = words.findIndex((word) => optionOf(word) !== undefined);
  if (stray >= 0) {
    const word = words[stray] as string;
    const option = optionOf(word) as string;
    const value = word === option ? words[stray + 1] : word.slice(option.length + 1);
    const rest = words.filter((_, at) => at !== stray && !(word === option && at === stray + 1));
    const line = rest.map(quoted).join(" ");
    return {
      ok: false,
      message:
        `${option} after the command line would be taken as the command's own words, not as agent-tools' option. ` +
        `Put it before the command: agent-tools ${option} ${quoted(value ?? "VALUE")} exec ${line}` +
        ` (or: agent-tools exec -- ${words.map(quoted).join(" ")} to pass it to the command as it is)`,
    };
  }
  return { ok: true, options, words };
}
