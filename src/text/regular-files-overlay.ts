import { statSync } from "node:fs";
import type { FsStat, OverlayFs, OverlayFsOptions } from "just-bash";
import { KERNEL_FOLDERS } from "../adapters/filesystem/guard.js";
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

export interface RegularFilesOverlay {
  overlay: OverlayFs;
  /** The reads refused since the last call, each as a line that names the file (under `mountPoint`) and what it is; emptied. */
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
  const refused = new Map<string, string>();
  const onlyRegular = `the sandbox reads only regular files and folders in ${shownAt}`;
  const refuse = (path: string, what: string, why = onlyRegular): Error => {
    // A hidden file's name is not told, even in a refusal (cp -r inside the mount reaches them).
    if (!isHiddenSegments(path.split("/"))) refused.set(`${shownAt}${path === "/" ? "" : path}`, `it is ${what}, and ${why}`);
    return notRegular(path, what);
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
      if (entry?.isFile && maxBytes > 0 && entry.size > maxBytes) throw refuse(path, `${entry.size} bytes`, `the sandbox reads files of up to ${maxBytes / 2 ** 20} MiB; read a part of it with the filesystem plugin's tools, or ask for a smaller file`);
      return super.readFileBuffer(path, seen);
    }
  }
  return {
    overlay: new RegularFilesOnly(options),
    takeRefusals() {
      const lines = [...refused].map(([file, why]) => `${file} was not read: ${why}`);
      refused.clear();
      return lines;
    },
  };
}
