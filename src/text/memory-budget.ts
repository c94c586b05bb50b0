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
 * When the shared budget is spent, its reclaimers (the HTTP server's workspaces) are asked to close
 * idle sandboxes first, of the identity whose sandboxes hold the most bytes, and the write is tried
 * again: alice's idle workspaces (kept 30 minutes) held 6 of 8 MiB, and bob's 3 MiB write failed,
 * telling him to "remove files you no longer need" while he held none. What is still refused says
 * whose bytes hold the budget: the caller's own (which rm frees) or other sessions' in use.
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

/**
 * Runs host work a write waits on outside the sandbox's restrictions: the budget's reclaimers close
 * other sessions and reach Redis, whose client sets timers, which just-bash's defence in depth
 * refuses inside a running line (the reclaim failed with "setTimeout is blocked" on a gateway).
 */
export type HostWork = <T>(work: () => Promise<T>) => Promise<T>;

const asIs: HostWork = (work) => work();

/** `shared`: the refusal is the budget of all sandboxes' (reclaimers may free it), not the sandbox's own cap. */
function enospc(message: string, shared = false): Error {
  return Object.assign(new Error(`ENOSPC: ${message}`), { code: "ENOSPC", ...(shared ? { shared } : {}) });
}

/**
 * Closes idle sandboxes to free at least `neededBytes` of the shared budget (or as many as it
 * can); `bytesHeldBy` tells the bytes of the sandbox a holder (a session) has.
 */
export type SandboxReclaimer = (neededBytes: number, bytesHeldBy: (holder: object) => number) => Promise<unknown>;

export class SandboxMemoryBudget {
  #used = 0;
  readonly #accounts = new Set<SandboxAccount>();
  readonly #reclaimers = new Set<SandboxReclaimer>();
  /** One reclaim at a time: two writers refused together must not both close sandboxes for the same bytes. */
  #reclaiming: Promise<unknown> = Promise.resolve();
  constructor(readonly options: MemoryBudgetOptions) {}

  /** Bytes charged to all live sandboxes. */
  get used(): number {
    return this.#used;
  }

  /** The account of a new sandbox: `owner`, the identity it serves ("" for none); `holder`, what closing frees it (its session). */
  open(owner = "", holder?: object): SandboxAccount {
    const account = new SandboxAccount(this, owner, holder);
    this.#accounts.add(account);
    return account;
  }

  /** Ask `reclaimer` when the budget is spent (once per function: adding it again changes nothing). */
  reclaimWith(reclaimer: SandboxReclaimer): void {
    this.#reclaimers.add(reclaimer);
  }

  /** Bytes the open sandboxes of `holder` hold. */
  bytesHeldBy(holder: object): number {
    let total = 0;
    for (const account of this.#accounts) if (account.holder === holder) total += account.used;
    return total;
  }

  /** @internal Charge `delta` bytes (negative credits) for `account`; throws ENOSPC past the shared total. */
  move(delta: number, account?: SandboxAccount): void {
    if (delta > 0 && this.#used + delta > this.options.totalBytes) throw enospc(this.spent(delta, account), true);
    this.#used = Math.max(0, this.#used + delta);
  }

  /** @internal The account is closed. */
  forget(account: SandboxAccount): void {
    this.#accounts.delete(account);
  }

  /** @internal Have the reclaimers close idle sandboxes until `delta` more bytes fit (or none is left to close). */
  free(delta: number): Promise<void> {
    const run = this.#reclaiming.then(async () => {
      for (const reclaimer of this.#reclaimers) {
        const needed = this.#used + delta - this.options.totalBytes;
        if (needed <= 0) return;
        await reclaimer(needed, (holder) => this.bytesHeldBy(holder)).catch(() => undefined);
      }
    });
    this.#reclaiming = run;
    return run;
  }

  /** @internal Whether anything may free bytes of the shared budget. */
  get reclaimable(): boolean {
    return this.#reclaimers.size > 0;
  }

  /**
   * Why `delta` more bytes do not fit, in the words of the caller: whose bytes hold the budget
   * (its own sessions', which it can remove, or others' in use) decides what it is told to do.
   */
  private spent(delta: number, account: SandboxAccount | undefined): string {
    let own = 0;
    for (const other of this.#accounts) if (other === account || (account?.owner && other.owner === account.owner)) own += other.used;
    const others = Math.max(0, this.#used - own);
    const yours = account?.owner ? "your sessions" : "this session";
    const held = `${inMiB(this.#used)} of ${inMiB(this.options.totalBytes)} in use: ${inMiB(own)} by ${yours}, ${inMiB(others)} by other open sessions`;
    const filter = "write smaller results (filter with grep/jq/head first)";
    const free = Math.max(0, this.options.totalBytes - this.#used);
    // Told to rm only when what the caller could remove would make room.
    const advice =
      own + free >= delta
        ? `remove files you no longer need with rm${account?.owner ? " (here, or in your other sessions)" : ""}, or ${filter}`
        : own > 0
          ? `removing what ${yours} hold would not make room, the rest is other sessions': ${filter}, or retry when they have ended`
          : `none of it is yours to remove: ${filter}, or retry when other sessions have ended`;
    return `the memory budget of all sandboxes together is spent (${held}; ${inMiB(delta)} more asked; AGENT_TOOLS_EXEC_MEMORY_BUDGET_MB): ${advice}`;
  }
}

export class SandboxAccount {
  #used = 0;
  #closed = false;
  constructor(
    private readonly budget: SandboxMemoryBudget,
    /** The identity the sandbox serves ("" for none): its bytes are "yours" to every sandbox of that identity. */
    readonly owner: string = "",
    /** What closing gives the bytes back (its session), for the budget's reclaimers. */
    readonly holder?: object,
  ) {}

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
    this.budget.move(credited, this);
    this.#used += credited;
  }

  /**
   * Charge `delta` bytes; when the budget of all sandboxes is spent, its reclaimers close idle
   * sandboxes first (never this one: its line is running), run by `host`, and the charge is tried
   * once more.
   */
  async chargeFreeing(delta: number, host: HostWork = asIs): Promise<void> {
    try {
      this.charge(delta);
      return;
    } catch (error) {
      if (!(error as { shared?: unknown }).shared || !this.budget.reclaimable) throw error;
    }
    await host(() => this.budget.free(delta));
    this.charge(delta);
  }

  /** The sandbox is gone: all its bytes go back to the shared budget. */
  close(): void {
    if (this.#closed) return;
    this.budget.move(-this.#used);
    this.budget.forget(this);
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
async function charged<T>(account: SandboxAccount, delta: number, path: string, write: () => Promise<T>, host: HostWork): Promise<T> {
  try {
    await account.chargeFreeing(delta, host);
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

/** `inner`, with every write charged to `account` (and through it to the shared budget); `host` runs what a charge waits on. */
export function budgetedFs(inner: IFileSystem, account: SandboxAccount, host: HostWork = asIs): IFileSystem {
  const fs: IFileSystem = Object.create(inner) as IFileSystem;
  // Every method of the interface is forwarded bound to `inner`; the writing ones are wrapped.
  const proto = inner as unknown as Record<string, unknown>;
  for (const key of new Set([...Object.keys(proto), ...Object.getOwnPropertyNames(Object.getPrototypeOf(inner) as object)])) {
    const value = proto[key];
    if (typeof value === "function" && key !== "constructor") (fs as unknown as Record<string, unknown>)[key] = (value as (...a: unknown[]) => unknown).bind(inner);
  }
  fs.writeFile = async (path, content, options) => {
    const before = await bytesAt(inner, path);
    return charged(account, byteLength(content, options) - before, path, () => inner.writeFile(path, content, options), host);
  };
  fs.appendFile = (path, content, options) => charged(account, byteLength(content, options), path, () => inner.appendFile(path, content, options), host);
  fs.cp = async (src, dest, options) => {
    const delta = (await bytesAt(inner, src)) - (await bytesAt(inner, dest));
    return charged(account, Math.max(0, delta), dest, () => inner.cp(src, dest, options), host);
  };
  fs.link = async (existing, newPath) => charged(account, await bytesAt(inner, existing), newPath, () => inner.link(existing, newPath), host);
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
