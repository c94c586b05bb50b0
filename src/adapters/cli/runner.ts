import { silentLogger } from "../../log.js";
import { loneSurrogateProblem } from "../shared/lone-surrogate.js";
import { createRedactor } from "../shared/redact.js";
import type { Logger } from "../types.js";
import { ALLOWLIST_VARIABLE, parseAllowlist, resolveAllowedProgram } from "./allowlist.js";
import { baseEnv } from "./child-env.js";
import { CliError } from "./errors.js";
import { runProcess } from "./process.js";
import { exitError, shapeResult, type CliResult } from "./result.js";
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS } from "./spec.js";

/**
 * A small runner for the text layer (`commands/local-cli`): programs allowlisted by the host's
 * AGENT_CLI_ALLOWLIST (comma or space separated) run with the given argv, without a shell, in the
 * minimal base environment (no host secrets, no caller-chosen variables: LD_PRELOAD and the like
 * cannot be injected). A non-zero exit is returned as a value (`exitCode`), as a shell would;
 * pass `check: true` to throw UPSTREAM_ERROR instead. Timeouts throw UPSTREAM_TIMEOUT.
 */

export interface CliRunOptions {
  cwd?: string;
  timeoutMs?: number;
  maxOutputBytes?: number;
  signal?: AbortSignal;
  /** Written to the program's stdin. */
  input?: string;
  /** Parse stdout as JSON when it parses. */
  parse?: "json" | "text";
  /** Throw CliError UPSTREAM_ERROR on a non-zero exit. */
  check?: boolean;
}

export interface CliRunner {
  /** The entries of AGENT_CLI_ALLOWLIST. */
  readonly allowlist: readonly string[];
  /** True when `program` is allowlisted and found on PATH. */
  allowed(program: string): boolean;
  run(program: string, args: readonly string[], options?: CliRunOptions): Promise<CliResult>;
}

export function cliRunnerFromEnv(env: NodeJS.ProcessEnv = process.env, defaults: { log?: Logger; timeoutMs?: number; maxOutputBytes?: number; killGraceMs?: number } = {}): CliRunner {
  const allowlist = parseAllowlist(env[ALLOWLIST_VARIABLE]);
  if (allowlist.length === 0) {
    throw new CliError("NOT_CONFIGURED", `the CLI runner needs $${ALLOWLIST_VARIABLE} (the programs it may run, comma or space separated, e.g. "git,jq"), which is not set on the host`, {
      variables: [ALLOWLIST_VARIABLE],
    });
  }
  const log = defaults.log ?? silentLogger;
  const redactor = createRedactor();
  const resolve = (program: string): string => resolveAllowedProgram(program, { env });
  return {
    allowlist,
    allowed(program) {
      try {
        resolve(program);
        return true;
      } catch {
        return false;
      }
    },
    async run(program, args, options = {}) {
      const file = resolve(String(program));
      if (!Array.isArray(args)) throw new CliError("ARG_VALIDATION_FAILED", "args must be an array of strings");
      const argv = args.map((arg, i) => {
        if (typeof arg !== "string") throw new CliError("ARG_VALIDATION_FAILED", `args[${i}] must be a string`, { argument: `args[${i}]` });
        if (arg.includes("\0")) throw new CliError("ARG_VALIDATION_FAILED", `args[${i}] holds a NUL byte`, { argument: `args[${i}]` });
        const unsendable = loneSurrogateProblem(arg);
        if (unsendable) throw new CliError("ARG_VALIDATION_FAILED", `args[${i}] ${unsendable}`, { argument: `args[${i}]` });
        return arg;
      });
      const maxOutputBytes = options.maxOutputBytes ?? defaults.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
      log.debug(`cli runner: ${file}`, { argc: argv.length });
      const raw = await runProcess(file, argv, {
        cwd: options.cwd,
        env: baseEnv(env),
        timeoutMs: options.timeoutMs ?? defaults.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        maxOutputBytes,
        signal: options.signal,
        input: options.input,
        killGraceMs: defaults.killGraceMs,
        label: program,
      });
      if (options.check && raw.exitCode !== 0) {
        throw exitError(raw, program, redactor);
      }
      return shapeResult(raw, options.parse ?? "text", maxOutputBytes, redactor);
    },
  };
}
