import { SkillArgError, namePatternMatcher, onlyKnown, optionalBoolean, optionalString } from "../lib/args.mjs";
import { deleteEach } from "../lib/delete.mjs";
import { restFor, URL_ARG } from "../lib/rest.mjs";

export const meta = {
  description: "Delete every workflow matching 'active' and/or 'namePattern' (one of them is required: it never deletes everything by default). dryRun lists the matches without deleting. Runs without confirmation.",
  args: {
    active: "true or false: only active / inactive workflows",
    namePattern: "text found in the name, or a * ? glob over the whole name",
    dryRun: "optional: true lists what would be deleted",
    url: URL_ARG,
  },
};

export async function run(adapter, rawArgs, context) {
  const { rest, args } = restFor(adapter, rawArgs, context);
  onlyKnown(args, ["active", "namePattern", "dryRun"], "skill 'delete-workflows-bulk'");
  const active = optionalBoolean(args, "active");
  const pattern = optionalString(args, "namePattern");
  const dryRun = optionalBoolean(args, "dryRun") ?? false;
  if (active === undefined && pattern === undefined) throw new SkillArgError("give 'active' and/or 'namePattern': this skill never deletes every workflow by default");
  const { items } = await rest.listAll("/workflows", active === undefined ? {} : { active });
  const matches = namePatternMatcher(pattern);
  const targets = items.filter((w) => matches(w?.name)).map((w) => ({ id: w.id, name: w.name, active: w.active === true }));
  if (dryRun) return { dryRun: true, matched: targets.length, workflows: targets };
  const { deletedTargets, ...report } = await deleteEach(rest, targets, "/workflows", 4, context, "filter");
  return { ...report, deletedWorkflows: deletedTargets };
}
