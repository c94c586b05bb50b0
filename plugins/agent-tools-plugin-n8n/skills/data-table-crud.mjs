import { describeError, skillError } from "agent-tools-runtime/plugin";
import { SkillArgError, onlyKnown, optionalInt, optionalObject, optionalStringList, requiredId } from "../lib/args.mjs";
import { byIds, checkRow, mismatches, readRows, rowsPath } from "../lib/datatable.mjs";
import { restFor, URL_ARG } from "../lib/rest.mjs";
import { insertAndVerify } from "./insert-and-verify-datatable-row.mjs";

const OPERATIONS = {
  create: ["dataTableId", "row", "rows"],
  read: ["dataTableId", "rowIds", "filter", "limit"],
  update: ["dataTableId", "rowIds", "filter", "data"],
  delete: ["dataTableId", "rowIds", "filter"],
};

export const meta = {
  description: "Create, read, update or delete rows of an n8n data table; every change is verified by reading the rows back.",
  args: {
    operation: "required: create | read | update | delete",
    dataTableId: "required: the data table's id",
    row: "create: one object of column → value",
    rows: "create: a list of such objects",
    rowIds: "read/update/delete: row ids (or use filter)",
    filter: 'read/update/delete: n8n\'s row filter {"type":"and","filters":[{"columnName":"email","condition":"eq","value":"a@b.c"}]}',
    data: "update: the columns to set, an object of column → value",
    limit: "read: most rows answered, 1-5000 (default 100)",
    url: URL_ARG,
  },
  modes: OPERATIONS,
};

function selection(args, operation) {
  const ids = optionalStringList(args, "rowIds");
  const filter = optionalObject(args, "filter");
  if (ids && filter) throw new SkillArgError(`give 'rowIds' or 'filter' for ${operation}, not both`);
  if (filter && !Array.isArray(filter.filters)) throw new SkillArgError(`'filter' must be {"type":"and"|"or","filters":[{"columnName","condition","value"}]}`);
  // n8n applies an empty condition list to every row: a change must name its rows.
  if (filter && filter.filters.length === 0 && operation !== "read") {
    throw new SkillArgError(`'filter.filters' is empty, which would ${operation} every row; ${operation} never touches every row: give 'rowIds', or at least one condition such as {"columnName":"email","condition":"eq","value":"a@b.c"}`);
  }
  return ids ? byIds(ids) : filter;
}

export async function run(adapter, rawArgs, context) {
  const { rest, args } = restFor(adapter, rawArgs, context);
  const operation = args.operation;
  if (typeof operation !== "string" || !(operation in OPERATIONS)) {
    throw new SkillArgError(`'operation' must be one of ${Object.keys(OPERATIONS).join(", ")} (got ${JSON.stringify(operation)})`);
  }
  const rest_args = { ...args };
  delete rest_args.operation;
  onlyKnown(rest_args, OPERATIONS[operation], `data-table-crud operation '${operation}'`);
  const tableId = requiredId(rest_args, "dataTableId");

  if (operation === "create") {
    if ((rest_args.row === undefined) === (rest_args.rows === undefined)) throw new SkillArgError("create needs exactly one of 'row' or 'rows'");
    const rows = rest_args.row !== undefined ? [checkRow(rest_args.row, "row")] : (Array.isArray(rest_args.rows) ? rest_args.rows : []).map((r, i) => checkRow(r, `rows[${i}]`));
    if (!rows.length) throw new SkillArgError("'rows' must be a non-empty list of objects");
    return { operation, ...(await insertAndVerify(rest, tableId, rows)) };
  }

  const filter = selection(rest_args, operation);
  if (operation === "read") {
    const limit = optionalInt(rest_args, "limit", { min: 1, max: 5000 }) ?? 100;
    const rows = await readRows(rest, tableId, filter, limit);
    return { operation, dataTableId: tableId, count: rows.length, rows };
  }
  if (!filter) throw new SkillArgError(`${operation} needs 'rowIds' or 'filter'; it never touches every row by default`);

  if (operation === "update") {
    const data = checkRow(optionalObject(rest_args, "data"), "data");
    const answer = await rest.request("PATCH", `${rowsPath(tableId)}/update`, { body: { filter, data, returnData: true } });
    const changed = Array.isArray(answer) ? answer : Array.isArray(answer?.data) ? answer.data : [];
    const ids = changed.map((r) => r.id);
    if (!ids.length) return { operation, dataTableId: tableId, updated: 0, verified: true, note: "no row matched the selection" };
    let after;
    try {
      after = await readRows(rest, tableId, byIds(ids));
    } catch (error) {
      throw skillError("UPSTREAM_ERROR", `updated row id(s) ${ids.join(", ")} but reading them back failed: ${describeError(error)}`, { details: { rowIds: ids } });
    }
    const checks = ids.map((id) => {
      const row = after.find((r) => String(r.id) === String(id));
      return row ? { id, found: true, mismatches: mismatches(data, row), row } : { id, found: false, mismatches: [] };
    });
    return { operation, dataTableId: tableId, updated: ids.length, verified: checks.every((c) => c.found && !c.mismatches.length), rows: checks };
  }

  // delete
  const answer = await rest.request("DELETE", `${rowsPath(tableId)}/delete`, { query: { filter, returnData: true } });
  const removed = Array.isArray(answer) ? answer : Array.isArray(answer?.data) ? answer.data : [];
  const ids = removed.map((r) => (r && typeof r === "object" ? r.id : r)).filter((id) => id !== undefined);
  let remaining;
  try {
    remaining = ids.length ? await readRows(rest, tableId, byIds(ids)) : [];
  } catch (error) {
    throw skillError("UPSTREAM_ERROR", `deleted row id(s) ${ids.join(", ")} but reading back to verify failed: ${describeError(error)}`, { details: { rowIds: ids } });
  }
  return { operation, dataTableId: tableId, deleted: ids.length, rowIds: ids, verified: remaining.length === 0, ...(remaining.length ? { stillPresent: remaining.map((r) => r.id) } : {}) };
}
