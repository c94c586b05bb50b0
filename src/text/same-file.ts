import { statSync } from "node:fs";
import path from "node:path";

/**
 * A file told by what it is on disk, its device and inode, not by its path: a hard link to the
 * config file made inside the mounted folder has a path of its own and the very same bytes, and
 * only this says they are one file (hidden-files-fs.ts hides it as it hides the config's path).
 */
export interface FileIdentity {
  dev: bigint;
  ino: bigint;
}

/** The identity of the file at `file` (a symlink followed), or undefined when there is none to read. */
export function fileIdentity(file: string): FileIdentity | undefined {
  try {
    const stat = statSync(file, { bigint: true });
    return stat.isFile() ? { dev: stat.dev, ino: stat.ino } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a path of the mount (`/conf/x.json`, as the sandbox names it under `root`) is, on disk,
 * one of `files`. A path that is only in the sandbox's memory (written there) is on no disk: not
 * one of them. One stat per look: the price of telling a hard link apart, paid only when a file is hidden this way.
 */
export function sameFileOnDisk(root: string, files: readonly FileIdentity[]): ((mountPath: string) => boolean) | undefined {
  if (!files.length) return undefined;
  return (mountPath) => {
    const found = fileIdentity(path.join(root, mountPath));
    return !!found && files.some((file) => file.dev === found.dev && file.ino === found.ino);
  };
}
