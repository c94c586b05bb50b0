import { statSync } from "node:fs";
import type { FsStat, OverlayFs, OverlayFsOptions } from "just-bash";
import { KERNEL_FOLDERS } from "../adapters/filesystem/guard.js";
import { inMiB } from "../byte-size.js";
import { describeThrown } from "../runtime/errors.js";
import { isHiddenSegments } from "./hidden-files-fs.js";

/**
 * The /workdir overlay, reading only regular files. just-bash's OverlayFs opens whatever a path
 * names and reads it to its end, checking only the size the host reports: a named pipe blocked
 * the read forever (holding one of Node's four threadpool threads each time, so after four every
 * file operation of the process waited, and it never exited), and a device such as /dev/zero
 * reports size 0 and never ends (the server's memory grew without bound). Here a path that is
 * neither a regular file, a folder nor a symbolic link (which the overlay does not follow) is
 * refused before it is opened, and so is a file on a kernel filesystem (/proc, /sys, /dev bound
 * inside the project): their sizes say nothing of what a read returns.
 *
 * `readFileBuffer` is the overlay's one reading path (readFile, readFileBytes, cp, appendFile and
 * chmod of a disk file all go through it), so guarding it guards them all.
 *
 * A file or folder the host does not let the server's user read (EACCES, or EPERM as macOS says
 * for a protected folder) is said too: commands print such a read as "No such file or
 * directory", and some say nothing at all (rg and tree leave an unreadable folder out), so the
 * model took what it got for the whole folder. Each one is named on the line's stderr.
 */

/** What a path that is not a regular file is, from its mode bits (the host's, as the overlay passes them on). */
function kindOf(mode: number): string {
  switch (mode & 0o170000) {
    case 0o010000:
      return "a named pipe (fifo)";
    case 0o020000:
      return "a character device";
    case 0o060000:
      return "a block device";
    case 0o140000:
      return "a socket";
    default:
      return "not a regular file";
  }
}

/**
 * The refusal. Commands print any failed read as "No such file or directory", whatever the
 * error says, so the sandbox also adds a line of its own naming the file and why (`refusals`).
 */
function notRegular(path: string, what: string): Error {
  return Object.assign(new Error(`ENOENT: not read, open '${path}': it is ${what}`), { code: "ENOENT" });
}

/**
 * A hidden file the host does not let the server's user read, met by a copy or move of its folder
 * inside the mount (which carries hidden files along, still hidden): said without its name.
 */
function hiddenUnreadable(code: string): Error {
  return Object.assign(new Error(`refused: this folder holds a file hidden from the sandbox that the host does not let the server's user read (${code}), so it cannot be carried along; copy (move) the other files one by one instead`), { code: "EACCES" });
}

/** The devices of the kernel filesystems on this host, where they are mounts of their own (not folders of the root's). */
function kernelDevices(): Set<number> {
  const devices = new Set<number>();
  let rootDevice: number | undefined;
  try {
    rootDevice = statSync("/").dev;
  } catch {
    return devices;
  }
  for (const folder of KERNEL_FOLDERS) {
    try {
      const dev = statSync(folder).dev;
      if (dev !== rootDevice) devices.add(dev);
    } catch {
      // not on this host (macOS has no /proc)
    }
  }
  return devices;
}

let kernel: Set<number> | undefined;

/** How many paths one line's stderr names; the rest are counted in one more line (an unreadable tree can hold thousands). */
const NAMED_REFUSALS = 10;

/**
 * Why a path the host refused was not read, by what the overlay was doing (its errors say it:
 * "EACCES: open '/a'", "EACCES: scandir '/d'", "EACCES: lstat '/d/a'"). A lookup is refused by
 * the folder above, which cannot be searched: that folder is the one named (a tool such as rg
 * looks up .gitignore in every folder, which need not be there).
 */
const DENIED: Readonly<Record<string, { what: string; leaves: string; detail?: string; folderAbove?: true }>> = {
  open: { what: "read this file", leaves: "it" },
  scandir: { what: "list this folder", leaves: "everything in it" },
  stat: { what: "search this folder", detail: ": no execute permission for that user", leaves: "everything in it", folderAbove: true },
  lstat: { what: "search this folder", detail: ": no execute permission for that user", leaves: "everything in it", folderAbove: true },
};

export interface RegularFilesOverlay {
  overlay: OverlayFs;
  /**
   * The paths not read since the last call, each as a line that names it (under `shownAt`) and
   * why: not a regular file, or the host refused the read. At most NAMED_REFUSALS of them, then
   * one line counting the rest; emptied.
   */
  takeRefusals(): string[];
}

/**
 * An OverlayFs (the class just-bash exports, as loaded) whose reads refuse anything but regular
 * files. `shownAt`: where the sandbox shows the overlay (/workdir), for the refusal lines.
 */
export function regularFilesOverlay(Overlay: typeof OverlayFs, options: OverlayFsOptions, shownAt: string): RegularFilesOverlay {
  kernel ??= kernelDevices();
  const kernelDevs = kernel;
  const maxBytes = options.maxFileReadSize ?? 0;
  const notRead = new Map<string, string>();
  // A hidden file's name is not told, even in a refusal (cp -r inside the mount reaches them).
  const hidden = (path: string): boolean => isHiddenSegments(path.split("/"));
  /** The first reason a path was not read is kept: a file under a folder that cannot be searched fails its lookup first, which says why. */
  const note = (path: string, why: string): void => {
    const shown = `${shownAt}${path === "/" ? "" : path}`;
    if (!hidden(path) && !notRead.has(shown)) notRead.set(shown, why);
  };
  const onlyRegular = `the sandbox reads only regular files and folders in ${shownAt}`;
  const refuse = (path: string, what: string, why = onlyRegular): Error => {
    note(path, `it is ${what}, and ${why}`);
    return notRegular(path, what);
  };
  /** `run`, noting `path` when the host refused the server's user; the error goes on to the command unchanged. */
  const notingDenied = async <T>(path: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      const denied = /^(EACCES|EPERM): (\w+)/.exec(describeThrown(error));
      // The overlay's error names the path ("EACCES: open '/keys/.env'"), which cp -r inside the mount printed.
      if (denied && hidden(path)) throw hiddenUnreadable(denied[1] ?? "EACCES");
      const why = denied ? DENIED[denied[2] ?? ""] : undefined;
      if (denied && why) {
        const named = why.folderAbove ? path.replace(/\/[^/]*\/*$/, "") || "/" : path;
        note(named, `the host does not let the server's user ${why.what} (${denied[1]}${why.detail ?? ""}), so the command's output leaves ${why.leaves} out; give that user access on the host if the command needs it`);
      }
      throw error;
    }
  };
  class RegularFilesOnly extends Overlay {
    override async readFileBuffer(path: string, seen?: Set<string>): Promise<Uint8Array> {
      let entry: FsStat | undefined;
      try {
        entry = await this.lstat(path);
      } catch {
        entry = undefined; // not there, or not allowed: the overlay's own read says which
      }
      if (entry && !entry.isFile && !entry.isDirectory && !entry.isSymbolicLink) throw refuse(path, kindOf(entry.mode));
      if (entry?.dev !== undefined && kernelDevs.has(Number(entry.dev))) throw refuse(path, `on a kernel filesystem (${KERNEL_FOLDERS.join(", ")})`);
      // The overlay refuses a larger file with EFBIG, which commands print as "No such file or directory".
      if (entry?.isFile && maxBytes > 0 && entry.size > maxBytes) throw refuse(path, `${entry.size} bytes`, `the sandbox reads files of up to ${inMiB(maxBytes)}; read a part of it with the filesystem plugin's tools, or ask for a smaller file`);
      return notingDenied(path, () => super.readFileBuffer(path, seen));
    }
    override readdir(path: string): Promise<string[]> {
      return notingDenied(path, () => super.readdir(path));
    }
    override readdirWithFileTypes(path: string): ReturnType<OverlayFs["readdirWithFileTypes"]> {
      return notingDenied(path, () => super.readdirWithFileTypes(path));
    }
    override stat(path: string, seen?: Set<string>): Promise<FsStat> {
      return notingDenied(path, () => super.stat(path, seen));
    }
    override lstat(path: string): Promise<FsStat> {
      return notingDenied(path, () => super.lstat(path));
    }
  }
  return {
    overlay: new RegularFilesOnly(options),
    takeRefusals() {
      const lines = [...notRead].slice(0, NAMED_REFUSALS).map(([file, why]) => `${file} was not read: ${why}`);
      const more = notRead.size - lines.length;
      if (more > 0) lines.push(`${more} more ${more === 1 ? "path" : "paths"} in ${shownAt} ${more === 1 ? "was" : "were"} not read (${notRead.size} in all; the first ${NAMED_REFUSALS} are named above, each with why)`);
      notRead.clear();
      return lines;
    },
  };
}
