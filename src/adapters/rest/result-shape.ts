import { assertSpec } from "../shared/errors.js";
import { RestSpecError } from "./errors.js";
import { REST_RESULT_SHAPE_SCHEMA } from "../block-schema-data.js";
import type { ResultShapeBlock } from "./schema.js";

/**
 * A tool's `result`: what of the decoded body reaches the model. APIs answer with far more than a
 * model needs (a GitHub repository is ~100 fields), and some lists mix kinds (GitHub's issues
 * endpoint returns pull requests too). Applied after pagination, to each item.
 * ```json
 * "result": { "itemsPath": "items", "drop": ["pull_request"],
 *             "fields": { "name": "full_name", "stars": "stargazers_count", "labels": "labels[].name" },
 *             "first": false }
 * ```
 *  - `itemsPath`: where the list sits in a non-paginated body ("items"); default: the body when it
 *    is an array. Other properties of the body (`total_count`) are kept.
 *  - `drop`: an item is left out when any of these dot paths holds a value (not null/undefined);
 *    a paginated result then says how many were left out in `dropped`.
 *  - `fields`: output key → dot path; `a[].b` maps over the array at `a`. Missing values are left
 *    out. Applied to each list item, or to the body itself when it is an object and not a list.
 *  - `first`: the list becomes its first item (null when empty), e.g. "the latest commit".
 */

export interface ResultShape {
  itemsPath?: string;
  drop?: string[];
  fields?: Record<string, string>;
  first?: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Check a tool's `result` against ResultShapeSchema (every problem at once, named after `field`). */
export function parseResultShape(value: unknown, field: string): ResultShape | undefined {
  if (value === undefined) return undefined;
  assertSpec<ResultShapeBlock>(RestSpecError, REST_RESULT_SHAPE_SCHEMA, value, field);
  return { ...value };
}

/** Read a dot path; a segment `name[]` maps the rest of the path over the array found there. */
export function pick(value: unknown, segments: readonly string[]): unknown {
  if (segments.length === 0) return value;
  if (!isRecord(value)) return undefined;
  const [head = "", ...rest] = segments;
  if (head.endsWith("[]")) {
    const list = value[head.slice(0, -2)];
    if (!Array.isArray(list)) return undefined;
    return list.map((item) => pick(item, rest)).filter((v) => v !== undefined);
  }
  return pick(value[head], rest);
}

function segmentsOf(dotted: string): string[] {
  return dotted.split(".");
}

function present(item: unknown, dotted: string): boolean {
  const value = pick(item, segmentsOf(dotted));
  return value !== undefined && value !== null;
}

function project(item: unknown, fields: Readonly<Record<string, string>> | undefined): unknown {
  if (!fields || !isRecord(item)) return item;
  const out: Record<string, unknown> = {};
  for (const [name, dotted] of Object.entries(fields)) {
    const value = pick(item, segmentsOf(dotted));
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** Drop and project a list of items; `dropped` counts the items left out. */
export function shapeItems(items: readonly unknown[], shape: ResultShape): { items: unknown[]; dropped: number } {
  const kept = shape.drop ? items.filter((item) => !shape.drop?.some((p) => present(item, p))) : [...items];
  return { items: kept.map((item) => project(item, shape.fields)), dropped: items.length - kept.length };
}

/** Shape a non-paginated body. */
export function shapeBody(data: unknown, shape: ResultShape): unknown {
  const list = shape.itemsPath ? pick(data, segmentsOf(shape.itemsPath)) : data;
  if (!Array.isArray(list)) return shape.itemsPath ? data : project(data, shape.fields);
  const { items } = shapeItems(list, shape);
  const shaped: unknown = shape.first ? (items[0] ?? null) : items;
  if (!shape.itemsPath || !isRecord(data)) return shaped;
  // Keep the envelope (total_count and the like), with the list replaced at its path.
  return replaceAt(data, segmentsOf(shape.itemsPath), shaped);
}

function replaceAt(value: Record<string, unknown>, segments: readonly string[], replacement: unknown): Record<string, unknown> {
  const [head = "", ...rest] = segments;
  const inner = value[head];
  return { ...value, [head]: rest.length === 0 || !isRecord(inner) ? replacement : replaceAt(inner, rest, replacement) };
}
