import type { LoadedPlugin } from "./loader.js";

/** A skill's `related` link whose target ("prefix:skill") does not resolve to a loaded skill. */
export interface BrokenRelatedLink {
  from: string;
  target: string;
  reason: string;
}

export function findBrokenRelatedLinks(plugins: readonly LoadedPlugin[]): BrokenRelatedLink[] {
  const byPrefix = new Map(plugins.map((p) => [p.manifest.prefix, p]));
  const broken: BrokenRelatedLink[] = [];
  for (const plugin of plugins) {
    for (const skill of plugin.skills) {
      const from = `${plugin.manifest.prefix}:${skill.name}`;
      for (const link of skill.meta.related ?? []) {
        const [prefix, name, ...rest] = link.target.split(":");
        if (!prefix || !name || rest.length > 0) {
          broken.push({ from, target: link.target, reason: "must be written 'prefix:skill'" });
          continue;
        }
        const target = byPrefix.get(prefix);
        if (!target) broken.push({ from, target: link.target, reason: `no loaded plugin has prefix '${prefix}'` });
        else if (!target.skills.some((s) => s.name === name)) {
          broken.push({ from, target: link.target, reason: `plugin '${prefix}' has no skill '${name}' (skills: ${target.skills.map((s) => s.name).join(", ") || "none"})` });
        }
      }
    }
  }
  return broken;
}

/**
 * Take `broken` links out of what their skills show (discover, search, help): a link to nothing
 * would send the model to a skill it cannot run. Each stays a problem (findBrokenRelatedLinks), for
 * the plugin's author to fix.
 */
export function dropBrokenRelatedLinks(plugins: readonly LoadedPlugin[], broken: readonly BrokenRelatedLink[]): void {
  if (!broken.length) return;
  for (const plugin of plugins) {
    for (const skill of plugin.skills) {
      const from = `${plugin.manifest.prefix}:${skill.name}`;
      const related = skill.meta.related ?? [];
      const kept = related.filter((link) => !broken.some((b) => b.from === from && b.target === link.target));
      if (kept.length !== related.length) skill.meta.related = kept;
    }
  }
}
