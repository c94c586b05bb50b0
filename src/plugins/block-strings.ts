import { isShellCommand } from "../adapters/shared/env-vars.js";

/**
 * Every string of a plugin's adapter block (or `requires`) with where it is: the settings the
 * runtime resolves `${VAR}`s in. A tool's `description` is prose, never resolved: skipped.
 */
export interface BlockString {
  segments: (string | number)[];
  value: string;
  /** An `args` string of a block whose `command` is a shell, or an `argv` string of a cli block whose `program` is one: a script, whose own `${…}` the shell reads. */
  shellScript?: true;
}

/**
 * `shellProgram`: the block is a cli block whose `program` is a shell (`sh`), so each tool's
 * `argv` (and `optional` items) is what the shell is given: a script, as an mcp block's `args`
 * under a shell `command` is.
 */
export function blockStrings(value: unknown, segments: (string | number)[] = [], shellScript = false, shellProgram = false): BlockString[] {
  if (typeof value === "string") return [{ segments, value, ...(shellScript ? { shellScript: true as const } : {}) }];
  if (Array.isArray(value)) return value.flatMap((item, i) => blockStrings(item, [...segments, i], shellScript, shellProgram));
  if (value !== null && typeof value === "object") {
    const block = value as { command?: unknown; program?: unknown };
    const shell = isShellCommand(block.command);
    const program = shellProgram || isShellCommand(block.program);
    return Object.entries(value).flatMap(([key, item]) =>
      key === "description" ? [] : blockStrings(item, [...segments, key], shellScript || (shell && key === "args") || (program && (key === "argv" || key === "optional")), program),
    );
  }
  return [];
}
