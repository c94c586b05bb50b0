/**
 * Whether a name can be given to a child process as an environment variable. The system keeps
 * the environment as `NAME=value` strings that end at a NUL: a name holding '=' or a NUL is cut
 * or read as another variable, an empty one is dropped, and a space or another control character
 * makes a name no shell or program reads back (`$MY VAR`). Anything else is passed as written.
 */

/** What a valid name is, for the messages that refuse one. */
export const ENV_NAME_RULE = "a variable's name is one word of printable characters without '=' (letters, digits and '_' are safe), such as GITHUB_TOKEN";

/** What is wrong with `name` as an environment variable's name, or undefined when it is valid. */
export function envNameProblem(name: string): string | undefined {
  if (name === "") return "is empty";
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return "holds a control character (a NUL, a tab or a line break)";
  if (/\s/.test(name)) return "holds a space";
  if (name.includes("=")) return "holds '='";
  return undefined;
}
