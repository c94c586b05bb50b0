import { ASK_FOR_LESS } from "../../ask-for-less.js";
import { ownErrorHint } from "../../own-error.js";
import { parseJsonLossless } from "../../json-text-value.js";
import { isPlainObject } from "../../plain-object.js";
import { tailOf } from "../../runtime/argument-value.js";
import { describeBinary, type BinaryBody } from "../shared/binary-body.js";
import type { Redactor } from "../shared/redact.js";
import { CliError } from "./errors.js";
import type { ProcessResult } from "./process.js";

/**
 * What a call returns: `{ exitCode, stdout, stderr }`, plus `truncated: true` with the byte
 * counts and the cap when either stream was cut, written before the streams: a result longer than
 * the answer's cap is cut to its first characters, and the markers after a megabyte of stdout
 * were cut away with it, so the model read the output as complete. stdout is parsed JSON when `parse` is "json".
 * A manifest tool that declares `parse: "json"` (`strict`) fails when its stdout is not JSON or
 * was cut: its callers (skills) read the value as JSON, and text in its place would only break
 * them later with a stranger error. The runner's `parse` (module adapters) stays lenient: a stdout
 * that does not parse is returned as text. Parsing loses no value, as a REST body's does: a number
 * JSON.parse would change (an id past 2^53) becomes a string of its exact text. Everything is redacted.
 */

export interface CliResult {
  exitCode: number;
  stdout: unknown;
  stderr: string;
  /** The signal that ended the program, when exitCode is -1 (runner results only). */
  signal?: string;
  truncated?: true;
  /** Present when truncated: total bytes the program wrote, and the per-stream cap. */
  stdoutBytes?: number;
  stderrBytes?: number;
  maxOutputBytes?: number;
}

const TAIL_CHARS = 1000;

/** The last `max` characters of a text; mask it first (a cut through a secret would leave its end unmasked). */
export function tail(text: string, max = TAIL_CHARS): string {
  const trimmed = text.trim();
  return trimmed.length > max ? `…${tailOf(trimmed, max)}` : trimmed;
}

/**
 * The cap a program's output was cut at, when `value` is a CLI result that says so (`truncated`
 * and `maxOutputBytes`, as shapeResult writes them; a module's runner result too): the rest was
 * never read, so no other call (agent_tools_exec's neither) gets more of it. Undefined otherwise.
 */
export function outputCutAt(value: unknown): number | undefined {
  return isPlainObject(value) && value.truncated === true && typeof value.maxOutputBytes === "number" ? value.maxOutputBytes : undefined;
}

/** A `parse: "json"` tool's call, for the error when its stdout is not JSON. */
export interface StrictJson {
  /** `gh (tool 'repo_view')`. */
  label: string;
  /** The tool is not read-only: the program exited 0, so a change it makes was made. */
  writes: boolean;
}

const QUOTED_CHARS = 200;

/** What a program's stdout that is not UTF-8 text is answered as, in place of corrupted text. */
export function binaryStdout(raw: ProcessResult): BinaryBody {
  return {
    binary: true,
    contentType: null,
    bytes: raw.stdoutBytes,
    hint: "stdout was not UTF-8 text (bytes such as an image, an archive or raw data), so it is not passed on: as text it would be corrupted. Ask the program for text instead: its base64 or hex output option, or a file it writes whose path you read.",
  };
}

/** "a binary stdout of 9 bytes (not UTF-8 text)": what a message says in place of quoting it. */
function describeBinaryStdout(raw: ProcessResult): string {
  return describeBinary(binaryStdout(raw), "stdout", "not UTF-8 text");
}

export function shapeResult(raw: ProcessResult, parse: "json" | "text", maxOutputBytes: number, redactor: Redactor, strict?: StrictJson): CliResult {
  if (raw.stdoutBinary && parse === "json" && strict) throw notJson(raw, maxOutputBytes, redactor, strict);
  // A stream cut at the cap may end with the first part of a secret: masked as such.
  let stdout: unknown = raw.stdoutBinary ? binaryStdout(raw) : raw.stdoutTruncated ? redactor.redactCut(raw.stdout) : raw.stdout;
  if (parse === "json" && raw.stdoutTruncated && strict) throw notJson(raw, maxOutputBytes, redactor, strict);
  if (parse === "json" && !raw.stdoutTruncated && !raw.stdoutBinary) {
    try {
      // Lossless: an id past 2^53 would come back silently rounded (12345678901234567000).
      stdout = parseJsonLossless(raw.stdout);
    } catch {
      if (strict) throw notJson(raw, maxOutputBytes, redactor, strict);
      // not JSON: returned as text (the runner's lenient parse)
    }
  }
  // The cut markers before the streams (see the module comment): key order is the JSON's order.
  const cut = raw.truncated ? { truncated: true as const, stdoutBytes: raw.stdoutBytes, stderrBytes: raw.stderrBytes, maxOutputBytes } : {};
  const signal = raw.exitCode === null && raw.signal ? { signal: raw.signal } : {};
  const result: CliResult = { exitCode: raw.exitCode ?? -1, ...signal, ...cut, stdout, stderr: raw.stderrTruncated ? redactor.redactCut(raw.stderr) : raw.stderr };
  return redactor.redactValue(result);
}

/**
 * A `parse: "json"` tool whose stdout cannot be read as JSON: cut at the output cap (say the cap
 * and how to get under it; the cut JSON is of no use), or not JSON at all (quote its start,
 * masked, and keep the whole masked text in the details, so nothing the program said is lost).
 */
function notJson(raw: ProcessResult, maxOutputBytes: number, redactor: Redactor, strict: StrictJson): CliError {
  const done = strict.writes ? " It exited 0, so a change it makes was made: check before running it again." : "";
  const stderr = raw.stderr ? { stderr: tail(masked(raw.stderr, raw.stderrTruncated, redactor)) } : {};
  if (raw.stdoutBinary) {
    return new CliError("UPSTREAM_ERROR", `${strict.label} answers JSON, but it wrote ${describeBinaryStdout(raw)}, which is not passed on.${done}`, {
      hint: "The program did not answer as the plugin expects (a different version, or a file's bytes in place of the data): tell the user; calling again the same way answers the same.",
      details: { exitCode: raw.exitCode, stdout: binaryStdout(raw), ...stderr },
    });
  }
  if (raw.stdoutTruncated) {
    return new CliError(
      "UPSTREAM_ERROR",
      `${strict.label} answers JSON, but its stdout (${raw.stdoutBytes} bytes) was cut at the adapter's maxOutputBytes (${maxOutputBytes} bytes), and cut JSON cannot be read.${done}`,
      {
        hint: `${ASK_FOR_LESS}; or raise "maxOutputBytes" in the plugin's cli adapter block above ${raw.stdoutBytes} bytes.`,
        details: { exitCode: raw.exitCode, stdoutBytes: raw.stdoutBytes, maxOutputBytes, ...stderr },
      },
    );
  }
  const stdout = redactor.redact(raw.stdout);
  const shown = stdout.trim();
  const quoted = !shown ? "it was empty" : shown.length > QUOTED_CHARS ? `it began: ${JSON.stringify(`${shown.slice(0, QUOTED_CHARS)}…`)}` : `it was: ${JSON.stringify(shown)}`;
  return new CliError("UPSTREAM_ERROR", `${strict.label} answers JSON, but its stdout was not JSON (${quoted}).${done}`, {
    hint: "The program did not answer as the plugin expects (a different version, or a message in place of the data): tell the user what it printed; calling again the same way answers the same.",
    details: { exitCode: raw.exitCode, stdout, ...stderr },
  });
}

/** A program that exited non-zero answered (git's "unknown revision", "nothing to commit"): not "the service failed" (own-error.ts). */
const EXITED_HINT = ownErrorHint("The program", "what it printed");

/**
 * The error for a program that exited non-zero or was ended by a signal it was not sent by us.
 * One ended by a signal did not answer: it keeps the generic hint (and a write, the runtime's
 * look-before-running-again one: stopped-run.ts).
 */
export function exitError(raw: ProcessResult, label: string, redactor: Redactor): CliError {
  const how = raw.exitCode !== null ? `exited with code ${raw.exitCode}` : `was ended by signal ${raw.signal ?? "?"}`;
  const stderr = tail(masked(raw.stderr, raw.stderrTruncated, redactor));
  const stdout = stderr ? "" : raw.stdoutBinary ? describeBinaryStdout(raw) : tail(masked(raw.stdout, raw.stdoutTruncated, redactor), 300);
  const detail = stderr ? `; stderr: ${stderr}` : stdout ? `; stdout: ${stdout}` : " (no output)";
  // A signal ended it mid-run: what it changes may be half done (cutOff), unlike a program that exited.
  return new CliError("UPSTREAM_ERROR", `${label} ${how}${detail}`, { exitCode: raw.exitCode, signal: raw.signal, stderr, cutOff: raw.exitCode === null, ...(raw.exitCode !== null ? { hint: EXITED_HINT } : {}) });
}

/** A stream's text masked, including a secret's beginning where the output cap cut it. */
export function masked(text: string, cut: boolean, redactor: Redactor): string {
  return cut ? redactor.redactCut(text) : redactor.redact(text);
}
