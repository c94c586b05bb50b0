import type { ErrorCode } from "../runtime/errors.js";

/**
 * The text layer's exit codes. They are stable: scripts in the sandbox and callers of
 * `agent_tools_exec` branch on them (`… || echo "needs --confirm"`). 124/126/127 are the shell's
 * own (just-bash follows GNU timeout and bash); the others are ours.
 */
export const EXIT = {
  OK: 0,
  /** The operation failed: the service answered with an error, or another failure. */
  FAILED: 1,
  /** The request was wrong: bad usage, unknown tool or skill, arguments that fail the schema. */
  USAGE: 2,
  /** A plugin or module is not configured: a variable or program is missing on the host. */
  NOT_CONFIGURED: 3,
  /** The tool changes data and `--confirm` was not given. */
  CONFIRM_REQUIRED: 4,
  /** The service did not answer in time. */
  UPSTREAM_TIMEOUT: 5,
  /** The same failing call was repeated; the loop breaker refused to run it again. */
  LOOP_DETECTED: 6,
  /** `load` named a path outside the runtime's commands/ folder. */
  LOAD_OUTSIDE_ROOT: 7,
  /** `load` found no module there, or the module does not follow the contract. */
  LOAD_FAILED: 8,
  /** The command line ran past its deadline, or the client cancelled the request. */
  DEADLINE: 124,
  /** A sandbox limit was hit (commands, loop iterations, output size, string length…). */
  LIMIT: 126,
  /** No such command in the sandbox. */
  NOT_FOUND: 127,
} as const;

/** The exit code for a runtime error code: one mapping for plugin and module commands. */
export function exitCodeFor(code: ErrorCode | string | undefined): number {
  switch (code) {
    case undefined:
      return EXIT.OK;
    case "CONFIRM_REQUIRED":
      return EXIT.CONFIRM_REQUIRED;
    case "NOT_CONFIGURED":
      return EXIT.NOT_CONFIGURED;
    case "MISSING_TOOL_NAME":
    case "UNKNOWN_TOOL":
    case "UNKNOWN_SKILL":
    case "ARG_VALIDATION_FAILED":
    case "EMPTY_COMMAND":
    case "UNKNOWN_FACADE_TOOL":
    case "UNKNOWN_PLUGIN":
      return EXIT.USAGE;
    case "UPSTREAM_TIMEOUT":
      return EXIT.UPSTREAM_TIMEOUT;
    case "LOOP_DETECTED":
      return EXIT.LOOP_DETECTED;
    default:
      return EXIT.FAILED;
  }
}

/** The table the README and `status` show. */
export const EXIT_TABLE: ReadonlyArray<{ code: number; meaning: string }> = [
  { code: EXIT.OK, meaning: "success" },
  { code: EXIT.FAILED, meaning: "the operation failed (the service answered with an error)" },
  { code: EXIT.USAGE, meaning: "bad usage: unknown tool/skill, arguments that fail the schema, malformed JSON or flags" },
  { code: EXIT.NOT_CONFIGURED, meaning: "not configured: a variable or program is missing on the host" },
  { code: EXIT.CONFIRM_REQUIRED, meaning: "the tool changes data: add --confirm" },
  { code: EXIT.UPSTREAM_TIMEOUT, meaning: "the service did not answer in time" },
  { code: EXIT.LOOP_DETECTED, meaning: "the same failing call was repeated; change it" },
  { code: EXIT.LOAD_OUTSIDE_ROOT, meaning: "load: the path leaves the runtime's commands/ folder" },
  { code: EXIT.LOAD_FAILED, meaning: "load: no such module, or it does not follow the module contract" },
  { code: EXIT.DEADLINE, meaning: "the command line ran past its deadline or was cancelled" },
  { code: EXIT.LIMIT, meaning: "a sandbox limit was hit (command count, loop iterations, output size…)" },
  { code: EXIT.NOT_FOUND, meaning: "no such command in the sandbox" },
];
