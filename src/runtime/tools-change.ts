import type { Logger, ToolDescriptor } from "../adapters/types.js";
import type { LoadedPlugin } from "../plugins/loader.js";
import { sameTools, type Catalog } from "./catalog.js";
import { summedLines } from "./summed-lines.js";

/**
 * What the runtime does when a downstream server says `notifications/tools/list_changed`.
 *
 * - Calls wait for the new list: the catalog entry is invalidated at once, so a call to a tool the
 *   server just added is not refused against the old list.
 * - Search keeps the old entries until the new list is in (the catalog's listing replaces them):
 *   no moment in which the plugin's tools are missing from search.
 * - A burst of notices costs one listing more, not one per notice. Servers send several in a row
 *   (`@modelcontextprotocol/server-everything` sends four as it starts, each of which used to
 *   start a listing of its own). While a listing runs, further notices only ask for one more
 *   after it, since it may have been answered before the last change.
 * - The facade is told (`announce`) once the new list is in, and only when it differs from the
 *   list before the notices, or could not be read; it tells a client only when that client's own
 *   tools/list changes with it (facade/server.ts, announceToolsChanged). The info line saying so
 *   is written at most once a minute per plugin, with a count of the rest (summed-lines.ts): a
 *   server that changes its list on every call must not fill the log.
 *   A client is not sent to list again what did not change, nor told before search and discover
 *   show the change. A list nobody had read yet (the plugin's first listing still under way) is
 *   no change to a client either.
 * - Whatever else would tell the client of the same listing (the runtime's `learnAbout`: a
 *   generic server's description follows its tools) asks `joins` first: during a relisting it is
 *   said once, at its end.
 */
export interface ToolsChangeFollower {
  /** A downstream's `tools/list_changed` for this plugin. */
  changed(plugin: LoadedPlugin): void;
  /**
   * Whether a relisting after a notice is under way for the prefix; if so, its end tells the
   * client (whatever the lists' comparison says), and the caller need not.
   */
  joins(prefix: string): boolean;
  /** Writes the counts of changes not yet said (the runtime's close). */
  close(): void;
}

interface Following {
  /** Another notice came while listing: list once more. */
  again: boolean;
  /** Something else changed with this listing: tell the client in any case. */
  announce: boolean;
}

export function followToolsChanges(
  catalog: Pick<Catalog, "cached" | "fresh" | "invalidate" | "refresh">,
  log: Logger,
  announce: (prefix: string) => void,
): ToolsChangeFollower {
  /** Per plugin, while its listings after a notice run. */
  const following = new Map<string, Following>();
  const changeLines = summedLines((line) => log.info(line));

  async function relist(plugin: LoadedPlugin, before: ToolDescriptor[] | undefined, state: Following): Promise<void> {
    const prefix = plugin.manifest.prefix;
    try {
      while (state.again) {
        state.again = false;
        // Failures are the catalog's to log; `fresh` is then undefined.
        await catalog.refresh(plugin);
      }
    } finally {
      following.delete(prefix);
    }
    if (!state.announce) {
      if (before === undefined) return;
      const after = catalog.fresh(prefix);
      if (after !== undefined && sameTools(before, after)) {
        log.debug(`plugin '${prefix}': listed again after tools/list_changed; the same ${after.length} tools`);
        return;
      }
    }
    changeLines.say(prefix, `plugin '${prefix}' changed its tool list`);
    announce(prefix);
  }

  function changed(plugin: LoadedPlugin): void {
    const prefix = plugin.manifest.prefix;
    log.debug(`plugin '${prefix}': its server says its tool list changed`);
    const under = following.get(prefix);
    const before = under ? undefined : catalog.cached(prefix);
    catalog.invalidate(prefix);
    if (under) {
      under.again = true;
      return;
    }
    const state: Following = { again: true, announce: false };
    following.set(prefix, state);
    void relist(plugin, before, state);
  }

  function joins(prefix: string): boolean {
    const state = following.get(prefix);
    if (state) state.announce = true;
    return state !== undefined;
  }

  return { changed, joins, close: () => changeLines.close() };
}
