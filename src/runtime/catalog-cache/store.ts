import { readdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { ServerDescription, ToolDescriptor } from "../../adapters/types.js";
import { readBoundedFile, readProblem, type FileBound } from "../../bounded-file.js";
import { replaceFile } from "../../replace-file.js";
import { switchFromEnv } from "../../env-switch.js";
import { xdgBase } from "../../paths.js";
import { entryProblem } from "./entry-check.js";
import { unusableFolder } from "../../config/absolute-folder.js";

/**
 * Where plugin catalogs are kept between runs. The runtime only needs get/set/clear by an opaque
 * key, so the storage is behind this small interface: the file store below on one machine, a
 * shared store (e.g. Redis, for a team gateway) elsewhere. Keys are hex digests: they never carry
 * a config value or a secret (see key.ts), and neither do entries (a tool list and a server name).
 */

export interface CachedCatalog {
  /** The plugin's prefix when it was stored (for people reading the cache; not part of the key). */
  prefix: string;
  /** When the listing was made (ms since the epoch). */
  listedAt: number;
  /** What the server says of itself (MCP serverInfo and instructions), when the adapter reports it. */
  server?: ServerDescription;
  tools: ToolDescriptor[];
  /** The adapter's protocol verdict (an MCP server's era and server/discover answer), so a restart does not probe again. */
  protocol?: unknown;
  /**
   * When the list goes stale (ms since the epoch), if the server stated a lifetime for it (a
   * 2026-07-28 list result's `ttlMs`): a restart serves the stored list at once and, past this,
   * lists it again in the background on first use, as the run that listed it would have.
   */
  expiresAt?: number;
}

export interface CatalogStore {
  /** Where the entries live, for people ("/home/me/.cache/agent-tools-runtime/catalogs"). */
  readonly location: string;
  /**
   * What a failed write costs and what to do, said once (catalog.ts): a folder and Redis fail for
   * other reasons, and a folder's remedy (AGENT_TOOLS_CACHE_DIR) does nothing for Redis.
   */
  readonly whenWritesFail: string;
  get(key: string): Promise<CachedCatalog | undefined>;
  set(key: string, entry: CachedCatalog): Promise<void>;
  delete(key: string): Promise<void>;
  /** Remove every entry; answers how many there were (throws when the store cannot be read: not "none"). */
  clear(): Promise<number>;
}

/** Bumped when the entry shape changes: entries of another format are ignored (and overwritten). */
export const CACHE_FORMAT = 1;

const KEY_PATTERN = "[0-9a-f]{16,128}";
const KEY = new RegExp(`^${KEY_PATTERN}$`);
/**
 * The store's own files, by name: an entry `<key>.json`, and the temporary a write renames into
 * place (`.<key>.json.<pid>.<random hex>.tmp`, replace-file.ts; `<key>.json.<pid>.<ms>.tmp` from
 * runtimes before it). AGENT_TOOLS_CACHE_DIR may name a folder that holds other
 * things (a project's own `catalogs/products.json`), so clearing and counting go by these names
 * only. Not by content: a damaged entry of the store's own (a torn disk write) must still go.
 */
const ENTRY_FILE = new RegExp(`^${KEY_PATTERN}\\.json$`);
const TEMPORARY_FILE = new RegExp(`^(?:\\.${KEY_PATTERN}\\.json\\.\\d+\\.[0-9a-f]+|${KEY_PATTERN}\\.json\\.\\d+\\.\\d+)\\.tmp$`);

/**
 * What a cache entry file may be: a regular file (a FIFO put where an entry goes would block the
 * read, and with it the process's exit, forever) of a size far above any real catalog (a few
 * hundred KiB for a server of hundreds of tools). Anything else is a miss, said once.
 */
const CACHE_ENTRY: FileBound = {
  limit: 64 * 1024 * 1024,
  kind: "catalog cache entry",
  notRegularFix: () => "it is skipped",
  tooLargeFix: () => "It is skipped",
};

export interface FileStoreOptions {
  /**
   * Told, once per file, why an entry there was not used (damaged, not a regular file): the
   * runtime's log. Without it a damaged entry would only show as a start slower than it should be.
   */
  warn?: (message: string) => void;
  /** The clock an entry's listing time is compared with (tests). */
  now?: () => number;
}

/**
 * One JSON file per key in `dir`. Writes go to a temporary file renamed into place, so a reader
 * (another runtime process sharing the cache) never sees half an entry. Every failure is treated
 * as a miss: the cache may speed things up, never break them. A miss is listed again and its
 * listing overwrites the file.
 */
export function createFileCatalogStore(dir: string, options: FileStoreOptions = {}): CatalogStore {
  const fileOf = (key: string): string => {
    if (!KEY.test(key)) throw new Error(`catalog cache keys are hex digests (got '${key.slice(0, 20)}')`);
    return path.join(dir, `${key}.json`);
  };
  const said = new Set<string>();
  const unusable = (file: string, why: string): undefined => {
    if (said.has(file)) return undefined;
    said.add(file);
    options.warn?.(`catalog cache: ignored ${file}: ${why}; the plugin's tools are listed again and the entry is overwritten`);
    return undefined;
  };
  return {
    location: dir,
    whenWritesFail: "catalogs are not kept between runs, so each start lists every server again. Set AGENT_TOOLS_CACHE_DIR to a folder this user can write, or AGENT_TOOLS_CATALOG_CACHE=off to run without the cache",
    async get(key) {
      const file = fileOf(key);
      let text: string;
      try {
        text = (await readBoundedFile(file, CACHE_ENTRY)).toString("utf8");
      } catch (error) {
        // Not stored yet: the common miss, nothing to say.
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        return unusable(file, readProblem(error).replace(/^is /, "it is "));
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return unusable(file, "it is not valid JSON");
      }
      // An entry of another format is an older (or newer) runtime's, not a damaged one: a quiet miss.
      if ((parsed as { format?: unknown } | null)?.format !== CACHE_FORMAT) return undefined;
      const { format: _format, ...entry } = parsed as Record<string, unknown>;
      const problem = entryProblem(entry, (options.now ?? Date.now)());
      if (problem) return unusable(file, problem);
      return entry as unknown as CachedCatalog;
    },
    async set(key, entry) {
      const file = fileOf(key);
      // A cache: a lost write is a miss, rebuilt, so no fsync. 0600: a catalog may describe private tools.
      await replaceFile(file, JSON.stringify({ format: CACHE_FORMAT, ...entry }), { mode: 0o600, dirMode: 0o700 });
      // A file written again may go wrong again: say it then too.
      said.delete(file);
    },
    async delete(key) {
      await rm(fileOf(key), { force: true });
    },
    async clear() {
      return (await clearFileStore(dir)).cleared;
    },
  };
}

/**
 * The file names in the cache folder; none when it does not exist yet (nothing was stored). Any
 * other failure (the path is a file, no permission) is thrown: `agent-tools cache` must say that
 * the cache cannot work there, not report an empty cache.
 */
async function namesIn(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/**
 * Remove the store's own files from `dir` (ENTRY_FILE, TEMPORARY_FILE): `cleared` counts the
 * entries, `leftAlone` names what else is there, untouched (for `agent-tools cache clear` to say).
 * Throws when the folder cannot be read.
 */
export async function clearFileStore(dir: string): Promise<{ cleared: number; leftAlone: string[] }> {
  const names = await namesIn(dir);
  const own = names.filter((n) => ENTRY_FILE.test(n) || TEMPORARY_FILE.test(n));
  await Promise.all(own.map((n) => rm(path.join(dir, n), { force: true })));
  return { cleared: own.filter((n) => ENTRY_FILE.test(n)).length, leftAlone: names.filter((n) => !own.includes(n)).sort() };
}

/** Entries the file store holds and their total size (for `agent-tools cache`); throws when the folder cannot be read. */
export async function describeFileStore(dir: string): Promise<{ entries: number; bytes: number }> {
  const names = (await namesIn(dir)).filter((n) => ENTRY_FILE.test(n));
  const sizes = await Promise.all(names.map((n) => stat(path.join(dir, n)).then((s) => s.size, () => 0)));
  return { entries: names.length, bytes: sizes.reduce((a, b) => a + b, 0) };
}


/**
 * The user's cache folder for this runtime, from the environment it was given:
 * AGENT_TOOLS_CACHE_DIR (unless it starts with `~` or is relative), else XDG_CACHE_HOME (Linux and other Unixes) or ~/.cache,
 * ~/Library/Caches on macOS, %LOCALAPPDATA% on Windows. Undefined when the environment names no
 * home at all (an embedded runtime given an empty env): then nothing is written anywhere.
 */
export function cacheRoot(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string | undefined {
  const explicit = env.AGENT_TOOLS_CACHE_DIR?.trim();
  // `~/…` from a client's JSON (no shell) would make a folder named `~` in the working folder, and
  // a relative path one in each project the server is started in: the default applies instead,
  // and the start's settings check says so (env-settings.ts).
  if (explicit && !unusableFolder("AGENT_TOOLS_CACHE_DIR", explicit)) return path.resolve(explicit);
  if (platform === "win32") {
    const local = env.LOCALAPPDATA?.trim();
    return local ? path.join(local, "agent-tools-runtime", "Cache") : undefined;
  }
  const home = env.HOME?.trim();
  if (platform === "darwin") return home ? path.join(home, "Library", "Caches", "agent-tools-runtime") : undefined;
  const xdg = xdgBase(env.XDG_CACHE_HOME);
  if (xdg) return path.join(xdg, "agent-tools-runtime");
  return home ? path.join(home, ".cache", "agent-tools-runtime") : undefined;
}

/**
 * Whether AGENT_TOOLS_CATALOG_CACHE turns the cache off. A value that is neither on nor off is said
 * through `warn` (the runtime's log, the cache command's stderr) and leaves the cache on.
 */
export function catalogCacheOff(env: NodeJS.ProcessEnv, warn: (message: string) => void = () => undefined): boolean {
  return switchFromEnv("AGENT_TOOLS_CATALOG_CACHE", env.AGENT_TOOLS_CATALOG_CACHE, warn) === false;
}

/** The catalogs folder, or undefined when the cache is off (AGENT_TOOLS_CATALOG_CACHE=off) or has no place. */
export function catalogCacheDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform, warn?: (message: string) => void): string | undefined {
  if (catalogCacheOff(env, warn)) return undefined;
  const root = cacheRoot(env, platform);
  return root ? path.join(root, "catalogs") : undefined;
}

/** The store the environment asks for, or undefined (no cache). */
export function catalogStoreFromEnv(env: NodeJS.ProcessEnv, warn?: (message: string) => void): CatalogStore | undefined {
  const dir = catalogCacheDir(env, process.platform, warn);
  return dir ? createFileCatalogStore(dir, { ...(warn ? { warn } : {}) }) : undefined;
}
