import type { Adapter, Logger } from "../adapters/types.js";
import type { LoadedPlugin } from "../plugins/loader.js";
import type { Catalog } from "./catalog.js";

/**
 * Keeping the persistent catalogs current without starting servers nobody asked for:
 * - at start, a catalog the store lacks (first run, changed config) or holds from long ago is
 *   listed in the background, a few at a time, after a short grace so the client's handshake
 *   gets the CPU first;
 * - a catalog restored from the store is listed again once a call has started its server anyway
 *   (the listing is one request to a running server), which also catches a server upgrade;
 * - a call naming a tool a restored catalog lacks lists the plugin at once, before the name is
 *   refused (the pipeline's resolve step, `relistTools`): the server may have added it since.
 */

/** A stored catalog older than this is listed again in the background at start. */
export const STALE_AFTER_MS = 24 * 60 * 60 * 1000;
/** Time left to the client's handshake before background listings start. */
export const UPKEEP_GRACE_MS = 1000;

export interface Upkeep {
  /** Settles once the start-up listings are queued (after the grace), or at once when none are due. */
  readonly begun: Promise<void>;
  stop(): void;
}

export function startCatalogUpkeep(catalog: Catalog, plugins: readonly LoadedPlugin[], log: Logger, options: { graceMs?: number; now?: () => number } = {}): Upkeep {
  const now = options.now ?? Date.now;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let markBegun!: () => void;
  const begun = new Promise<void>((resolve) => (markBegun = resolve));
  const due = () =>
    plugins.filter((p) => {
      if (!p.configured || !p.adapter) return false;
      const prefix = p.manifest.prefix;
      const storedAt = catalog.storedAt(prefix);
      return catalog.cached(prefix) === undefined || (storedAt !== undefined && now() - storedAt > STALE_AFTER_MS);
    });
  void catalog.ready.then(() => {
    if (stopped || !due().length) return markBegun();
    timer = setTimeout(() => {
      const list = due();
      if (!stopped && list.length) {
        log.debug(`catalog cache: listing ${list.length} plugin(s) in the background: ${list.map((p) => p.manifest.prefix).join(", ")}`);
        for (const plugin of list) void catalog.refresh(plugin);
      }
      markBegun();
    }, options.graceMs ?? UPKEEP_GRACE_MS);
    timer.unref();
  }, () => markBegun());
  return {
    begun,
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      markBegun();
    },
  };
}

/**
 * Call `onUse` after each successful call of the plugin's adapter until it answers false. The
 * adapter's own `call` is shadowed on the instance (no Proxy in front of every property read),
 * and the original is put back once watching is over, so later calls cost nothing.
 */
export function watchAdapterUse(plugin: LoadedPlugin, onUse: () => boolean): void {
  const adapter = plugin.adapter;
  if (!adapter) return;
  const hadOwn = Object.prototype.hasOwnProperty.call(adapter, "call");
  const original = adapter.call;
  const watched: Adapter["call"] = async (name, args, ctx) => {
    const result = await original.call(adapter, name, args, ctx);
    if (!onUse() && adapter.call === watched) {
      if (hadOwn) adapter.call = original;
      else delete (adapter as Partial<Adapter>).call;
    }
    return result;
  };
  try {
    adapter.call = watched;
  } catch {
    // A frozen adapter: its restored catalog is confirmed by the daily listing instead.
  }
}
