import { createAndVerify, skillError } from "agent-tools-runtime/plugin";
import { SkillArgError, onlyKnown, requiredId } from "../lib/args.mjs";
import { byIds, checkRow, insertedIds, mismatches, readRows, rowsPath } from "../lib/datatable.mjs";
import { restFor, URL_ARG } from "../lib/rest.mjs";

export const meta = {
  description: "Insert one row (or several) into an n8n data table, then read each back by id and compare every column; answers the stored rows and any mismatch.",
  args: {
    dataTableId: "required: the data table's id (search_data_tables or data-table-crud finds it)",
    row: "an object of column → value (or use rows)",
    rows: "a list of such objects (or use row)",
    url: URL_ARG,
  },
  related: [{ target: "n8n:data-table-crud", why: "read, update or delete rows" }],
};

export async function run(adapter, rawArgs, context) {
  const { rest, args } = restFor(adapter, rawArgs, context);
  onlyKnown(args, ["dataTableId", "row", "rows"], "skill 'insert-and-verify-datatable-row'");
  const tableId = requiredId(args, "dataTableId");
  if ((args.row === undefined) === (args.rows === undefined)) throw new SkillArgError("give exactly one of 'row' (an object) or 'rows' (a list of objects)");
  const rows = args.row !== undefined ? [checkRow(args.row, "row")] : Array.isArray(args.rows) && args.rows.length ? args.rows.map((r, i) => checkRow(r, `rows[${i}]`)) : (() => { throw new SkillArgError("'rows' must be a non-empty list of objects"); })();
  return insertAndVerify(rest, tableId, rows);
}

/** How to find rows whose insert got no answer: a read filtered on one value the first row sent. */
function lookFirstFor(tableId, row) {
  const [columnName, value] = Object.entries(row).find(([, v]) => v !== null && v !== undefined) ?? ["id", null];
  const filter = { type: "and", filters: [{ columnName, condition: "eq", value }] };
  return `data-table-crud with operation "read", dataTableId ${JSON.stringify(tableId)} and filter ${JSON.stringify(filter)}`;
}

/** Insert rows, read them back by id, compare each column (the kit's createAndVerify: one failure contract). */
export async function insertAndVerify(rest, tableId, rows) {
  const rowChecks = (stored, ids) =>
    ids.map((id, i) => {
      const row = stored.find((r) => String(r.id) === String(id));
      return row ? { id, found: true, mismatches: mismatches(rows[i], row), row } : { id, found: false, mismatches: [] };
    });
  const done = await createAndVerify({
    what: "data table row",
    create: () => rest.request("POST", rowsPath(tableId), { body: { data: rows, returnType: "all" } }),
    idOf: (answer) => {
      const ids = insertedIds(answer);
      if (ids.length && ids.length !== rows.length) {
        throw skillError("UPSTREAM_ERROR", `n8n answered ${ids.length} row id(s) for ${rows.length} inserted row(s); verify the table by hand`, { details: { stage: "id", rowIds: ids } });
      }
      return ids;
    },
    read: (ids) => readRows(rest, tableId, byIds(ids)),
    lookFirst: lookFirstFor(tableId, rows[0]),
    check: (stored, answer) =>
      rowChecks(stored, insertedIds(answer))
        .filter((c) => !c.found || c.mismatches.length)
        .map((c) => (c.found ? `row ${c.id}: ${c.mismatches.map((m) => `${m.column} (sent ${JSON.stringify(m.expected)}, stored ${JSON.stringify(m.actual)})`).join(", ")}` : `row ${c.id} is not in the table`)),
  });
  return { dataTableId: tableId, inserted: done.id.length, verified: true, rows: rowChecks(done.stored, done.id) };
}
