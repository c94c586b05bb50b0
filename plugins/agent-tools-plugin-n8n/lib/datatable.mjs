import { SkillArgError } from "./args.mjs";

/**
 * Data table rows over n8n's public API: GET/POST /data-tables/{id}/rows, PATCH .../rows/update,
 * DELETE .../rows/delete. Row filters are n8n's `{ type: "and"|"or", filters: [{ columnName,
 * condition, value }] }`, sent as JSON in the `filter` query parameter for reads and deletes.
 */

export function byIds(ids) {
  if (ids.length === 1) return { type: "and", filters: [{ columnName: "id", condition: "eq", value: ids[0] }] };
  return { type: "or", filters: ids.map((id) => ({ columnName: "id", condition: "eq", value: id })) };
}

export function rowsPath(tableId) {
  return `/data-tables/${encodeURIComponent(tableId)}/rows`;
}

export async function readRows(rest, tableId, filter, max = 1000) {
  const { items } = await rest.listAll(rowsPath(tableId), filter ? { filter } : {}, { max });
  return items;
}

/** Row values must be an object of column → scalar. */
export function checkRow(row, name) {
  if (!row || typeof row !== "object" || Array.isArray(row) || Object.keys(row).length === 0) {
    throw new SkillArgError(`'${name}' must be an object of column name → value, e.g. {"email":"a@b.c","score":3}`);
  }
  for (const [key, value] of Object.entries(row)) {
    if (value !== null && typeof value === "object" && !(value instanceof Date)) throw new SkillArgError(`'${name}.${key}' must be a string, number, boolean, date string or null`);
  }
  return row;
}

/** Which fields of `expected` a read-back row does not hold (numbers and strings compared loosely). */
export function mismatches(expected, actual) {
  const out = [];
  for (const [key, value] of Object.entries(expected)) {
    const got = actual?.[key];
    const same = got === value || (got !== null && got !== undefined && value !== null && String(got) === String(value)) || (typeof value === "string" && typeof got === "string" && Date.parse(value) === Date.parse(got) && !Number.isNaN(Date.parse(value)));
    if (!same) out.push({ column: key, expected: value, actual: got === undefined ? null : got });
  }
  return out;
}

/** Row ids from a POST /rows answer with returnType "all" (or "id"). */
export function insertedIds(answer) {
  const list = Array.isArray(answer) ? answer : Array.isArray(answer?.data) ? answer.data : [];
  return list.map((r) => (r && typeof r === "object" ? r.id : r)).filter((id) => id !== undefined && id !== null);
}
