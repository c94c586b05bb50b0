import type { Confirmer } from "../runtime/confirm.js";
import type { WriteLog } from "../runtime/write-log.js";
import { EXIT, exitCodeFor } from "./exit-codes.js";
import { misplacedConfirmSentence } from "../runtime/gate.js";
import { ASK_FOR_LESS } from "../ask-for-less.js";

/**
 * The shape of a command the text layer adds to the sandbox (plugin commands and module
 * commands alike). It runs on the host, outside the sandbox; what it sees of the sandbox is
 * what `io` hands it.
 */

export interface CommandIo {
  /** The command's stdin as UTF-8 text ("" when nothing is piped in). */
  stdin: string;
  /** The sandbox's working directory when the command runs. */
  cwd: string;
  /** Aborted at the command line's deadline and when the client cancels the request. */
  signal: AbortSignal | undefined;
  /**
   * Asks the agent's user to confirm a write, when the client can (README "The human confirms
   * writes"): a command's calls pass it on, so `--confirm` in a command line is not the user's word.
   */
  confirmer?: Confirmer;
  /** The command line's log of the writes its commands send (told when the line is stopped mid-write). */
  writeLog?: WriteLog;
}

export interface CommandOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface TextCommand {
  name: string;
  /** One line: what it does. */
  summary: string;
  /** How to call it, e.g. `mcp-call --confirm TOOL [JSON]`. */
  usage: string;
  run(args: string[], io: CommandIo): Promise<CommandOutput>;
}

export function output(stdout: string, exitCode: number = EXIT.OK, stderr = ""): CommandOutput {
  return { stdout, stderr, exitCode };
}

/**
 * Above this many characters a command's JSON is printed compact. Indenting multiplies a nested
 * result's size (a 4.9 MB body of small nested objects is over 20 MB indented), and the sandbox's
 * output limit (SANDBOX_LIMITS.maxOutputSize) must hold whatever a result under the cap prints.
 */
export const INDENTED_JSON_MAX_CHARS = 2_000_000;

/**
 * JSON on stdout, pretty-printed so `grep` over a saved file finds one field per line; compact
 * when the indented text would pass INDENTED_JSON_MAX_CHARS, so a result under the cap fits
 * through pipes and into files (jq reads both alike).
 */
export function jsonOutput(value: unknown, exitCode: number = EXIT.OK, stderr = ""): CommandOutput {
  const indented = JSON.stringify(value, null, 2);
  const text = indented.length > INDENTED_JSON_MAX_CHARS ? JSON.stringify(value) : indented;
  return { stdout: `${text}\n`, stderr, exitCode };
}

/** `out` with a line of `command`'s ahead of its stderr (a note on how its words were read). */
export function withNote(out: CommandOutput, command: string, note: string | undefined): CommandOutput {
  return note ? { ...out, stderr: `${command}: ${note}\n${out.stderr}` } : out;
}

/** A usage mistake: the message on stderr, exit 2. */
export function usageError(command: string, message: string, usage: string): CommandOutput {
  return { stdout: "", stderr: `${command}: ${message}\nusage: ${usage}\n`, exitCode: EXIT.USAGE };
}

interface PayloadError {
  code?: string;
  message?: string;
  hint?: string;
}

/**
 * An operation's payload as command output: the JSON on stdout (so `| jq .error.code` works),
 * and for an error the exit code of its error code (errorOutput).
 */
export function payloadOutput(command: string, payload: object, isError: boolean, extraNote?: string): CommandOutput {
  return isError ? errorOutput(command, payload, undefined, extraNote) : jsonOutput(payload, EXIT.OK, truncationLine(command, payload));
}

/**
 * A failed operation as command output, its message said once: `command: CODE: message` on
 * stderr, which the agent sees even when stdout goes into `| jq`, and on stdout the payload's
 * JSON without the message (`ok`, `.error.code`, `.error.hint`, `.error.details`: what a script
 * reads). The message used to be on both, so an exec answer carried it twice, once escaped.
 * `exitCode`: the error code's own when not given.
 */
export function errorOutput(command: string, payload: object, exitCode?: number, note?: string): CommandOutput {
  const error = ((payload as { error?: PayloadError }).error ?? {}) as PayloadError;
  const { message, ...rest } = error;
  const line = `${command}: ${error.code ?? "FAILED"}: ${message ?? "the operation failed"}${note ? ` ${note}` : ""}\n`;
  return jsonOutput({ ...payload, error: rest }, exitCode ?? (exitCodeFor(error.code) || EXIT.FAILED), line);
}

/**
 * A result cut at the sandbox's cap is no longer the tool's JSON shape (`.result` is text), so a
 * `jq .result.items` after it fails far from the cause: the cut is said on stderr, with its size.
 */
function truncationLine(command: string, payload: object): string {
  const cut = (payload as { truncated?: { originalChars?: number; shownChars?: number } }).truncated;
  if (!cut) return "";
  return `${command}: the result was cut at ${cut.shownChars ?? "?"} of ${cut.originalChars ?? "?"} characters, so .result is a string, not the tool's JSON. ${ASK_FOR_LESS}, and filter that with jq.\n`;
}

/** CONFIRM_REQUIRED's hint on a command line, where `--confirm` is the only way to confirm. */
export const COMMAND_CONFIRM_HINT = "This changes data. Only if the user asked for this change, run the same command again with --confirm added (a `confirm` key in the JSON arguments is not read as confirmation).";

/**
 * A CONFIRM_REQUIRED payload in the command line's words: the runtime's hint and its sentence on a
 * misplaced `confirm` tell a typed-tool caller to send `confirm: true` at the top level, next to
 * toolName, which a command line has no way to do; here the way is `--confirm`.
 */
export function inCommandWords(payload: object): object {
  const error = (payload as { error?: PayloadError }).error;
  if (error?.code !== "CONFIRM_REQUIRED") return payload;
  const typed = [misplacedConfirmSentence("arguments.confirm", "tool"), misplacedConfirmSentence("arguments.confirm", "skill")];
  const said = " The 'confirm' in the JSON arguments was not honoured: a command line confirms with --confirm.";
  const message = typed.reduce((text, sentence) => text.replace(sentence, said), error.message ?? "");
  return { ...payload, error: { ...error, ...(error.message !== undefined ? { message } : {}), hint: COMMAND_CONFIRM_HINT } };
}

/** A pipeline answer as output; a refused write says how to confirm it; `note` adds to the error line. */
export function outcomeOutput(command: string, outcome: { isError: boolean; payload: object }, note?: string): CommandOutput {
  const code = outcome.isError ? (outcome.payload as { error?: PayloadError }).error?.code : undefined;
  const notes = [code === "CONFIRM_REQUIRED" ? "(add --confirm to run it)" : undefined, note].filter(Boolean).join(" ");
  return payloadOutput(command, outcome.isError ? inCommandWords(outcome.payload) : outcome.payload, outcome.isError, notes || undefined);
}

/**
 * The operation context of a command's runtime calls: the sandbox's result cap, the command
 * line's signal, and the user's confirmation when the client can ask (then the runtime asks the
 * user for a write, as for the typed `_call`, and a `--confirm` in the line does not stand in),
 * and that the caller is a command line (answers advise `--confirm`, not a top-level `confirm`).
 */
export function callContext(io: Pick<CommandIo, "signal" | "confirmer" | "writeLog">, maxResultChars: number): { maxResultChars: number; commandLine: true; signal?: AbortSignal; confirmer?: Confirmer; userConfirms?: boolean; writeLog?: WriteLog } {
  return { maxResultChars, commandLine: true, ...(io.signal ? { signal: io.signal } : {}), ...(io.confirmer ? { confirmer: io.confirmer, userConfirms: true } : {}), ...(io.writeLog ? { writeLog: io.writeLog } : {}) };
}
