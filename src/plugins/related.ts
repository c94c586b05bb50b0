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
