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
    // Looked at before it is resolved: a missing path is the common case here (a file about to be
    // made), and a failed realpath throws, which costs more than the look (a move walks thousands).
    let stat;
    try {
      stat = lstatSync(at, { throwIfNoEntry: false });
    } catch {
      // through a file (ENOTDIR), or not readable: taken as it is written
      return path.join(at, ...rest);
    }
    if (stat) {
      try {
        return path.join(realpathSync.native(at), ...rest);
      } catch {
        // a link to nothing, followed below; anything else is taken as it is written
      }
      if (!stat.isSymbolicLink() || links >= MAX_LINKS) return path.join(at, ...rest);
      links++;
      try {
        at = path.resolve(path.dirname(at), readlinkSync(at));
      } catch {
        return path.join(at, ...rest);
      }
      continue;
    }
    const parent = path.dirname(at);
    if (parent === at) return path.join(at, ...rest);
    rest.unshift(path.basename(at));
    at = parent;
  }
}
