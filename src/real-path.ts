import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";

/** `p` with its symbolic links resolved, or `p` itself when it is missing or cannot be read. */
export function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** Links followed at most, as the kernel's own bound on a path's links (SYMLOOP_MAX). */
const MAX_LINKS = 40;

/**
 * Where a path lands on disk, also when it does not exist yet: its longest existing part resolved
 * and the rest appended, and a link that points at nothing followed to where its target would be.
 * So a file about to be written or moved is judged where it will be (`lnk/settings.json` with
 * `lnk` → `.claude` is `.claude/settings.json`), not by the name it is reached through.
 */
export function realOrNearest(p: string): string {
  let at = path.resolve(p);
  const rest: string[] = [];
  for (let links = 0; ; ) {
    try {
      return path.join(realpathSync(at), ...rest);
    } catch {
      // missing, or a link to nothing: look at it, then at its parent
    }
    let target: string | undefined;
    try {
      if (links < MAX_LINKS && lstatSync(at).isSymbolicLink()) target = readlinkSync(at);
    } catch {
      // not there at all
    }
    if (target !== undefined) {
      links++;
      at = path.resolve(path.dirname(at), target);
      continue;
    }
    const parent = path.dirname(at);
    if (parent === at) return path.join(at, ...rest);
    rest.unshift(path.basename(at));
    at = parent;
  }
}
