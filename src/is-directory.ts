import { statSync } from "node:fs";

/**
 * Whether `p` is a folder. False, not an error, when it is missing or cannot be read: callers use
 * it to skip a plugin location or a filesystem root that is not there.
 */
export function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Why `dir` is not a folder ("does not exist", "is not a folder"), or undefined when it is one; one stat. */
export function whyNotAFolder(dir: string): string | undefined {
  let stats;
  try {
    stats = statSync(dir, { throwIfNoEntry: false });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // throwIfNoEntry only spares ENOENT: a path through a file is just as absent, not unreadable.
    if (code === "ENOTDIR") return "does not exist (a part of the path is a file)";
    return `cannot be read (${code ?? (error as Error).message})`;
  }
  if (!stats) return "does not exist";
  return stats.isDirectory() ? undefined : "is not a folder";
}
