import type { LoadedPlugin } from "../plugins/loader.js";

/**
 * A plugin-declared discover context (`discoverContext: { skill, arguments? }` in the manifest):
 * the named skill is run on the first discover of that plugin and its result is attached to every
 * discover answer as `context`, so the agent gets facts it would otherwise have to look up (for
 * n8n, the personal project id). A success is kept for the runtime's life; a failure is not kept,
 * so the next discover tries again, and is reported beside the answer rather than failing it.
 */

export type SkillRunner = (plugin: LoadedPlugin, skill: string, args: Record<string, unknown>) => Promise<unknown>;

export interface DiscoverContexts {
  /** undefined when the plugin declares no context. Rejects with the skill's error. */
  get(plugin: LoadedPlugin): Promise<unknown> | undefined;
}

export function createDiscoverContexts(run: SkillRunner): DiscoverContexts {
  const cache = new Map<string, Promise<unknown>>();
  return {
    get(plugin) {
      const declared = plugin.manifest.discoverContext;
      if (!declared) return undefined;
      const prefix = plugin.manifest.prefix;
      let pending = cache.get(prefix);
      if (!pending) {
        pending = run(plugin, declared.skill, declared.arguments);
        cache.set(prefix, pending);
        pending.catch(() => cache.delete(prefix));
      }
      return pending;
    },
  };
}
