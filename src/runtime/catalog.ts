import { echoedName } from "./argument-value.js";
import { mendInputSchemas } from "../adapters/mcp/tools-list-mend.js";
import type { Adapter, ListToolsOptions, Logger, ServerDescription, ToolDescriptor } from "../adapters/types.js";
import type { LoadedPlugin } from "../plugins/loader.js";
import type { PluginManifest } from "../plugins/manifest.js";
import { unknownListedTools } from "../plugins/manifest-references.js";
import { filterTools } from "../plugins/tool-filter.js";
import type { CachedCatalog, CatalogStore } from "./catalog-cache/store.js";
import { listLifetime } from "../list-lifetime.js";
import { createLimiter } from "./limiter.js";
import { hasGenericDescription, serverText } from "./plugin-about.js";
import { withDeadline } from "./result.js";
import { startOrDeadline } from "./start-or-deadline.js";
import { skillArgsSearchText } from "./skill-answer.js";
import type { SearchDocument, ToolIndex } from "./search/index.js";
import { isPlainObject } from "../plain-object.js";
import { schemaBranches } from "../schema-branches.js";

/**
 * Each plugin's tool list: restored from the persistent store at start (no downstream is asked),
 * else read from its adapter on first need, and kept until invalidated (a downstream
 * `list_changed`). Listings run a few at a time; a fresh listing is written back to the store.
 * The search index is fed from here, so it changes with the catalog.
 */

export interface Catalog {
  /** The plugin's tools, listing them if needed. `urgent`: a caller waits (discover, call), so it does not queue. */
  tools(plugin: LoadedPlugin, options?: { urgent?: boolean }): Promise<ToolDescriptor[]>;
  /**
   * The list in memory, if it has been read or restored; after an invalidate, the list it replaced
   * until a new one is in (search answers from it meanwhile; `tools` and `known` wait for the new one).
   */
  cached(prefix: string): ToolDescriptor[] | undefined;
  /** The list a listing or the store gave, not one kept while it is being replaced. */
  fresh(prefix: string): ToolDescriptor[] | undefined;
  /**
   * What `tools` would answer at once, without a promise: the list in memory once the stored
   * catalogs are read (counted as a hit); undefined when `tools` would have to wait. A call's
   * hot path reads this first (the pipeline's resolve step then does not wait a turn).
   */
  known(plugin: LoadedPlugin): ToolDescriptor[] | undefined;
  /** The list is out of date (a downstream `list_changed`): the next `tools` lists again. */
  invalidate(prefix: string): void;
  /**
   * List now, for a caller that waits (a call named a tool the list in memory lacks), asking the
   * backend itself (not a list its adapter keeps): the list in memory answers others until the new
   * one is in, and stays if the listing fails. Joins a listing under way.
   */
  relist(plugin: LoadedPlugin): Promise<ToolDescriptor[]>;
  /**
   * How many times the plugin's list changed (tools added, removed, renamed or redescribed) in
   * this process: what failed against one list may pass against the next (the loop breaker).
   */
  version(prefix: string): number;
  /** Settles once the stored catalogs are in memory (immediately without a store). */
  readonly ready: Promise<void>;
  /** Tool lists answered from memory or the store (hits) or by asking the adapter (misses), since start (metrics). */
  stats(): { hits: number; misses: number };
  /** When the list in memory was listed, if it came from the store and no listing in this process has confirmed it yet. */
  storedAt(prefix: string): number | undefined;
  /**
   * List again now, a few at a time, and keep and store the result; failures are logged, never
   * thrown. Nobody waits for it: a server started only for this listing stops once it answered.
   */
  refresh(plugin: LoadedPlugin): Promise<void>;
  /** Wait for listings and store writes under way (tests). */
  settle(): Promise<void>;
  /** Settles once no listing is under way or queued (store writes aside): e.g. a cold cache's start-up listing is over. */
  listed(): Promise<void>;
  /** Wait for store writes under way (shutdown: a hung listing must not hold it). */
  flush(): Promise<void>;
  /** Start no more background work. */
  close(): void;
  /** What is wrong with the lists read, per plugin: a tool name listed more than once (the first is used). */
  problems(): { prefix: string; lines: string[] }[];
  /** The names of the plugin's last list that its config entry keeps out (includeTools/excludeTools, tool-filter.ts). */
  withheld(prefix: string): readonly string[];
}

export interface CatalogOptions {
  /** Bounds one listing (see createCatalog). */
  timeoutMs: number;
  /** Listings at once; default 4. */
  concurrency?: number;
  /** Where catalogs persist between runs, and each plugin's key there. */
  store?: { store: CatalogStore; keyOf: (plugin: LoadedPlugin) => string };
  /** Plugins whose stored catalogs are read at creation. */
  plugins?: readonly LoadedPlugin[];
  log?: Logger;
  now?: () => number;
  /** Told each list kept (restored or listed) with what the server said of itself: what the plugin is about. */
  onKept?: (plugin: LoadedPlugin, tools: ToolDescriptor[], server: ServerDescription | undefined) => void;
}

/** The words of a schema's parameters: each name and description, in every branch the validator reads (a top-level `$ref`, `anyOf`, …). */
export function schemaText(schema: Record<string, unknown>): string {
  const entries = new Map<string, unknown>();
  for (const branch of schemaBranches(schema, schema)) {
    if (isPlainObject(branch.properties)) for (const [name, spec] of Object.entries(branch.properties)) if (!entries.has(name)) entries.set(name, spec);
  }
  return [...entries]
    .map(([name, spec]) => {
      const description = spec && typeof spec === "object" ? (spec as Record<string, unknown>).description : undefined;
      return typeof description === "string" ? `${name} ${description}` : name;
    })
    .join(" ");
}

/**
 * The string values of small enums: servers that fold several operations into one tool
 * (`issue_write` with `method: "create" | "update"`) name the operations only there.
 */
export function enumText(schema: Record<string, unknown>): string {
  const properties = schema.properties;
  if (!properties || typeof properties !== "object") return "";
  const values: string[] = [];
  for (const spec of Object.values(properties as Record<string, unknown>)) {
    const list = spec && typeof spec === "object" ? (spec as Record<string, unknown>).enum : undefined;
    if (Array.isArray(list) && list.length <= MAX_ENUM_VALUES) values.push(...list.filter((v): v is string => typeof v === "string"));
  }
  return values.join(" ");
}

const MAX_ENUM_VALUES = 12;

/** The human-readable title, top level or in annotations (MCP allows both). */
function titleOf(tool: ToolDescriptor): string | undefined {
  return tool.title ?? (typeof tool.annotations?.title === "string" ? tool.annotations.title : undefined);
}

/** A skill's `related` links name the tools and skills it goes with, and why: words a query for either may use. */
function relatedText(related: readonly { target: string; why?: string }[] | undefined): string {
  return (related ?? []).map((r) => `${r.target.split(":").pop() ?? r.target} ${r.why ?? ""}`.trim()).join(" ");
}

function skillParamNames(args: Record<string, unknown> | string | undefined): string[] {
  // A skill may describe its arguments in prose (a string): no names to take.
  if (!args || typeof args === "string") return [];
  return args.properties && typeof args.properties === "object" ? Object.keys(args.properties) : Object.keys(args);
}

export function pluginSearchText(plugin: LoadedPlugin, server?: ServerDescription): string {
  const { name, description, discoverHint, prefix } = plugin.manifest;
  // A description we made up ("MCP server 'x' (node over stdio)") says nothing of the domain: the
  // server's own words replace it. A config entry's name is often its prefix; the same words
  // twice would only inflate the field.
  const own = hasGenericDescription(plugin.manifest) ? undefined : description;
  return [...new Set([prefix, name, own, discoverHint, serverText(server)].filter(Boolean))].join(" ");
}

/** One tool's search document: its name (and title), description, parameters and its plugin's text. */
export function toolDocument(prefix: string, pluginText: string, tool: ToolDescriptor): SearchDocument {
  return {
    plugin: prefix,
    kind: "tool",
    name: tool.name,
    fields: {
      name: tool.name,
      ...(titleOf(tool) ? { title: titleOf(tool) } : {}),
      description: tool.description ?? "",
      params: schemaText(tool.inputSchema),
      values: enumText(tool.inputSchema),
      plugin: pluginText,
    },
    paramNames: propertyNames(tool.inputSchema),
  };
}

function propertyNames(schema: Record<string, unknown> | undefined): string[] {
  const properties = schema?.properties;
  return properties && typeof properties === "object" ? Object.keys(properties) : [];
}

export function documentsFor(plugin: LoadedPlugin, tools: readonly ToolDescriptor[], server?: ServerDescription): SearchDocument[] {
  const pluginText = pluginSearchText(plugin, server);
  const prefix = plugin.manifest.prefix;
  return [
    ...tools.map((tool) => toolDocument(prefix, pluginText, tool)),
    ...plugin.skills.map((skill) => ({
      plugin: prefix,
      kind: "skill" as const,
      name: skill.name,
      fields: { name: skill.name, description: skill.meta.description, params: skillArgsSearchText(skill.meta.args, schemaText), values: relatedText(skill.meta.related), plugin: pluginText },
      paramNames: skillParamNames(skill.meta.args),
    })),
  ];
}

/** The same tools, as a client would see them listed (names, descriptions, schemas, in order). */
export function sameTools(a: readonly ToolDescriptor[], b: readonly ToolDescriptor[]): boolean {
  return a === b || (a.length === b.length && JSON.stringify(a) === JSON.stringify(b));
}

/** Keep only well-formed descriptors: a bad entry from one adapter must not break discovery. */
function sanitise(tools: unknown): ToolDescriptor[] {
  if (!Array.isArray(tools)) throw new Error("listTools() did not return { tools: [...] }");
  return tools
    .filter((t): t is ToolDescriptor => !!t && typeof t === "object" && typeof (t as ToolDescriptor).name === "string" && (t as ToolDescriptor).name.length > 0)
    .map((t) => {
      const tool: ToolDescriptor = { ...t, inputSchema: t.inputSchema && typeof t.inputSchema === "object" ? t.inputSchema : { type: "object" } };
      // Search and discover read these as text: a description that is an object would make them throw.
      if (tool.title !== undefined && typeof tool.title !== "string") delete tool.title;
      if (tool.description !== undefined && typeof tool.description !== "string") delete tool.description;
      return tool;
    });
}

/**
 * One tool per name, the first listed (as most clients keep it): a server that lists a name twice
 * would otherwise show it twice in discover and check a call against the other's schema.
 * `repeated`: each name listed more than once, with how many times.
 */
export function firstOfEachName(tools: ToolDescriptor[]): { tools: ToolDescriptor[]; repeated: Map<string, number> } {
  const counts = new Map<string, number>();
  for (const tool of tools) counts.set(tool.name, (counts.get(tool.name) ?? 0) + 1);
  if (counts.size === tools.length) return { tools, repeated: new Map() };
  const repeated = new Map([...counts].filter(([, count]) => count > 1));
  const seen = new Set<string>();
  return { tools: tools.filter((tool) => !seen.has(tool.name) && seen.add(tool.name)), repeated };
}

/**
 * What made a plugin's tool list, as its lines name it: a module adapter's own code ("adapter",
 * whose author fixes it), else the server or service the block fronts ("server").
 */
export type ListSource = "adapter" | "server";

export function listSourceOf(manifest: Pick<PluginManifest, "adapter">): ListSource {
  return typeof manifest.adapter === "string" ? "adapter" : "server";
}

/** A note of a plugin's adapter on its list (an entry mended or left out), in the help's problems and on stderr. */
export function listingNoteLine(prefix: string, note: string, source: ListSource = "server"): string {
  return `plugin '${prefix}': in its ${source}'s tool list, ${note}`;
}

/** What a plugin whose list names a tool more than once is told, in the help's problems and on stderr. */
export function repeatedToolLine(prefix: string, name: string, count: number, source: ListSource = "server"): string {
  return `plugin '${prefix}': its ${source} lists tool '${echoedName(name)}' ${count === 2 ? "twice" : `${count} times`}; the first is used (discover shows it once, and calls are checked against its schema)`;
}

/**
 * Listings that may start servers at once. Measured on 2 cores with 50 stdio servers on a cold
 * cache (bench/perf.ts --only listing): 4 → 23.3 s, 6 → 22.6 s, 8 → 21.5 s until all were listed
 * (machine load 11–16); starting servers is CPU-bound, so more at once gains little and keeps more
 * processes alive at the same moment. 6.
 */
export const DEFAULT_LISTING_CONCURRENCY = 6;

/**
 * `timeoutMs` bounds one listing: a module adapter's listTools() is plugin code and may hang, and
 * a hung listing would stall every discover, search and call of that plugin. A failed or timed-out
 * listing is not kept, so the next request tries again.
 */
export function createCatalog(index: ToolIndex, options: CatalogOptions): Catalog {
  const { timeoutMs, log } = options;
  const now = options.now ?? Date.now;
  const lists = new Map<string, ToolDescriptor[]>();
  /** Invalidated lists, until the listing that replaces them is in: search still finds their tools (and the index still has them). */
  const replaced = new Map<string, ToolDescriptor[]>();
  /**
   * Listings under way, with what the adapter was asked (`background` is cleared when a caller
   * joins) and how a queued one starts at once (a call joined it).
   */
  const pending = new Map<string, { tools: Promise<ToolDescriptor[]>; listing: ListToolsOptions; startNow: () => void }>();
  /** When a list whose downstream stated a lifetime (ttlMs) goes stale, by prefix. */
  const expiries = new Map<string, number>();
  const owners = new Map<string, symbol>();
  const restored = new Map<string, CachedCatalog>();
  const work = new Set<Promise<unknown>>();
  const writes = new Set<Promise<unknown>>();
  const limiter = createLimiter(options.concurrency ?? DEFAULT_LISTING_CONCURRENCY);
  let closed = false;
  let storeFailureSaid = false;
  const stats = { hits: 0, misses: 0 };

  const track = <T>(promise: Promise<T>, into: Set<Promise<unknown>> = work): Promise<T> => {
    into.add(promise);
    void promise.then(
      () => into.delete(promise),
      () => into.delete(promise),
    );
    return promise;
  };

  const versions = new Map<string, number>();
  /** Per plugin, the lines about its last list: tool names it repeated (firstOfEachName) and entries its adapter mended or left out (`notes`). */
  const repeatedLines = new Map<string, string[]>();

  /** `tools` with one tool per name; a change in what the list repeats, or in its adapter's `notes` on it, is said on stderr once. */
  const firstOfEach = (plugin: LoadedPlugin, listed: ToolDescriptor[], notes: readonly string[] = []): ToolDescriptor[] => {
    const prefix = plugin.manifest.prefix;
    const source = listSourceOf(plugin.manifest);
    const { tools, repeated } = firstOfEachName(listed);
    const lines = [...notes.map((note) => listingNoteLine(prefix, note, source)), ...[...repeated].map(([name, count]) => repeatedToolLine(prefix, name, count, source))];
    const before = repeatedLines.get(prefix) ?? [];
    if (lines.join("\n") !== before.join("\n")) for (const line of lines) if (!before.includes(line)) log?.warn(line);
    if (lines.length) repeatedLines.set(prefix, lines);
    else repeatedLines.delete(prefix);
    return tools;
  };

  /** Per plugin, the last line said about names its manifest lists that its tools lack (manifest-references.ts). */
  const unknownListedSaid = new Map<string, string | undefined>();

  /** Per plugin, the names its config entry's tool filter took out of the last list kept. */
  const withheld = new Map<string, string[]>();

  /**
   * Keep a list as the server gave it (`listed`, one tool per name): what is served is what the
   * entry's tool filter lets through. The store keeps the whole list, so a filter edited between
   * runs applies to a restored catalog as it does to a fresh one.
   */
  const keep = (plugin: LoadedPlugin, listed: ToolDescriptor[], server: ServerDescription | undefined): ToolDescriptor[] => {
    const prefix = plugin.manifest.prefix;
    const unknownListed = unknownListedTools(plugin.manifest, listed.map((tool) => tool.name));
    const { kept: tools, withheld: out } = filterTools(plugin.manifest, listed);
    if (out.length) withheld.set(prefix, out);
    else withheld.delete(prefix);
    if (unknownListed && unknownListed !== unknownListedSaid.get(prefix)) log?.warn(unknownListed);
    unknownListedSaid.set(prefix, unknownListed);
    const before = lists.get(prefix) ?? replaced.get(prefix);
    if (before && !sameTools(before, tools)) versions.set(prefix, (versions.get(prefix) ?? 0) + 1);
    lists.set(prefix, tools);
    replaced.delete(prefix);
    index.setPluginDocuments(prefix, documentsFor(plugin, tools, server));
    options.onKept?.(plugin, tools, server);
    return tools;
  };

  const save = (plugin: LoadedPlugin, tools: ToolDescriptor[], expiresAt: number | undefined): void => {
    if (!options.store || closed) return;
    const { store, keyOf } = options.store;
    const server = plugin.adapter?.serverInfo?.();
    const protocol = plugin.adapter?.protocolVerdict?.();
    const entry: CachedCatalog = {
      prefix: plugin.manifest.prefix,
      listedAt: now(),
      ...(server ? { server } : {}),
      ...(protocol !== undefined ? { protocol } : {}),
      ...(expiresAt !== undefined ? { expiresAt } : {}),
      tools,
    };
    void track(store.set(keyOf(plugin), entry), writes).catch((error: unknown) => {
      const message = `catalog cache: could not store '${plugin.manifest.prefix}' in ${store.location}: ${(error as Error).message}`;
      if (storeFailureSaid) return log?.debug(message);
      // Said once, at warn: a cache that cannot be written makes every start list every server
      // again, and nothing else would tell. The other plugins' failures are the same story.
      storeFailureSaid = true;
      log?.warn(`${message}; ${store.whenWritesFail}`);
    });
  };

  async function restore(plugins: readonly LoadedPlugin[]): Promise<void> {
    if (!options.store) return;
    const { store, keyOf } = options.store;
    await Promise.all(
      plugins.map(async (plugin) => {
        if (!plugin.configured || !plugin.adapter) return;
        const entry = await store.get(keyOf(plugin)).catch(() => undefined);
        const prefix = plugin.manifest.prefix;
        // A listing that finished while the store was read is newer: keep it.
        if (!entry || lists.has(prefix)) return;
        let tools: ToolDescriptor[];
        try {
          // A list stored before its schemas were mended (an older runtime) is mended as it is read.
          tools = firstOfEach(plugin, mendInputSchemas(sanitise(entry.tools)).tools);
        } catch {
          return;
        }
        restored.set(prefix, entry);
        // A lifetime the server stated still runs out after a restart: first use past it lists again.
        if (entry.expiresAt !== undefined) expiries.set(prefix, entry.expiresAt);
        // The backend's protocol verdict came with the catalog: its first connect skips the probe.
        if (entry.protocol !== undefined) plugin.adapter.adoptProtocol?.(entry.protocol);
        keep(plugin, tools, entry.server);
      }),
    );
  }

  /**
   * `background`: nobody waits for this listing (refresh): the adapter may stop what it started
   * for it. `fresh`: the adapter asks its backend, not a list it keeps (ListToolsOptions).
   */
  function list(plugin: LoadedPlugin, urgent: boolean, background = false, fresh = false): Promise<ToolDescriptor[]> {
    const prefix = plugin.manifest.prefix;
    // An unconfigured plugin may still have a catalog in its manifest (loader.ts, catalogOnly).
    const adapter = plugin.adapter ?? (plugin.catalogOnly as Adapter | undefined);
    if (!adapter) return Promise.resolve([]);
    // Only the current listing writes: one that an invalidate (tools/list_changed) overtook must
    // not cache the old catalog. The token says which listing is current.
    const token = Symbol(prefix);
    owners.set(prefix, token);
    // One object, not a copy: a caller that joins this listing clears `background` while it runs.
    const listing: ListToolsOptions = fresh ? { background, fresh } : { background };
    let skipQueue: (() => void) | undefined;
    const loading = limiter.run(async () => {
      // A listing queued before the runtime closed must not start a server after its adapters
      // were closed: that process would outlive the runtime.
      if (closed) throw new Error(`the runtime closed before plugin '${prefix}' was listed`);
      const listed = (await withDeadline(() => adapter.listTools(background || fresh ? listing : undefined), timeoutMs, undefined, `listing the tools of plugin '${prefix}'`).catch((error: unknown) => {
        throw startOrDeadline(error, adapter);
      })) as { tools?: unknown; notes?: unknown; ttlMs?: unknown } | undefined;
      const notes = Array.isArray(listed?.notes) ? listed.notes.filter((note): note is string => typeof note === "string") : [];
      // A module adapter's list has no SDK check before it: a tool whose inputSchema is no object
      // schema is mended here as an MCP server's is (its notes said the same way).
      const mended = mendInputSchemas(sanitise(listed?.tools));
      const all = firstOfEach(plugin, mended.tools, [...notes, ...mended.notes]);
      let tools = filterTools(plugin.manifest, all).kept;
      if (owners.get(prefix) === token) {
        const before = restored.get(prefix);
        restored.delete(prefix);
        const server = adapter.serverInfo?.();
        if (before?.server && server && (before.server.name !== server.name || before.server.version !== server.version)) {
          log?.info(`plugin '${prefix}': server ${before.server.name} ${before.server.version} is now ${server.name} ${server.version}; catalog listed again`);
        }
        tools = keep(plugin, all, server);
        const lifetime = listLifetime(listed?.ttlMs);
        const expiresAt = lifetime === undefined ? undefined : now() + lifetime;
        if (expiresAt !== undefined) expiries.set(prefix, expiresAt);
        else expiries.delete(prefix);
        owners.delete(prefix);
        pending.delete(prefix);
        save(plugin, all, expiresAt);
      }
      return tools;
    }, { urgent, onQueued: (startNow) => (skipQueue = startNow) });
    pending.set(prefix, { tools: loading, listing, startNow: () => skipQueue?.() });
    loading.catch(() => {
      if (owners.get(prefix) === token) {
        owners.delete(prefix);
        pending.delete(prefix);
      }
    });
    return track(loading);
  }

  /**
   * A list past the lifetime its downstream stated (ttlMs) is listed again in the background, a
   * few at a time like every listing, once per expiry: this use is answered from it, the next
   * from the new list. Nothing is listed for a plugin nobody uses.
   */
  function refreshIfStale(plugin: LoadedPlugin): void {
    const prefix = plugin.manifest.prefix;
    const expiresAt = expiries.get(prefix);
    if (expiresAt === undefined || now() < expiresAt || pending.has(prefix) || closed) return;
    expiries.delete(prefix);
    log?.debug(`plugin '${prefix}': its tool list is past the lifetime its server stated (ttlMs); listing it again in the background`);
    void track(
      list(plugin, false, true, true).then(
        () => undefined,
        (error: unknown) => log?.debug(`plugin '${prefix}': background listing failed: ${(error as Error).message}`),
      ),
    );
  }

  const ready = restore(options.plugins ?? []);
  let restoredAll = false;
  ready.then(
    () => (restoredAll = true),
    () => undefined,
  );
  return {
    ready,
    stats: () => ({ ...stats }),
    cached: (prefix) => lists.get(prefix) ?? replaced.get(prefix),
    fresh: (prefix) => lists.get(prefix),
    known(plugin) {
      const known = restoredAll ? lists.get(plugin.manifest.prefix) : undefined;
      if (known) {
        stats.hits += 1;
        refreshIfStale(plugin);
      }
      return known;
    },
    storedAt: (prefix) => restored.get(prefix)?.listedAt,
    problems: () => [...repeatedLines].map(([prefix, lines]) => ({ prefix, lines })),
    withheld: (prefix) => withheld.get(prefix) ?? [],
    invalidate(prefix) {
      expiries.delete(prefix);
      const out = lists.get(prefix);
      if (out) replaced.set(prefix, out);
      lists.delete(prefix);
      pending.delete(prefix);
      owners.delete(prefix);
      restored.delete(prefix);
    },
    async relist(plugin) {
      await ready;
      const joined = pending.get(plugin.manifest.prefix);
      if (!joined) return list(plugin, true, false, true);
      joined.listing.background = false;
      joined.startNow();
      return joined.tools;
    },
    version: (prefix) => versions.get(prefix) ?? 0,
    async tools(plugin, toolOptions = {}) {
      await ready;
      const prefix = plugin.manifest.prefix;
      const known = lists.get(prefix);
      if (known) {
        stats.hits += 1;
        refreshIfStale(plugin);
        return known;
      }
      stats.misses += 1;
      const joined = pending.get(prefix);
      if (!joined) return list(plugin, toolOptions.urgent === true);
      // A caller waits for it now (a call may follow): no longer a background listing.
      joined.listing.background = false;
      // A call (urgent) does not wait behind the other queued listings: this one starts now, or
      // first in line while urgent listings already hold the limiter's urgent cap (limiter.ts).
      if (toolOptions.urgent) joined.startNow();
      return joined.tools;
    },
    refresh(plugin) {
      if (closed) return Promise.resolve();
      // Tracked from the moment it is asked for, not only once the restore is over and its listing
      // begins: listed() and settle() count a refresh still waiting for `ready`.
      return track(
        (async () => {
          await ready;
          const prefix = plugin.manifest.prefix;
          try {
            await (pending.get(prefix)?.tools ?? list(plugin, false, true));
          } catch (error) {
            log?.debug(`plugin '${prefix}': background listing failed: ${(error as Error).message}`);
          }
        })(),
      );
    },
    async settle() {
      while (work.size || writes.size) await Promise.allSettled([...work, ...writes]);
    },
    async listed() {
      while (work.size) await Promise.allSettled([...work]);
    },
    async flush() {
      while (writes.size) await Promise.allSettled([...writes]);
    },
    close() {
      closed = true;
    },
  };
}
