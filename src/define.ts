import type { Adapter, AdapterOptions } from "./adapters/types.js";
import type { SkillContext, SkillMeta } from "./plugins/skills.js";

/**
 * Typed helpers for plugin authors writing in TypeScript. They return their input unchanged; a
 * plain `.mjs` module with the same exports works just as well.
 */

export function definePlugin<T extends (options: AdapterOptions) => Adapter | Promise<Adapter>>(factory: T): T {
  return factory;
}

export function defineSkill<A extends Record<string, unknown>>(skill: {
  meta: SkillMeta;
  run(adapter: Adapter, args: A, context?: SkillContext): Promise<unknown>;
}): typeof skill {
  return skill;
}
