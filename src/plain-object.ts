/**
 * A JSON object as the runtime reads arguments, params and results: an object that is not an
 * array (null excluded). One definition, imported where a value's shape is checked. (The plugin
 * kit, src/plugin.ts, keeps its own line: its import graph is pinned module by module, see
 * test/plugin-kit.test.ts.)
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

/**
 * `target[key] = value` as an own, enumerable field whatever the key: a key from outside (a spec's
 * property named `__proto__`) set with `=` would replace the object's prototype instead.
 */
export function setOwnField(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
