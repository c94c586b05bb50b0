import { headOf, tailOf } from "../runtime/argument-value.js";
import type { ErrorPayload } from "../runtime/errors.js";

/**
 * What `agent_tools_exec` answers, for every form of command: the exit code, stdout and stderr
 * (each cut at a cap, with an honest marker), the working directory afterwards, and for
 * `status`/`list`/`load` their report in `result`. `isError` is exactly `exitCode !== 0`.
 */

export interface ExecAnswer {
  ok: boolean;
  command: string;
  exitCode: number;
  stdout: string;
  stderr: string;
  cwd?: string;
  result?: unknown;
  stopped?: "deadline" | "cancelled" | "limit";
  /** Something the caller should know about the line that is no failure (what will not carry to the next call). */
  note?: string;
  truncated?: { stdout?: StreamCut; stderr?: StreamCut; note: string };
  error?: ErrorPayload;
}

export interface StreamCut {
  totalChars: number;
  shownChars: number;
}

/**
 * Each stream cut at `maxChars`, never between the two halves of a surrogate pair (an emoji):
 * a plain slice left a lone half at the cut, which shows as U+FFFD and some JSON readers refuse.
 * `shownChars` counts what is shown (one fewer when a pair was kept whole out of the cut).
 */
export function capStreams(answer: ExecAnswer, maxChars: number): ExecAnswer {
  const cut: NonNullable<ExecAnswer["truncated"]> = { note: "" };
  let out = answer.stdout;
  let err = answer.stderr;
  if (out.length > maxChars) {
    const head = headOf(out, maxChars); // the head of stdout: where a listing or a JSON document starts
    cut.stdout = { totalChars: out.length, shownChars: head.length };
    out = head;
  }
  if (err.length > maxChars) {
    const tail = tailOf(err, maxChars); // the tail of stderr: where the failure is
    cut.stderr = { totalChars: err.length, shownChars: tail.length };
    err = tail;
  }
  if (!cut.stdout && !cut.stderr) return answer;
  cut.note = `output was cut at ${maxChars} characters per stream; filter it in the sandbox instead (| head, | jq '…', | grep, or > file and read parts of it)`;
  return { ...answer, stdout: out, stderr: err, truncated: cut };
}

/** An exec answer in the shape the facade renders (errors and successes alike: `isError` follows the exit code). */
export function toExecResult(answer: ExecAnswer): { isError: boolean; payload: ExecAnswer } {
  return { isError: answer.exitCode !== 0, payload: answer };
}
