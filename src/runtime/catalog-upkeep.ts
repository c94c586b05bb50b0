import type { Adapter, Logger } from "../adapters/types.js";
import type { LoadedPlugin } from "../plugins/loader.js";
import type { Catalog } from "./catalog.js";

/**
 * Keeping the persistent catalogs current without starting servers nobody asked for:
 * - at start, a catalog the store lacks (first run, changed config) or holds from long ago is
 *   listed in the background, a few at a time, after a short grace so the client's handshake
 *   gets the CPU first;
 * - a catalog restored from the store is listed again once a call has started its server anyway
 *   (the listing is one request to a running server), which also catches a server upgrade.
 */

/** A stored catalog older than this is listed again in the background at start. */
export const STALE_AFTER_MS = 24 * 60 * 60 * 1000;
/** Time left to the client's handshake before background listings start. */
export const UPKEEP_GRACE_MS = 1000;

export interface Upkeep {
  stop(): void;
}

export function startCatalogUpkeep(catalog: Catalog, plugins: readonly LoadedPlugin[], log: Logger, options: { graceMs?: number; now?: () => number } = {}): Upkeep {
  const now = options.now ?? Date.now;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const due = () =>
    plugins.filter((p) => {
      if (!p.configured || !p.adapter) return false;
      const prefix = p.manifest.prefix;
      const storedAt = catalog.storedAt(prefix);
      return catalog.cached(prefix) === undefined || (storedAt !== undefined && now() - storedAt > STALE_AFTER_MS);
    });
  void catalog.ready.then(() => {
    if (stopped || !due().length) return;
    timer = setTimeout(() => {
      const list = due();
      if (stopped || !list.length) return;
      log.debug(`catalog cache: listing ${list.length} plugin(s) in the background: ${list.map((p) => p.manifest.prefix).join(", ")}`);
      for (const plugin of list) void catalog.refresh(plugin);
    }, options.graceMs ?? UPKEEP_GRACE_MS);
    timer.unref();
  });
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}

/**
 * Replace the plugin's adapter with one that calls `onUse` after each successful call. A Proxy,
 * so class adapters keep their private fields, getters and `instanceof`.
 */
export function watchAdapterUse(plugin: LoadedPlugin, onUse: () => void): void {
  const adapter = plugin.adapter;
  if (!adapter) return;
  const call: Adapter["call"] = async (name, args, ctx) => {
    const result = await adapter.call(name, args, ctx);
    onUse();
    return result;
  };
  plugin.adapter = new Proxy(adapter, {
    get(target, property) {
      if (property === "call") return call;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
