import { SkillArgError, onlyKnown, requiredId } from "../lib/args.mjs";
import { byIds, checkRow, insertedIds, mismatches, readRows, rowsPath } from "../lib/datatable.mjs";
import { restFor } from "../lib/rest.mjs";

export const meta = {
  description: "Insert one row (or several) into an n8n data table, then read each back by id and compare every column; answers the stored rows and any mismatch.",
  args: {
    dataTableId: "required: the data table's id (search_data_tables or data-table-crud finds it)",
    row: "an object of column → value (or use rows)",
    rows: "a list of such objects (or use row)",
    url: "optional; must be the configured instance if given",
  },
  related: [{ target: "n8n:data-table-crud", why: "read, update or delete rows" }],
};

export async function run(adapter, rawArgs) {
  const { rest, args } = restFor(adapter, rawArgs);
  onlyKnown(args, ["dataTableId", "row", "rows"], "skill 'insert-and-verify-datatable-row'");
  const tableId = requiredId(args, "dataTableId");
  if ((args.row === undefined) === (args.rows === undefined)) throw new SkillArgError("give exactly one of 'row' (an object) or 'rows' (a list of objects)");
  const rows = args.row !== undefined ? [checkRow(args.row, "row")] : Array.isArray(args.rows) && args.rows.length ? args.rows.map((r, i) => checkRow(r, `rows[${i}]`)) : (() => { throw new SkillArgError("'rows' must be a non-empty list of objects"); })();
  return insertAndVerify(rest, tableId, rows);
}

export async function insertAndVerify(rest, tableId, rows) {
  const answer = await rest.request("POST", rowsPath(tableId), { body: { data: rows, returnType: "all" } });
  const ids = insertedIds(answer);
  if (ids.length !== rows.length) {
    throw Object.assign(new Error(`n8n answered ${ids.length} row id(s) for ${rows.length} inserted row(s); verify the table by hand`), { code: "UPSTREAM_ERROR" });
  }
  let stored;
  try {
    stored = await readRows(rest, tableId, byIds(ids));
  } catch (error) {
    throw Object.assign(new Error(`inserted row id(s) ${ids.join(", ")} but reading them back failed: ${error.message}`), { code: error.code ?? "UPSTREAM_ERROR" });
  }
  const checks = ids.map((id, i) => {
    const row = stored.find((r) => String(r.id) === String(id));
    return row ? { id, found: true, mismatches: mismatches(rows[i], row), row } : { id, found: false, mismatches: [] };
  });
  const verified = checks.every((c) => c.found && c.mismatches.length === 0);
  return { dataTableId: tableId, inserted: ids.length, verified, rows: checks };
}
