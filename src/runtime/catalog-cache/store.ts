import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { ServerDescription, ToolDescriptor } from "../../adapters/types.js";

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
}

export interface CatalogStore {
  /** Where the entries live, for people ("/home/me/.cache/agent-tools-runtime/catalogs"). */
  readonly location: string;
  get(key: string): Promise<CachedCatalog | undefined>;
  set(key: string, entry: CachedCatalog): Promise<void>;
  delete(key: string): Promise<void>;
  /** Remove every entry; answers how many there were. */
  clear(): Promise<number>;
}

/** Bumped when the entry shape changes: entries of another format are ignored (and overwritten). */
export const CACHE_FORMAT = 1;

const KEY = /^[0-9a-f]{16,128}$/;

function isEntry(value: unknown): value is CachedCatalog & { format: number } {
  if (!value || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return v.format === CACHE_FORMAT && typeof v.prefix === "string" && typeof v.listedAt === "number" && Array.isArray(v.tools);
}

/**
 * One JSON file per key in `dir`. Writes go to a temporary file renamed into place, so a reader
 * (another runtime process sharing the cache) never sees half an entry. Every failure is treated
 * as a miss: the cache may speed things up, never break them.
 */
export function createFileCatalogStore(dir: string): CatalogStore {
  const fileOf = (key: string): string => {
    if (!KEY.test(key)) throw new Error(`catalog cache keys are hex digests (got '${key.slice(0, 20)}')`);
    return path.join(dir, `${key}.json`);
  };
  return {
    location: dir,
    async get(key) {
      try {
        const parsed: unknown = JSON.parse(await readFile(fileOf(key), "utf8"));
        if (!isEntry(parsed)) return undefined;
        const { format: _format, ...entry } = parsed;
        return entry;
      } catch {
        return undefined;
      }
    },
    async set(key, entry) {
      const file = fileOf(key);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
      await writeFile(temporary, JSON.stringify({ format: CACHE_FORMAT, ...entry }), { mode: 0o600 });
      await rename(temporary, file).catch(async (error: unknown) => {
        await rm(temporary, { force: true });
        throw error;
      });
    },
    async delete(key) {
      await rm(fileOf(key), { force: true });
    },
    async clear() {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch {
        return 0;
      }
      const entries = names.filter((n) => n.endsWith(".json") || n.endsWith(".tmp"));
      await Promise.all(entries.map((n) => rm(path.join(dir, n), { force: true })));
      return entries.filter((n) => n.endsWith(".json")).length;
    },
  };
}

/** Entries the file store holds and their total size (for `agent-tools cache`). */
export async function describeFileStore(dir: string): Promise<{ entries: number; bytes: number }> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith(".json"));
  } catch {
    return { entries: 0, bytes: 0 };
  }
  const sizes = await Promise.all(names.map((n) => stat(path.join(dir, n)).then((s) => s.size, () => 0)));
  return { entries: names.length, bytes: sizes.reduce((a, b) => a + b, 0) };
}

const OFF = new Set(["0", "off", "false", "no", "disabled"]);

/**
 * The user's cache folder for this runtime, from the environment it was given:
 * AGENT_TOOLS_CACHE_DIR, else XDG_CACHE_HOME (Linux and other Unixes) or ~/.cache,
 * ~/Library/Caches on macOS, %LOCALAPPDATA% on Windows. Undefined when the environment names no
 * home at all (an embedded runtime given an empty env): then nothing is written anywhere.
 */
export function cacheRoot(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string | undefined {
  const explicit = env.AGENT_TOOLS_CACHE_DIR?.trim();
  if (explicit) return path.resolve(explicit);
  if (platform === "win32") {
    const local = env.LOCALAPPDATA?.trim();
    return local ? path.join(local, "agent-tools-runtime", "Cache") : undefined;
  }
  const home = env.HOME?.trim();
  if (platform === "darwin") return home ? path.join(home, "Library", "Caches", "agent-tools-runtime") : undefined;
  const xdg = env.XDG_CACHE_HOME?.trim();
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, "agent-tools-runtime");
  return home ? path.join(home, ".cache", "agent-tools-runtime") : undefined;
}

/** The catalogs folder, or undefined when the cache is off (AGENT_TOOLS_CATALOG_CACHE=off) or has no place. */
export function catalogCacheDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string | undefined {
  if (OFF.has((env.AGENT_TOOLS_CATALOG_CACHE ?? "").trim().toLowerCase())) return undefined;
  const root = cacheRoot(env, platform);
  return root ? path.join(root, "catalogs") : undefined;
}

/** The store the environment asks for, or undefined (no cache). */
export function catalogStoreFromEnv(env: NodeJS.ProcessEnv): CatalogStore | undefined {
  const dir = catalogCacheDir(env);
  return dir ? createFileCatalogStore(dir) : undefined;
}
