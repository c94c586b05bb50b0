/**
 * Shell options carried from one call to the next. just-bash starts every `exec` with its default
 * `set -o` options and offers no way in its API to start with others, but it answers the options a
 * line ended with in `SHELLOPTS` and `BASHOPTS` (colon-separated names of those on). The session
 * keeps them apart from the carried variables (they are readonly in bash; they are never
 * assigned), and starts the next call with the `shopt`/`set -o` statements that restore them,
 * put into the line's syntax tree ahead of its own statements (so they are not part of its text,
 * its note or its line numbers). `shopt` comes first and `set -o` last, so that a carried
 * `xtrace` traces none of them.
 */

/** The `set -o` options carried: those just-bash keeps. Not `noexec` (a session in it could run nothing again, not even `set +n`), nor `vi`/`emacs` (line editing, meaningless here). */
const SET_OPTIONS = ["allexport", "errexit", "noclobber", "noglob", "nounset", "pipefail", "posix", "verbose", "xtrace"] as const;

/** The `shopt` options just-bash keeps, each restored to on or off. */
const SHOPT_OPTIONS = ["dotglob", "expand_aliases", "extglob", "failglob", "globskipdots", "globstar", "lastpipe", "nocaseglob", "nocasematch", "nullglob", "xpg_echo"] as const;

/** `BASHOPTS` of a new just-bash shell (its `shopt -p`): what a session that never ran `shopt` has. */
export const DEFAULT_BASHOPTS = "globskipdots";

export interface ShellOptions {
  /** The value of `SHELLOPTS` the last call ended with, as just-bash wrote it; undefined while no call has set one. */
  shellopts?: string;
  /** The value of `BASHOPTS` the last call ended with; undefined while no call has run `shopt`. */
  bashopts?: string;
}

const names = (value: string | undefined): Set<string> => new Set((value ?? "").split(":").filter(Boolean));

/**
 * The options a call ended with, from its final env. just-bash writes each variable when its
 * options change; until then (the session starts with none of the two) the previous value holds.
 */
export function endedOptions(finalEnv: Readonly<Record<string, string>>, previous: ShellOptions): ShellOptions {
  const shellopts = finalEnv.SHELLOPTS ?? previous.shellopts;
  const bashopts = finalEnv.BASHOPTS ?? previous.bashopts;
  return { ...(shellopts !== undefined ? { shellopts } : {}), ...(bashopts !== undefined ? { bashopts } : {}) };
}

/**
 * The options after a line that did not end by itself (stopped at its deadline, cancelled, or
 * failed inside): its `set -o` changes are gone with its exec, but just-bash keeps `shopt` state in
 * the shell, so a session that had not run `shopt` before is restored to the defaults next time.
 */
export function afterStoppedLine(options: ShellOptions): ShellOptions {
  return options.bashopts === undefined ? { ...options, bashopts: DEFAULT_BASHOPTS } : options;
}

/**
 * What a failed line that started with a carried `set -e` is told: it stopped at its first failing
 * command, and nothing in its own text says why (a model reads exit 1 with no output). Undefined
 * when errexit was not carried into the line.
 */
export function carriedErrexitNote(startedWith: ShellOptions): string | undefined {
  if (!names(startedWith.shellopts).has("errexit")) return undefined;
  return "set -e from an earlier call is on: the line stopped at its first failing command; `set +e` turns it off";
}

/** The variables that hand the options to the next call's env, so that a line that does not run (a syntax error) answers them unchanged. */
export function optionVariables(options: ShellOptions): Record<string, string> {
  return { ...(options.shellopts !== undefined ? { SHELLOPTS: options.shellopts } : {}), ...(options.bashopts !== undefined ? { BASHOPTS: options.bashopts } : {}) };
}

/**
 * How the restoring statements name the shell's own commands. Aliases carry between calls, so an
 * earlier line's `alias shopt='…'` or `alias set='…'` would run in place of the restore at the
 * start of every later call (breaking the session for good, or running a plugin write each time);
 * `builtin` skips aliases and functions, and quoted (`\builtin`) it is not alias-expanded itself.
 */
const BUILTIN = "\\builtin";

/** The statements that start a call with these options, or "" when there is nothing to restore. */
export function optionStatements(options: ShellOptions): string {
  const lines: string[] = [];
  if (options.bashopts !== undefined) {
    // just-bash keeps `shopt` state in the shell, not per `exec`: each option is set to what the
    // last call ended with, on or off, so a call that was stopped leaves no trace in the next.
    const shopt = names(options.bashopts);
    const on = SHOPT_OPTIONS.filter((n) => shopt.has(n));
    const off = SHOPT_OPTIONS.filter((n) => !shopt.has(n));
    if (on.length) lines.push(`${BUILTIN} shopt -s ${on.join(" ")}`);
    if (off.length) lines.push(`${BUILTIN} shopt -u ${off.join(" ")}`);
  }
  const set = names(options.shellopts);
  const setOn = SET_OPTIONS.filter((n) => set.has(n));
  if (setOn.length) lines.push(`${BUILTIN} set ${setOn.map((n) => `-o ${n}`).join(" ")}`);
  return lines.join("\n");
}
