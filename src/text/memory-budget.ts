import type { FileContent, IFileSystem } from "just-bash";
import { inMiB, MIB } from "../byte-size.js";

/**
 * One memory budget for the files of every sandbox of the process together, beside each
 * sandbox's own cap. Without it, N sessions could each fill their in-memory filesystem to its cap
 * (64 × 128 MiB took a server to 8.6 GB). Every write, append and copy is charged before it
 * happens to the sandbox's account and to the shared total; removals and overwrites credit them;
 * a closed sandbox gives all of its bytes back. A write past either limit fails with ENOSPC and a
 * message that says which budget is spent and what to do.
 *
 * The accounting is by file content bytes, as seen through the filesystem interface. A hard link
 * is charged as a copy: removing one credits its full size, and writing through one path of
 * just-bash's in-memory filesystem replaces that path's data alone, so each path holds its own
 * count. The count can err high by what links share until one is rewritten, never low (charged
 * once and credited per name, `ln a h; rm a` in a loop held 124 MiB while 0 was counted).
 */

export { MIB };
export const DEFAULT_SANDBOXES_BUDGET_BYTES = 512 * MIB;
export const DEFAULT_SANDBOX_BYTES = 128 * MIB;

export interface MemoryBudgetOptions {
  /** All sandboxes together (AGENT_TOOLS_EXEC_MEMORY_BUDGET_MB). */
  totalBytes: number;
  /** One sandbox (AGENT_TOOLS_EXEC_SANDBOX_MEMORY_MB). */
  perSandboxBytes: number;
}

function enospc(message: string): Error {
  return Object.assign(new Error(`ENOSPC: ${message}`), { code: "ENOSPC" });
}

export class SandboxMemoryBudget {
  #used = 0;
  constructor(readonly options: MemoryBudgetOptions) {}

  /** Bytes charged to all live sandboxes. */
  get used(): number {
    return this.#used;
  }

  open(): SandboxAccount {
    return new SandboxAccount(this);
  }

  /** @internal Charge `delta` bytes (negative credits); throws ENOSPC past the shared total. */
  move(delta: number): void {
    if (delta > 0 && this.#used + delta > this.options.totalBytes) {
      throw enospc(
        `the memory budget of all sandboxes together is spent (${inMiB(this.#used)} of ${inMiB(this.options.totalBytes)} in use, ${inMiB(delta)} more asked; AGENT_TOOLS_EXEC_MEMORY_BUDGET_MB): remove files you no longer need with rm, write smaller results (filter with grep/jq/head first), or retry when other sessions have ended`,
      );
    }
    this.#used = Math.max(0, this.#used + delta);
  }
}

export class SandboxAccount {
  #used = 0;
  #closed = false;
  constructor(private readonly budget: SandboxMemoryBudget) {}

  get used(): number {
    return this.#used;
  }

  /** Charge `delta` bytes, or credit a negative one. */
  charge(delta: number): void {
    if (this.#closed || delta === 0) return;
    if (delta > 0 && this.#used + delta > this.budget.options.perSandboxBytes) {
      throw enospc(
        `this session's sandbox files would exceed their cap (${inMiB(this.#used)} of ${inMiB(this.budget.options.perSandboxBytes)} in use, ${inMiB(delta)} more asked; AGENT_TOOLS_EXEC_SANDBOX_MEMORY_MB): remove files you no longer need with rm, or keep only the part you need (grep/jq/head) instead of whole results`,
      );
    }
    const credited = Math.max(-this.#used, delta);
    this.budget.move(credited);
    this.#used += credited;
  }

  /** The sandbox is gone: all its bytes go back to the shared budget. */
  close(): void {
    if (this.#closed) return;
    this.budget.move(-this.#used);
    this.#used = 0;
    this.#closed = true;
  }
}

function encodingOf(options: unknown): BufferEncoding {
  if (typeof options === "string") return options as BufferEncoding;
  const encoding = (options as { encoding?: unknown } | undefined)?.encoding;
  return typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8";
}

function byteLength(content: FileContent, options: unknown): number {
  return typeof content === "string" ? Buffer.byteLength(content, encodingOf(options)) : content.byteLength;
}

/** Content bytes at `path`: a file's size, a directory's files summed, 0 when there is nothing. */
async function bytesAt(fs: IFileSystem, path: string): Promise<number> {
  let stat;
  try {
    stat = await fs.lstat(path);
  } catch {
    return 0;
  }
  if (stat.isFile) return stat.size;
  if (!stat.isDirectory) return 0;
  let total = 0;
  for (const name of await fs.readdir(path).catch(() => [] as string[])) total += await bytesAt(fs, `${path.replace(/\/+$/, "")}/${name}`);
  return total;
}

/**
 * Run `write` with `delta` charged first; the charge is given back when the write fails. A refused
 * charge names the file written, as a full disk's error does (the shell shows the message alone).
 */
async function charged<T>(account: SandboxAccount, delta: number, path: string, write: () => Promise<T>): Promise<T> {
  try {
    account.charge(delta);
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOSPC") throw Object.assign(new Error(`${path}: ${(error as Error).message}`), { code: "ENOSPC" });
    throw error;
  }
  try {
    return await write();
  } catch (error) {
    account.charge(-delta);
    throw error;
  }
}

/** `inner`, with every write charged to `account` (and through it to the shared budget). */
export function budgetedFs(inner: IFileSystem, account: SandboxAccount): IFileSystem {
  const fs: IFileSystem = Object.create(inner) as IFileSystem;
  // Every method of the interface is forwarded bound to `inner`; the writing ones are wrapped.
  const proto = inner as unknown as Record<string, unknown>;
  for (const key of new Set([...Object.keys(proto), ...Object.getOwnPropertyNames(Object.getPrototypeOf(inner) as object)])) {
    const value = proto[key];
    if (typeof value === "function" && key !== "constructor") (fs as unknown as Record<string, unknown>)[key] = (value as (...a: unknown[]) => unknown).bind(inner);
  }
  fs.writeFile = async (path, content, options) => {
    const before = await bytesAt(inner, path);
    return charged(account, byteLength(content, options) - before, path, () => inner.writeFile(path, content, options));
  };
  fs.appendFile = (path, content, options) => charged(account, byteLength(content, options), path, () => inner.appendFile(path, content, options));
  fs.cp = async (src, dest, options) => {
    const delta = (await bytesAt(inner, src)) - (await bytesAt(inner, dest));
    return charged(account, Math.max(0, delta), dest, () => inner.cp(src, dest, options));
  };
  fs.link = async (existing, newPath) => charged(account, await bytesAt(inner, existing), newPath, () => inner.link(existing, newPath));
  fs.rm = async (path, options) => {
    const freed = await bytesAt(inner, path);
    await inner.rm(path, options);
    account.charge(-freed);
  };
  fs.mv = async (src, dest) => {
    const replaced = src === dest ? 0 : await bytesAt(inner, dest);
    await inner.mv(src, dest);
    account.charge(-replaced);
  };
  return fs;
}
