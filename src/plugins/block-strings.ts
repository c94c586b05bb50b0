import { isShellCommand } from "../adapters/shared/env-vars.js";

/**
 * Every string of a plugin's adapter block (or `requires`) with where it is: the settings the
 * runtime resolves `${VAR}`s in. A tool's `description` is prose, never resolved: skipped.
 */
export interface BlockString {
  segments: (string | number)[];
  value: string;
  /** An `args` string of a block whose `command` is a shell: a script, whose own `${…}` the shell reads. */
  shellScript?: true;
}

export function blockStrings(value: unknown, segments: (string | number)[] = [], shellScript = false): BlockString[] {
  if (typeof value === "string") return [{ segments, value, ...(shellScript ? { shellScript: true as const } : {}) }];
  if (Array.isArray(value)) return value.flatMap((item, i) => blockStrings(item, [...segments, i], shellScript));
  if (value !== null && typeof value === "object") {
    const shell = isShellCommand((value as { command?: unknown }).command);
    return Object.entries(value).flatMap(([key, item]) => (key === "description" ? [] : blockStrings(item, [...segments, key], shell && key === "args")));
  }
  return [];
}
