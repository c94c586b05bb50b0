import { spawn } from "node:child_process";
import { signalGroup, trackGroup, untrackGroup } from "../shared/process-groups.js";
import { CliError } from "./errors.js";

/**
 * Run one program: `spawn` with no shell (argv items reach the program as they are), stdin closed
 * unless `input` is given, in its own process group so a timeout or abort kills the program and
 * everything it started. Output is collected up to `maxOutputBytes` per stream; the rest is read
 * and counted but dropped, and `truncated` says so. When the program exits, what it left running
 * in its group is killed, so a stray background child cannot hold the pipes open.
 *
 * Throws CliError UPSTREAM_TIMEOUT on timeout, UPSTREAM_TIMEOUT or UPSTREAM_ERROR on abort
 * (depending on the abort reason), UPSTREAM_ERROR when the program cannot be started. A non-zero
 * exit is a normal result here; callers decide what it means.
 */

export interface ProcessOptions {
  cwd?: string;
  /** The complete child environment (see child-env.ts). */
  env: Record<string, string>;
  timeoutMs: number;
  /** Per stream (stdout, stderr). */
  maxOutputBytes: number;
  signal?: AbortSignal;
  /** Written to stdin, which is then closed. Without it stdin is /dev/null. */
  input?: string;
  /** After SIGTERM, how long before SIGKILL (default 1000 ms). */
  killGraceMs?: number;
  /** A name for messages ("gh repo_view"). */
  label?: string;
}

export interface ProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** The program's stdout as text; "" when it was not UTF-8 (`stdoutBinary`). */
  stdout: string;
  /**
   * stdout was not valid UTF-8 (an image, an archive, raw bytes): decoded, each bad byte would be
   * U+FFFD and the answer corrupted data passed on as output, so it is left out (binary-body.ts).
   */
  stdoutBinary: boolean;
  /** stderr is text for people: a byte that is not UTF-8 is shown as U+FFFD. */
  stderr: string;
  /** Total bytes the program wrote to each stream (including any that were cut). */
  stdoutBytes: number;
  stderrBytes: number;
  truncated: boolean;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  pid: number | undefined;
  durationMs: number;
}

export const DEFAULT_KILL_GRACE_MS = 1000;

/** Drop an incomplete UTF-8 sequence at the end of `buffer` (left by a cut). */
export function trimPartialUtf8(buffer: Buffer): Buffer {
  let lead = buffer.length - 1;
  while (lead >= 0 && buffer.length - lead <= 3 && ((buffer[lead] ?? 0) & 0xc0) === 0x80) lead -= 1;
  if (lead < 0) return buffer;
  const byte = buffer[lead] ?? 0;
  const need = byte < 0x80 ? 1 : byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
  return lead + need > buffer.length ? buffer.subarray(0, lead) : buffer;
}

class Collector {
  readonly #max: number;
  readonly #chunks: Buffer[] = [];
  #kept = 0;
  total = 0;
  constructor(max: number) {
    this.#max = max;
  }
  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.#kept >= this.#max) return;
    const room = this.#max - this.#kept;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.#chunks.push(part);
    this.#kept += part.length;
  }
  get truncated(): boolean {
    return this.total > this.#max;
  }
  #bytes(): Buffer {
    const all = Buffer.concat(this.#chunks);
    // When cut, drop a partial UTF-8 sequence at the cut: it is the cut's, not the program's.
    return this.truncated ? trimPartialUtf8(all) : all;
  }
  /** The bytes kept as text, a byte that is not UTF-8 as U+FFFD (stderr, read by people). */
  text(): string {
    return this.#bytes().toString("utf8");
  }
  /** The bytes kept as text, or undefined when they are not valid UTF-8 (binary output). */
  exactText(): string | undefined {
    try {
      return STRICT_UTF8.decode(this.#bytes());
    } catch {
      return undefined;
    }
  }
}

/** Fails on a byte sequence that is not UTF-8; keeps a leading BOM, as toString("utf8") does. */
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid !== undefined) signalGroup(pid, signal);
}

function abortError(reason: unknown, label: string): CliError {
  const code = reason && typeof reason === "object" ? (reason as { code?: unknown }).code : undefined;
  const isTimeout = code === "UPSTREAM_TIMEOUT" || (reason instanceof Error && reason.name === "TimeoutError");
  return isTimeout
    ? new CliError("UPSTREAM_TIMEOUT", `${label} was stopped: the call's deadline passed`)
    : new CliError("UPSTREAM_ERROR", `${label} was cancelled`);
}

export function runProcess(file: string, args: readonly string[], options: ProcessOptions): Promise<ProcessResult> {
  const label = options.label ?? file;
  const grace = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  return new Promise<ProcessResult>((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(abortError(options.signal.reason, label));
      return;
    }
    const started = Date.now();
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(file, [...args], {
        cwd: options.cwd,
        env: options.env,
        shell: false,
        detached: true, // own process group: kill(-pid) reaches what the program starts
        windowsHide: true,
        stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      });
    } catch (error) {
      reject(new CliError("UPSTREAM_ERROR", `${label} could not be started: ${(error as Error).message}`));
      return;
    }
    // Tracked until it closes, so a runtime that exits mid-call takes the program's group with it.
    const pid = child.pid;
    if (pid !== undefined) trackGroup(pid);
    const stdout = new Collector(options.maxOutputBytes);
    const stderr = new Collector(options.maxOutputBytes);
    child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
    if (options.input !== undefined && child.stdin) {
      child.stdin.on("error", () => undefined); // EPIPE when the program does not read stdin
      child.stdin.end(options.input);
    }

    let stopped: CliError | undefined;
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;
    let forceTimer: NodeJS.Timeout | undefined;

    const cleanup = (): void => {
      if (pid !== undefined) untrackGroup(pid);
      clearTimeout(deadline);
      clearTimeout(killTimer);
      clearTimeout(forceTimer);
      options.signal?.removeEventListener("abort", onAbort);
    };
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null): void => {
      if (settled) return;
      settled = true;
      cleanup();
      if (stopped) {
        reject(stopped);
        return;
      }
      const stdoutText = stdout.exactText();
      resolve({
        exitCode,
        signal,
        stdout: stdoutText ?? "",
        stdoutBinary: stdoutText === undefined,
        stderr: stderr.text(),
        stdoutBytes: stdout.total,
        stderrBytes: stderr.total,
        truncated: stdout.truncated || stderr.truncated,
        stdoutTruncated: stdout.truncated,
        stderrTruncated: stderr.truncated,
        pid: child.pid,
        durationMs: Date.now() - started,
      });
    };
    const stop = (error: CliError): void => {
      if (stopped || settled) return;
      stopped = error;
      killGroup(child.pid, "SIGTERM");
      killTimer = setTimeout(() => killGroup(child.pid, "SIGKILL"), grace);
      // Should a process outside the group still hold a pipe, do not wait for it forever.
      forceTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish(null, "SIGKILL");
      }, grace + 1000);
    };
    const onAbort = (): void => stop(abortError(options.signal?.reason, label));
    const deadline = setTimeout(() => stop(new CliError("UPSTREAM_TIMEOUT", `${label} did not finish within ${options.timeoutMs} ms and was killed`)), options.timeoutMs);
    options.signal?.addEventListener("abort", onAbort, { once: true });

    child.on("error", (error: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      cleanup();
      killGroup(child.pid, "SIGKILL");
      const where = error.code === "ENOENT" && options.cwd !== undefined ? ` (is the working directory ${options.cwd} there?)` : "";
      reject(new CliError("UPSTREAM_ERROR", `${label} could not be started: ${error.code ?? error.message}${where}`));
    });
    child.on("exit", () => {
      // The program is done; whatever it left in its group goes too (and releases the pipes).
      killGroup(child.pid, "SIGKILL");
    });
    child.on("close", (code, signal) => finish(code, signal));
  });
}
