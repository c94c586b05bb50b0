/**
 * Every string of a plugin's adapter block (or `requires`) with where it is: the settings the
 * runtime resolves `${VAR}`s in. A tool's `description` is prose, never resolved: skipped.
 */
export interface BlockString {
  segments: (string | number)[];
  value: string;
}

export function blockStrings(value: unknown, segments: (string | number)[] = []): BlockString[] {
  if (typeof value === "string") return [{ segments, value }];
  if (Array.isArray(value)) return value.flatMap((item, i) => blockStrings(item, [...segments, i]));
  if (value !== null && typeof value === "object") return Object.entries(value).flatMap(([key, item]) => (key === "description" ? [] : blockStrings(item, [...segments, key])));
  return [];
}
