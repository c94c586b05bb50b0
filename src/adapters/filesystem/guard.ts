import { lstat, readdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { realOrNearest, realOrSelf } from "../../real-path.js";
import { carryRefusal, type CarryRefusal, type TreeReader } from "../../text/carried-entries.js";
import { isHiddenInFolder, isHiddenName, isHiddenSegments } from "../../text/hidden-files-fs.js";

/**
 * The credential-file rule of the text layer's /workdir mount (`isHiddenSegments`, one rule shared
 * by both) applied to a filesystem MCP server running on the host: path arguments naming a
 * hidden file are refused before the server sees them, and listings (list_directory,
 * directory_tree, search_files…) come back without hidden entries. Symlinks are followed on the
 * host, so `notes -> .env` is refused too.
 */

/** Argument names the reference filesystem server (and most others) use for paths. */
const PATH_ARGUMENTS = ["path", "paths", "source", "destination"] as const;

/**
 * Kernel filesystems: every folder in them is refused. Their files are made up by the kernel
 * (/proc/<pid>/environ is a process's environment, /dev/zero never ends), not a project's.
 */
export const KERNEL_FOLDERS = ["/proc", "/sys", "/dev"];
/**
 * System folders refused with everything below them, as the kernel's are: the system's settings
 * and keys (/etc/ssh, /etc/shadow; /private/etc on macOS), the boot files, and the secrets a
 * container is given (/run/secrets, Kubernetes' /var/run/secrets). No project lives there.
 */
const SYSTEM_TREES = ["/etc", "/private/etc", "/boot", "/run/secrets", "/var/run/secrets"];
/**
 * The system's own folders (Linux and macOS, where /etc and /var are /private/…): refused as
 * themselves, not the folders below them (a project may live in /opt/app or /var/www).
 */
const SYSTEM_FOLDERS = new Set(["/bin", "/boot", "/etc", "/home", "/lib", "/lib64", "/opt", "/root", "/run", "/sbin", "/srv", "/usr", "/var", "/private", "/private/etc", "/private/var", "/Users", "/Library", "/System", "/Applications", "/Volumes"]);

/**
 * The shared temp folders: every user and program keeps files there (a running agent's socket,
 * another process's temp file holding a token), none of them a project's. Refused as themselves,
 * not the folders below them: a folder made for one project under /tmp (mkdtemp) is served.
 * os.tmpdir() is where this host's programs put theirs (TMPDIR; /var/folders/…/T on macOS).
 */
const SHARED_TEMP_FOLDERS = ["/tmp", "/var/tmp", "/dev/shm"];

/**
 * The user's runtime folders: XDG_RUNTIME_DIR, on Linux /run/user/<uid> (and /run/user, which
 * holds every user's). The session's agents keep their sockets there (ssh-agent, gpg-agent,
 * D-Bus, the keyring): a sandbox given that folder could sign with the user's keys or talk to the
 * session bus. Refused as themselves, like the shared temp folders.
 */
const USER_RUNTIME_FOLDER = /^\/run\/user(\/\d+)?$/;

function isUserRuntimeFolder(real: string): boolean {
  if (USER_RUNTIME_FOLDER.test(real)) return true;
  const xdg = process.env.XDG_RUNTIME_DIR;
  return xdg !== undefined && path.isAbsolute(xdg) && realOrSelf(path.resolve(xdg)) === real;
}

function sharedTempFolders(): Set<string> {
  return new Set([...SHARED_TEMP_FOLDERS, "/run/shm", os.tmpdir()].map((folder) => realOrSelf(path.resolve(folder))));
}

/**
 * The folders a filesystem server (and the text layer's /workdir mount) must never serve whole:
 * the disk's root, the home folder (or a parent of it), a shared temp folder, a system folder and
 * anything in a kernel filesystem. The reason, as words that follow the folder's name, or
 * undefined when it may be served.
 */
export function unsafeRoot(dir: string, home: string = os.homedir()): string | undefined {
  const real = realOrSelf(path.resolve(dir));
  if (path.parse(real).root === real) return `${real} is the root of the disk`;
  // Before the home and kernel folders: what /tmp or /dev/shm is (and holds) is the reason to tell,
  // also where the home folder is a folder made under /tmp.
  if (sharedTempFolders().has(real)) return `${real} is a shared temp folder (${SHARED_TEMP_FOLDERS.join(", ")}, TMPDIR), where other users and programs keep their files (sockets, temp files holding tokens)`;
  if (isUserRuntimeFolder(real)) return `${real} is a user's runtime folder (/run/user/<uid>, XDG_RUNTIME_DIR), where the session's agents keep their sockets (ssh-agent, gpg-agent, D-Bus)`;
  const realHome = realOrSelf(home);
  const relative = path.relative(real, realHome);
  if (relative === "") return `${real} is the home folder`;
  if (!relative.startsWith("..") && !path.isAbsolute(relative)) return `${real} holds the home folder ${realHome}`;
  const within = (folders: readonly string[]): boolean => folders.some((k) => real === k || real.startsWith(`${k}/`));
  if (within(KERNEL_FOLDERS)) return `${real} is in a kernel filesystem (${KERNEL_FOLDERS.join(", ")})`;
  if (within(SYSTEM_TREES)) return `${real} is in a system folder whose whole tree is never served (${SYSTEM_TREES.join(", ")})`;
  if (SYSTEM_FOLDERS.has(real)) return `${real} is a system folder`;
  return undefined;
}

function segments(p: string): string[] {
  return p.split(/[\\/]+/).filter(Boolean);
}

/**
 * Why a call is refused: `hidden` are the hidden paths it names or would carry (each as the call
 * spells it); `tooMany` is set when a folder it would move was too large to check.
 */
export interface FilesystemRefusal {
  hidden: string[];
  message: string;
  tooMany?: number;
}

export interface FilesystemGuard {
  /**
   * Why a tool call may not go through, or undefined: a path argument naming a hidden file, or
   * (a move or copy, `source` and `destination`) a folder whose entries would be shown or hidden by
   * their new paths (carried-entries.ts, the rule the /workdir mount uses).
   */
  refusal(args: Readonly<Record<string, unknown>>): Promise<FilesystemRefusal | undefined>;
  /** A listing's text without the lines that name hidden files; `listed` is the folder listed (the call's `path`), which the entries are in. */
  filterText(text: string, listed?: unknown): string;
}

export function createFilesystemGuard(roots: readonly string[], extraHidden: readonly string[] = []): FilesystemGuard {
  const realRoots = roots.map((r) => realOrSelf(path.resolve(r)));
  const hiddenFiles = new Set(extraHidden.map((f) => realOrNearest(path.resolve(f))));
  const home = os.homedir();

  /** The paths on disk a path argument may name: itself when absolute (`~` expanded), else below each root, as the server resolves it. */
  function candidatesOf(requested: string): string[] {
    const expanded = requested === "~" || requested.startsWith("~/") ? path.join(home, requested.slice(1)) : requested;
    return path.isAbsolute(expanded) ? [path.resolve(expanded)] : realRoots.map((root) => path.resolve(root, expanded));
  }

  function hiddenPath(requested: string): boolean {
    if (isHiddenSegments(segments(requested))) return true;
    for (const candidate of candidatesOf(requested)) {
      // Where it lands on disk, also when it is not there yet: a file about to be written or moved
      // through a link (`lnk/settings.json`, `lnk` → `.claude`) is judged where it will be.
      const real = realOrNearest(candidate);
      if (hiddenFiles.has(real) || hiddenFiles.has(candidate)) return true;
      // Judge only the part below the served root: a project kept under ~/.secrets/work is still served.
      // The root's own name leads: with ~/.cursor served, its mcp.json is `.cursor/mcp.json`.
      for (const root of realRoots) {
        const below = path.relative(root, real);
        if (below.startsWith("..") || path.isAbsolute(below)) continue;
        const named = segments(below);
        if (isHiddenSegments(named) || isHiddenInFolder(path.basename(root), named[0] ?? "")) return true;
      }
    }
    return false;
  }

  /**
   * The names the folder a listing is of may have (for `.cursor/mcp.json`): the last segment of
   * `listed` resolved (`./.cursor/.` is `.cursor`, `.` is the root's own name), against each root
   * when it is relative.
   */
  function listedFolderNames(listed: unknown): string[] {
    if (typeof listed !== "string") return [];
    return [...new Set(candidatesOf(listed).map((p) => path.basename(realOrSelf(p))))];
  }

  /** A tree's entries without hidden ones; `folders` are the names the folder that holds them may have. */
  function filterTree(value: unknown, folders: readonly string[]): unknown {
    if (!Array.isArray(value)) return value;
    return value
      .filter((entry: unknown) => {
        const name = entry && typeof entry === "object" ? (entry as { name?: unknown }).name : undefined;
        return !(typeof name === "string" && (isHiddenName(name) || folders.some((folder) => isHiddenInFolder(folder, name))));
      })
      .map((entry: unknown) => {
        if (entry && typeof entry === "object" && Array.isArray((entry as { children?: unknown }).children)) {
          const { name, children } = entry as { name?: unknown; children: unknown[] };
          return { ...(entry as object), children: filterTree(children, typeof name === "string" ? [name] : []) };
        }
        return entry;
      });
  }

  /** A listing line names a hidden file: a hidden word, or a client config after its folder (in a path, or as the listed folder's entry). */
  function hiddenLine(line: string, folders: readonly string[]): boolean {
    const words = line.split(/[\s\\/]+/).filter((word) => word !== "");
    return isHiddenSegments(words) || words.some((word) => folders.some((folder) => isHiddenInFolder(folder, word)));
  }

  /**
   * What a move (or copy) of the folder `source` to `destination` would carry to a path where its
   * hidden-ness changes. Each path the server may take `source` for that is a folder is walked (a
   * link to a folder too: the server moves what a path resolves to); entries are judged by the
   * paths as the call spells them, so the per-folder rules see the names the call gives.
   */
  async function carried(source: string, destination: string): Promise<CarryRefusal | undefined> {
    for (const folder of candidatesOf(source)) {
      if (!(await lstat(realOrSelf(folder)).then((stat) => stat.isDirectory(), () => false))) continue;
      // The spelt path of an entry below `source`, as a path on disk: below the same root as `folder`.
      const onDisk = (spelt: string): string => path.join(folder, spelt.slice(source.replace(/[\\/]+$/, "").length));
      const tree: TreeReader = {
        readdir: (dir) => readdir(onDisk(dir)),
        lstat: async (entry) => {
          const stat = await lstat(onDisk(entry));
          return { isDirectory: stat.isDirectory(), isSymbolicLink: stat.isSymbolicLink() };
        },
      };
      const refused = await carryRefusal(tree, source, destination, { hidden: hiddenPath });
      if (refused) return refused;
    }
    return undefined;
  }

  function carryMessage(refused: CarryRefusal, source: string, destination: string): FilesystemRefusal {
    if (refused.kind === "too-many") {
      return {
        hidden: [],
        tooMany: refused.limit,
        message: `Access denied - '${source}' holds more than ${refused.limit} files and folders, more than are checked for hidden files before it is moved; move its sub-folders (or files) one by one instead`,
      };
    }
    // No link is refused here (`refuseLinks` is the overlay's): on the host a link is moved as itself.
    const { entry } = refused;
    const from = `${source.replace(/[\\/]+$/, "")}/${entry}`;
    const to = `${destination.replace(/[\\/]+$/, "")}/${entry}`;
    return refused.kind === "shown"
      ? {
          hidden: [from],
          message: `Access denied - '${source}' holds '${from}', which is hidden (it commonly holds credentials), and moved to '${to}' it would no longer be: a hidden file keeps its path; move the other files one by one instead`,
        }
      : {
          hidden: [to],
          message: `Access denied - moving '${source}' to '${destination}' would put '${from}' at '${to}', a path this plugin never writes (files there commonly hold credentials or a client's settings, such as hooks that run commands); choose another destination`,
        };
  }

  return {
    async refusal(args) {
      const named: string[] = [];
      for (const key of PATH_ARGUMENTS) {
        const value = args[key];
        if (typeof value === "string") named.push(value);
        else if (Array.isArray(value)) for (const item of value) if (typeof item === "string") named.push(item);
      }
      const hidden = named.filter(hiddenPath);
      if (hidden.length > 0) {
        return {
          hidden,
          message: `Access denied - ${hidden.map((p) => `'${p}'`).join(", ")} ${hidden.length > 1 ? "are" : "is"} hidden: files that commonly hold credentials (.env, keys, .git, .npmrc, the agent-tools config and the env files it names, MCP client configs such as .mcp.json…) are not served by this plugin`,
        };
      }
      const { source, destination } = args;
      if (typeof source !== "string" || typeof destination !== "string") return undefined;
      let refused: CarryRefusal | undefined;
      try {
        refused = await carried(source, destination);
      } catch (error) {
        // A folder that cannot be read cannot be told safe to carry.
        const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        return { hidden: [], message: `Access denied - '${source}' could not be read to the end (${code}) to check it holds no hidden file before it is moved; move the files in it one by one instead` };
      }
      return refused ? carryMessage(refused, source, destination) : undefined;
    },
    filterText(text, listed) {
      const folders = listedFolderNames(listed);
      const trimmed = text.trim();
      if (trimmed.startsWith("[")) {
        try {
          return JSON.stringify(filterTree(JSON.parse(trimmed), folders), null, 2);
        } catch {
          // not a tree after all: filter it line by line
        }
      }
      return text
        .split("\n")
        .filter((line) => !hiddenLine(line, folders))
        .join("\n");
    },
  };
}
