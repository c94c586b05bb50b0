import type { Redactor } from "../shared/redact.js";
import { CliError } from "./errors.js";
import type { ProcessResult } from "./process.js";

/**
 * What a call returns: `{ exitCode, stdout, stderr }`, plus `truncated: true` with the byte
 * counts and the cap when either stream was cut. stdout is parsed JSON when `parse` is "json" and
 * it parses (a cut stdout is returned as text). Everything is redacted.
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
  return trimmed.length > max ? `…${trimmed.slice(trimmed.length - max)}` : trimmed;
}

export function shapeResult(raw: ProcessResult, parse: "json" | "text", maxOutputBytes: number, redactor: Redactor): CliResult {
  // A stream cut at the cap may end with the first part of a secret: masked as such.
  let stdout: unknown = raw.stdoutTruncated ? redactor.redactCut(raw.stdout) : raw.stdout;
  if (parse === "json" && !raw.stdoutTruncated) {
    try {
      stdout = JSON.parse(raw.stdout) as unknown;
    } catch {
      // not JSON: returned as text
    }
  }
  const result: CliResult = { exitCode: raw.exitCode ?? -1, stdout, stderr: raw.stderrTruncated ? redactor.redactCut(raw.stderr) : raw.stderr };
  if (raw.exitCode === null && raw.signal) result.signal = raw.signal;
  if (raw.truncated) {
    result.truncated = true;
    result.stdoutBytes = raw.stdoutBytes;
    result.stderrBytes = raw.stderrBytes;
    result.maxOutputBytes = maxOutputBytes;
  }
  return redactor.redactValue(result);
}

/** The error for a program that exited non-zero or was ended by a signal it was not sent by us. */
export function exitError(raw: ProcessResult, label: string, redactor: Redactor): CliError {
  const how = raw.exitCode !== null ? `exited with code ${raw.exitCode}` : `was ended by signal ${raw.signal ?? "?"}`;
  const stderr = tail(masked(raw.stderr, raw.stderrTruncated, redactor));
  const stdout = stderr ? "" : tail(masked(raw.stdout, raw.stdoutTruncated, redactor), 300);
  const detail = stderr ? `; stderr: ${stderr}` : stdout ? `; stdout: ${stdout}` : " (no output)";
  return new CliError("UPSTREAM_ERROR", `${label} ${how}${detail}`, { exitCode: raw.exitCode, signal: raw.signal, stderr });
}

/** A stream's text masked, including a secret's beginning where the output cap cut it. */
export function masked(text: string, cut: boolean, redactor: Redactor): string {
  return cut ? redactor.redactCut(text) : redactor.redact(text);
}
