import type { NextStep } from "../runtime/answers.js";

/**
 * A call written as the agent_tools_exec command line that makes it, for answers that name one
 * (a discover's `next`, a redirect, a cut result's note): `notes call create_note '{"title":"<string>"}'`.
 * The plugin's command name comes from the caller (exec-command-name.ts decides it), since a
 * prefix that is a shell word is `plugin-<prefix>` there.
 */

const PLAIN_WORD = /^[A-Za-z0-9_.:@%+,/=-]+$/;

/** One shell word that reads back as `text`: as is when nothing in it is special, else in single quotes. */
export function shellWord(text: string): string {
  return PLAIN_WORD.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The command line for a next step; `command` is the plugin's command name. A redirect that kept the caller's confirm keeps it as `--confirm`. */
export function commandLineOf(step: NextStep, command: string): string {
  const sub = step.skill !== undefined ? "skill" : "call";
  const name = step.skill ?? step.toolName ?? "";
  const args = Object.keys(step.arguments).length ? ` ${shellWord(JSON.stringify(step.arguments))}` : "";
  const confirm = step.confirm === true ? " --confirm" : "";
  return `${shellWord(command)} ${sub} ${shellWord(name)}${args}${confirm}`;
}
