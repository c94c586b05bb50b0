import { SkillArgError, namePatternMatcher, onlyKnown, optionalBoolean, optionalString, optionalStringList } from "../lib/args.mjs";
import { deleteEach } from "../lib/delete.mjs";
import { restFor, URL_ARG } from "../lib/rest.mjs";

export const meta = {
  description: "Delete several data tables (and their rows): the listed 'ids', or every table whose name matches 'namePattern' (one is required). dryRun lists the matches. Runs without confirmation.",
  args: {
    ids: "data table ids (or use namePattern)",
    namePattern: "text found in the name, or a * ? glob over the whole name",
    dryRun: "optional: true lists what would be deleted",
    url: URL_ARG,
  },
};

export async function run(adapter, rawArgs, context) {
  const { rest, args } = restFor(adapter, rawArgs, context);
  onlyKnown(args, ["ids", "namePattern", "dryRun"], "skill 'delete-data-tables-bulk'");
  const ids = optionalStringList(args, "ids");
  const pattern = optionalString(args, "namePattern");
  const dryRun = optionalBoolean(args, "dryRun") ?? false;
  if (ids && pattern) throw new SkillArgError("give 'ids' or 'namePattern', not both");
  if (!ids && !pattern) throw new SkillArgError("give 'ids' or 'namePattern': this skill never deletes every data table by default");
  let targets;
  if (ids) targets = ids.map((id) => ({ id }));
  else {
    const matches = namePatternMatcher(pattern);
    targets = (await rest.listAll("/data-tables")).items.filter((t) => matches(t?.name)).map((t) => ({ id: String(t.id), name: t.name }));
  }
  if (dryRun) return { dryRun: true, matched: targets.length, dataTables: targets };
  const { deletedTargets, ...report } = await deleteEach(rest, targets, "/data-tables", 4, context, ids ? "ids" : "filter");
  return { ...report, deletedDataTables: deletedTargets };
}
