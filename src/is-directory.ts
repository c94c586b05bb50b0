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
