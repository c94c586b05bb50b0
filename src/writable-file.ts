import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";

/**
 * Why this process could not write `file`, or undefined when it could. Nothing is created: the file
 * must be a regular file this process may write, or not exist yet under a folder (or the nearest
 * existing ancestor of one) it may write. Used at start for the files a setting names (the audit
 * log, the embedded memory file), so a wrong path is said with its setting's name up front rather
 * than failing each use later. A full disk is only found by writing.
 */
export function whyNotWritableFile(file: string): string | undefined {
  const existing = statOrUndefined(file);
  if (existing) {
    if (existing.isDirectory()) return "is a folder, not a file";
    if (!existing.isFile()) return "is not a regular file";
    return writable(file) ? undefined : "cannot be written by this process";
  }
  let folder = path.dirname(file);
  let found = statOrUndefined(folder);
  while (!found && path.dirname(folder) !== folder) found = statOrUndefined((folder = path.dirname(folder)));
  if (!found?.isDirectory()) return `cannot be created: ${folder} is not a folder`;
  return writable(folder) ? undefined : `cannot be created: ${folder} is not writable by this process`;
}

function statOrUndefined(file: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

function writable(file: string): boolean {
  try {
    accessSync(file, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
