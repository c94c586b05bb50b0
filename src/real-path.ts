import { realpathSync } from "node:fs";

/** `p` with its symbolic links resolved, or `p` itself when it is missing or cannot be read. */
export function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
