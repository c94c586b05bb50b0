import { SkillArgError, onlyKnown, optionalId, optionalInt, optionalString, optionalStringList } from "../lib/args.mjs";
import { deleteEach } from "../lib/delete.mjs";
import { restFor, URL_ARG } from "../lib/rest.mjs";

/** Statuses of GET /executions that can be deleted (a running execution cannot). */
const STATUSES = ["error", "success", "waiting", "canceled"];

export const meta = {
  description: "Delete many executions concurrently: the listed 'ids', or every execution matching 'workflowId' and/or 'status' (one selection is required). Runs without confirmation.",
  args: {
    ids: "execution ids to delete (or use workflowId/status)",
    workflowId: "delete the executions of this workflow",
    status: `delete executions with this status: ${STATUSES.join(", ")}`,
    limit: "most executions deleted by a filter, 1-10000 (default 1000)",
    concurrency: "parallel deletes, 1-16 (default 8)",
    url: URL_ARG,
  },
};

export async function run(adapter, rawArgs, context) {
  const { rest, args } = restFor(adapter, rawArgs, context);
  onlyKnown(args, ["ids", "workflowId", "status", "limit", "concurrency"], "skill 'delete-executions-bulk'");
  const ids = optionalStringList(args, "ids");
  const workflowId = optionalId(args, "workflowId");
  const status = optionalString(args, "status");
  const limit = optionalInt(args, "limit", { min: 1, max: 10_000 }) ?? 1000;
  const concurrency = optionalInt(args, "concurrency", { min: 1, max: 16 }) ?? 8;
  if (status && !STATUSES.includes(status)) throw new SkillArgError(`'status' must be one of ${STATUSES.join(", ")} (got '${status}')`);
  if (ids && (workflowId || status)) throw new SkillArgError("give 'ids', or a filter ('workflowId'/'status'), not both");
  if (!ids && !workflowId && !status) throw new SkillArgError("give 'ids', 'workflowId' or 'status': this skill never deletes every execution by default");
  const selected = ids ?? (await rest.listAll("/executions", { ...(workflowId ? { workflowId } : {}), ...(status ? { status } : {}) }, { max: limit })).items.map((e) => String(e.id));
  const { deletedTargets: _ids, ...report } = await deleteEach(rest, selected.map((id) => ({ id })), "/executions", concurrency, context, ids ? "ids" : "filter");
  return report;
}
