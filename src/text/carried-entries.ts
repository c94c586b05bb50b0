/**
 * The one rule for moving or copying a folder past the credential-file rule, shared by the
 * /workdir mount (hidden-files-fs.ts) and the filesystem plugin (adapters/filesystem/guard.ts).
 *
 * A folder moved from `source` to `destination` carries every entry in it from
 * `source/<relative>` to `destination/<relative>`. The hidden rule is one of paths (a client config
 * is hidden by its folder's name, the config file by its path), so a path that changes can change
 * what is hidden: an entry hidden where it is and not where it goes would be shown (`.cursor`
 * renamed `cur` serves `cur/mcp.json`), and one not hidden where it is but hidden where it goes
 * would be planted where no write may reach (`stage/settings.json` carried to
 * `.claude/settings.json`, a Claude Code settings file whose hooks run on the host). Either is
 * refused. An entry hidden at both paths stays hidden (a `.env` anywhere, `.cursor/mcp.json`
 * deeper down, whose folder keeps its name), and so does everything below it: it is not walked.
 */

/** What the walk reads of a tree: entry names, and each entry's kind without following a link (a link is moved as itself). */
export interface TreeReader {
  readdir(dir: string): Promise<string[]>;
  lstat(path: string): Promise<{ isDirectory: boolean; isSymbolicLink: boolean }>;
}

/**
 * Why a folder may not be carried: `entry` is the path below the folder (`mcp.json`,
 * `inner/settings.json`). `shown`: hidden now, not at its new path; `planted`: the reverse;
 * `link`: a symbolic link, where the caller cannot carry links (`hidden`: hidden at either path,
 * so not to be named); `too-many`: more than `limit` entries, more than is walked before a move.
 */
export type CarryRefusal =
  | { kind: "shown" | "planted"; entry: string }
  | { kind: "link"; entry: string; hidden: boolean }
  | { kind: "too-many"; limit: number };

/**
 * The most entries walked for one move or copy. Past it the move is refused rather than walked
 * further: a call must not hang on a huge tree (node_modules), and a tree left unwalked is not
 * known to be safe to carry.
 */
export const CARRY_WALK_LIMIT = 10_000;

export interface CarryOptions {
  /** Whether a path (as `source`/`destination` are spelt, joined with `/`) is hidden. */
  hidden: (path: string) => boolean;
  /** Refuse any symbolic link in the tree (the /workdir overlay cannot carry one). */
  refuseLinks?: boolean;
  limit?: number;
}

function join(dir: string, name: string): string {
  return `${dir.replace(/[\\/]+$/, "")}/${name}`;
}

/** The first entry of the folder `source` that may not be carried to `destination`, or undefined when all may. */
export async function carryRefusal(tree: TreeReader, source: string, destination: string, options: CarryOptions): Promise<CarryRefusal | undefined> {
  const limit = options.limit ?? CARRY_WALK_LIMIT;
  let seen = 0;
  // Relative paths of the folders still to read, depth first.
  const pending: string[] = [""];
  while (pending.length > 0) {
    const folder = pending.pop() as string;
    for (const name of await tree.readdir(folder === "" ? source : join(source, folder))) {
      if (++seen > limit) return { kind: "too-many", limit };
      const entry = folder === "" ? name : `${folder}/${name}`;
      const now = options.hidden(join(source, entry));
      const then = options.hidden(join(destination, entry));
      const stat = await tree.lstat(join(source, entry));
      if (stat.isSymbolicLink && options.refuseLinks) return { kind: "link", entry, hidden: now || then };
      if (now !== then) return { kind: now ? "shown" : "planted", entry };
      if (!now && stat.isDirectory && !stat.isSymbolicLink) pending.push(entry);
    }
  }
  return undefined;
}
