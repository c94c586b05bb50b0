/**
 * A JSON object as the runtime reads arguments, params and results: an object that is not an
 * array (null excluded). One definition, imported where a value's shape is checked. (The plugin
 * kit, src/plugin.ts, keeps its own line: its import graph is pinned module by module, see
 * test/plugin-kit.test.ts.)
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}
