/**
 * The value at a dotted path in decoded JSON (`data.token`, `errors.0.message`), or undefined when
 * any step is missing. One reader for every place a manifest names a field: token paths, items
 * paths, error-rule placeholders.
 */
export function valueAt(value: unknown, dotted: string): unknown {
  let current: unknown = value;
  for (const key of dotted.split(".").filter(Boolean)) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}
