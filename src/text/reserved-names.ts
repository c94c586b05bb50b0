/**
 * The text layer's own words, answered before the shell (`status`, `list`, `load MODULE`). None
 * takes an option, so `agent-tools exec status --config F` is a misplaced CLI option (exec-words.ts).
 */
export const TEXT_BUILTINS = ["status", "list", "load"] as const;

/**
 * Words a plugin command must not take: the shell's builtins and keywords. They are resolved
 * before any command, so a plugin named `local` or `test` would be unreachable (and would
 * break scripts); such a plugin's command is `plugin-<prefix>` instead. just-bash's own
 * commands (`sort`, `grep`) are added from its registry at sandbox creation.
 */
const SHELL_WORDS: ReadonlySet<string> = new Set([
  // builtins, as just-bash's `help` lists them
  ".", ":", "[", "alias", "bg", "break", "builtin", "caller", "cd", "command", "compgen", "complete", "continue", "declare", "dirs", "disown",
  "echo", "enable", "eval", "exec", "exit", "export", "false", "fc", "fg", "getopts", "hash", "help", "history", "jobs", "kill", "let", "local",
  "logout", "mapfile", "popd", "printf", "pushd", "pwd", "read", "readarray", "readonly", "return", "set", "shift", "shopt", "source",
  "suspend", "test", "times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias", "unset", "wait",
  // keywords
  "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do", "done", "in", "function", "time", "coproc",
  // the text layer's own words
  ...TEXT_BUILTINS,
]);

/** The command name for a plugin prefix, given the names already taken in the sandbox. */
export function pluginCommandName(prefix: string, taken: ReadonlySet<string>): string {
  return SHELL_WORDS.has(prefix) || taken.has(prefix) ? `plugin-${prefix}` : prefix;
}
