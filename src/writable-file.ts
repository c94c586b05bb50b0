import { accessSync, constants, mkdirSync, realpathSync, statfsSync, statSync } from "node:fs";
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
  const system = systemFolder(folder);
  if (system) return `cannot be created: it is ${system}, the kernel's view of the system, where no file can be kept`;
  return writable(folder) ? undefined : `cannot be created: ${folder} is not writable by this process`;
}

/** Linux's proc and sysfs filesystems, by their statfs type, wherever they are mounted. */
const SYSTEM_FILESYSTEMS = new Map([
  [0x9fa0, "proc"],
  [0x62656572, "sysfs"],
]);

/**
 * Where `folder` is, when it is in a kernel filesystem (/proc, /sys): "under /proc", "on a proc
 * filesystem (at /mnt/p)"; else undefined. Root may "write" there
 * (access(W_OK) says yes) but can create nothing, and Node 20's recursive mkdir under /proc never
 * returns: such a path must be refused before any folder is made.
 */
function systemFolder(folder: string): string | undefined {
  let real = folder;
  try {
    real = realpathSync(folder);
  } catch {
    // the folder's own name is all there is to go by
  }
  const top = /^\/(proc|sys)(?:\/|$)/.exec(real);
  if (top) return `under /${top[1]}`;
  try {
    const kind = SYSTEM_FILESYSTEMS.get(Number(statfsSync(real).type));
    return kind && `on a ${kind} filesystem (at ${real})`;
  } catch {
    return undefined;
  }
}

/**
 * Create the missing folders of `file` (a state or cache file a setting names), one at a time from
 * its nearest existing ancestor, so a path that cannot be made fails at once with the folder that
 * could not be: Node 20's `mkdirSync(…, { recursive: true })` loops for ever under /proc.
 */
export function createFoldersOf(file: string, mode?: number): void {
  const missing: string[] = [];
  let folder = path.dirname(file);
  while (!statOrUndefined(folder) && path.dirname(folder) !== folder) {
    missing.unshift(folder);
    folder = path.dirname(folder);
  }
  for (const one of missing) {
    try {
      mkdirSync(one, mode === undefined ? {} : { mode });
    } catch (error) {
      // Another process made it meanwhile.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
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
