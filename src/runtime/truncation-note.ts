import { ASK_FOR_LESS } from "../ask-for-less.js";

/**
 * What a cut result's `truncated.note` tells the model. A typed tool cuts at
 * AGENT_TOOLS_MAX_RESULT_CHARS (100,000 by default), so a long result the model needs whole can
 * only be asked for in parts; agent_tools_exec takes the same call's result up to
 * SANDBOX_RESULT_CHARS and filters it there (jq, grep), which the note says, since "ask for less"
 * alone is no help with a tool that has no filter or page arguments. It says so only when exec
 * would get the result whole: a result past SANDBOX_RESULT_CHARS is cut there again (after seconds
 * of work and hundreds of MB), and a program's output cut at the CLI adapter's maxOutputBytes is
 * the same cut output there; for those the note says only to ask for less, and why.
 */

/** Results inside the sandbox may be far larger than what a model should read: they are filtered there first. */
export const SANDBOX_RESULT_CHARS = 5_000_000;

const CUT_HEAD = "The result was cut to fit; `result` holds the first characters of its JSON.";

/**
 * A cut result of a call that changed data (a write tool, or a skill that sent one): repeating
 * the call to see the rest, as the note says of a read, would make the change again.
 */
const CUT_WRITE_HEAD = `${CUT_HEAD} This call changed data: do not repeat it to see the rest; read what it changed with a read-only tool (filters, pagination)`;
const CUT_WRITE = `${CUT_WRITE_HEAD}, or through one in agent_tools_exec, filtered with jq or grep.`;
/** The same inside the sandbox, where the model already is: a read-only command filtered with jq or grep. */
const CUT_WRITE_IN_SANDBOX = `${CUT_WRITE_HEAD}, filtered with jq or grep.`;

/**
 * The command line that makes the same call in agent_tools_exec (text/command-line.ts writes it
 * with the plugin's real command: a prefix that is a shell word is `plugin-<prefix>` there).
 * `argumentsLeftOut`: the call's arguments were too long to repeat, so the line has none.
 */
export interface ExecLine {
  line: string;
  argumentsLeftOut?: boolean;
}

/**
 * Why agent_tools_exec would get no more of a result cut at `maxChars` than this answer holds, as
 * the note says it; undefined when it would get it whole. `originalChars`: the length of the
 * whole result's JSON. `outputCutAt`: the CLI adapter's maxOutputBytes, when the program's output
 * was cut there before the result was made (cli/result.ts, outputCutAt).
 */
export function beyondExec(maxChars: number, originalChars: number, outputCutAt: number | undefined): string | undefined {
  if (outputCutAt !== undefined) return `The program's output had already been cut at the plugin's maxOutputBytes (${outputCutAt.toLocaleString("en-US")} bytes; see \`truncated\` and \`stdoutBytes\` at the start of the result), so no call gets more of it${maxChars < SANDBOX_RESULT_CHARS ? ", in agent_tools_exec neither" : ""}.`;
  if (maxChars < SANDBOX_RESULT_CHARS && originalChars > SANDBOX_RESULT_CHARS) return `Its JSON is ${originalChars.toLocaleString("en-US")} characters, more than agent_tools_exec takes (${SANDBOX_RESULT_CHARS.toLocaleString("en-US")}), so it cannot be had whole there either.`;
  return undefined;
}

/**
 * The note for a result cut at `maxChars`. `beyond` (beyondExec): why no call gets it whole, and
 * the note only asks for less. Inside the sandbox (cut at its own cap) there is nowhere larger to
 * go either. Without the exec line (a caller that has no agent_tools_exec writer) the note names
 * the form of the line only.
 */
export function truncationNote(maxChars: number, exec?: ExecLine | "changed data", beyond?: string): string {
  // A call that changed data is never to be repeated, wherever it was cut: asked first.
  if (exec === "changed data") return maxChars >= SANDBOX_RESULT_CHARS ? CUT_WRITE_IN_SANDBOX : CUT_WRITE;
  if (beyond) return `${CUT_HEAD} ${beyond} ${ASK_FOR_LESS}.`;
  if (maxChars >= SANDBOX_RESULT_CHARS) return `${CUT_HEAD} ${ASK_FOR_LESS}.`;
  const line = exec ? `\`${exec.line}${exec.argumentsLeftOut ? " 'JSON'" : ""}\`${exec.argumentsLeftOut ? ", JSON being this call's arguments" : ""}` : "`PLUGIN call TOOL JSON`, PLUGIN being the plugin's command as `list` names it";
  return `${CUT_HEAD} ${ASK_FOR_LESS}; or make the same call in agent_tools_exec (${line}), which takes results up to ${SANDBOX_RESULT_CHARS.toLocaleString("en-US")} characters, and filter it there with jq or grep.`;
}
