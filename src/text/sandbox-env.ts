/**
 * The sandbox's environment, built from scratch — never copied from `process.env`. just-bash
 * hands the constructor's env to every nested shell (`bash -c env` prints it whatever the
 * caller passed to `exec`), so the only safe constructor env is one that holds nothing of the
 * host: fixed, made-up values that make scripts behave, and no credentials by construction.
 */

export const SANDBOX_HOME = "/home/user";

/** Every variable the sandbox starts with, and why. Nothing here comes from the host. */
export function sandboxEnv(): Record<string, string> {
  return {
    HOME: SANDBOX_HOME, // `cd` with no argument, `~` expansion
    PATH: "/usr/bin:/bin", // where just-bash's built-in commands appear
    USER: "user",
    LOGNAME: "user",
    SHELL: "/bin/bash",
    LANG: "C.UTF-8", // tools that look at the locale treat text as UTF-8
    TERM: "dumb", // no colour escapes in output meant for a model
    TMPDIR: "/tmp",
  };
}

/**
 * Variables the sandbox maintains itself; they are not carried from one call to the next (the
 * session carries the working directory separately, and `?` is per command line).
 */
const SHELL_MANAGED = new Set(["?", "PWD", "SHELLOPTS", "BASHOPTS", "OPTIND", "IFS", "PPID", "BASHPID", "UID", "EUID", "RANDOM", "LINENO", "SECONDS", "_"]);

/** The variables to carry into the next call, from the env an `exec` ended with. */
export function carriedEnv(finalEnv: Readonly<Record<string, string>>): Record<string, string> {
  const carried: Record<string, string> = {};
  for (const [name, value] of Object.entries(finalEnv)) {
    if (SHELL_MANAGED.has(name) || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) continue;
    carried[name] = value;
  }
  return carried;
}
