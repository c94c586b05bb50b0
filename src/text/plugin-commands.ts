import type { Runtime } from "../runtime/runtime.js";
import type { Session } from "../runtime/session.js";
import type { NextStep } from "../runtime/answers.js";
import { SANDBOX_RESULT_CHARS } from "../runtime/truncation-note.js";
import { commandLineOf } from "./command-line.js";
import { limitArgument, parseArguments, parseNamedCall } from "./argv.js";
import { callFromWords } from "./flag-call.js";
import { FACADE_TOOL_KEYS } from "../facade/tools.js";
import { callContext, outcomeOutput, output, payloadOutput, usageError, withNote, type TextCommand } from "./command.js";

/**
 * Every loaded plugin as a sandbox command named by its prefix:
 *   <prefix> discover [QUERY…] [--limit N]
 *   <prefix> call TOOL [JSON | --name value …] [--confirm]
 *   <prefix> skill NAME [JSON | --name value …] [--confirm]
 * (`--confirm` may also come before TOOL or NAME, as in the module commands' `[--confirm] TOOL`.)
 * Each is a thin translation of words into the request the typed facade sends; the work is
 * runtime.discover / call / runSkill with the caller's session (call's and skill's flags read and
 * explained alike, flag-call.ts), so validation, the confirm
 * gate, repairs, the loop breaker and error codes are the facade's own, not a copy.
 */

/** A plugin command's usage, a line per subcommand (`list` and `status` say it once for every plugin). */
export function pluginUsageLines(command: string, hasSkills: boolean): string[] {
  const lines = [`${command} discover [QUERY…] [--limit N]`, `${command} call TOOL [JSON | --name value …] [--confirm]`];
  if (hasSkills) lines.push(`${command} skill NAME [JSON | --name value …] [--confirm]`);
  return lines;
}

/**
 * The flags of `discover` are the typed discover's parameters (query, limit); any other is refused
 * rather than ignored, naming them, `--confirm` too (discover runs nothing to confirm). `--detail`
 * (search's, not discover's) gets the way to a tool's schema instead: `call TOOL --help`.
 */
function unknownDiscoverFlags(command: string, args: Record<string, unknown>, confirm: boolean): string | undefined {
  const unknown = [...(confirm ? ["confirm"] : []), ...Object.keys(args).filter((name) => !FACADE_TOOL_KEYS.discover.includes(name))];
  if (!unknown.length) return undefined;
  const named = unknown.map((name) => `--${name}`).join(", ");
  const detail = unknown.includes("detail") ? `; for a tool's description and parameters, run \`${command} call TOOL --help\`` : "";
  const confirmNote = confirm ? "; discover runs nothing, so there is nothing to confirm" : "";
  return `discover takes no ${named}: its flags are --query WORDS (or the words themselves) and --limit N${confirmNote}${detail}`;
}

function usageOf(command: string, hasSkills: boolean): string {
  return pluginUsageLines(command, hasSkills).join("\n       ");
}


/**
 * `commandOf`: a plugin prefix's command name in this sandbox. Answers to these commands write a
 * next step (discover's `next`, a redirect's) as the command line that makes it, since a command
 * line cannot send the typed tools' {toolName, arguments}.
 */
export function pluginCommand(runtime: Runtime, session: Session, prefix: string, commandName: string = prefix, commandOf: (prefix: string) => string = (p) => p, maxResultChars: number = SANDBOX_RESULT_CHARS): TextCommand {
  const plugin = runtime.plugin(prefix);
  const hasSkills = (plugin?.skills.length ?? 0) > 0;
  const usage = usageOf(commandName, hasSkills);
  const label = plugin?.manifest.name ?? prefix;
  return {
    name: commandName,
    summary: `${label}: discover its tools, call one, or run a skill (JSON out)`,
    usage,
    async run(words, io) {
      const [sub, ...rest] = words;
      const ctx = { ...callContext(io, maxResultChars), present: (step: NextStep) => commandLineOf(step, commandOf(step.plugin)) };
      switch (sub) {
        case "discover": {
          const parsed = parseArguments(rest);
          // Every refusal of a subcommand's words is prefixed with the subcommand, as call's and skill's are.
          if (!parsed.ok) return usageError(`${commandName} discover`, parsed.message, usage);
          const unknown = unknownDiscoverFlags(commandName, parsed.args, parsed.confirm);
          if (unknown) return usageError(`${commandName} discover`, unknown, usage);
          const limit = limitArgument(parsed.args);
          if (!limit.ok) return usageError(`${commandName} discover`, limit.message, usage);
          const query = [...parsed.positionals, ...(typeof parsed.args.query === "string" ? [parsed.args.query] : [])].join(" ").trim();
          const request: Record<string, unknown> = { ...(query ? { query } : {}), ...(limit.limit !== undefined ? { limit: limit.limit } : {}) };
          const outcome = await runtime.discover(session, prefix, request, ctx);
          return payloadOutput(`${commandName} discover`, outcome.payload, outcome.isError);
        }
        case "call": {
          const parsed = parseNamedCall(rest, io.stdin, "tool", `name the tool to call (find it with \`${commandName} discover WORDS\`)`, `${commandName} call`);
          if (!parsed.ok) return usageError(`${commandName} call`, parsed.message, usage);
          const { outcome, note } = await callFromWords(runtime, session, prefix, parsed, ctx);
          return withNote(outcomeOutput(`${commandName} call`, outcome, note), `${commandName} call`, parsed.note);
        }
        case "skill": {
          const parsed = parseNamedCall(rest, io.stdin, "skill", "name the skill to run", `${commandName} skill`);
          if (!parsed.ok) return usageError(`${commandName} skill`, parsed.message, usage);
          const { outcome, note } = await callFromWords(runtime, session, prefix, parsed, ctx, "skill");
          return withNote(outcomeOutput(`${commandName} skill`, outcome, note), `${commandName} skill`, parsed.note);
        }
        case "help":
        case "--help":
          return output(`usage: ${usage}\n`);
        case undefined:
          return usageError(commandName, "missing a subcommand", usage);
        default:
          return usageError(commandName, `unknown subcommand '${sub}'; use discover, call${hasSkills ? " or skill" : ""}`, usage);
      }
    },
  };
}
