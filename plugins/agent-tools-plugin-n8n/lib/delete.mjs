import { onlyKnown, requiredId } from "./args.mjs";
import { forEachLimited, restFor } from "./rest.mjs";

/**
 * The steps every delete skill shares, so the one-id skills and the bulk skills each answer in one
 * shape (README "Deletes").
 */

/**
 * A one-id delete skill: checks the arguments (`id`, and the optional `url`), deletes
 * `<collection>/<id>` and gives n8n's answer (the deleted object) for the skill to pick from.
 */
export async function deleteById(adapter, rawArgs, context, skill, collection) {
  const { rest, args } = restFor(adapter, rawArgs, context);
  onlyKnown(args, ["id"], `skill '${skill}'`);
  const id = requiredId(args, "id");
  const answer = await rest.request("DELETE", `${collection}/${encodeURIComponent(id)}`);
  return { id, answer };
}

/** Time kept back before the call's deadline, at least: no delete starts later than this. */
export const DEADLINE_RESERVE_MS = 1000;
/** The most not-started targets a report lists when the skill's own filter selects them again. */
const LISTED_LEFT = 200;

/**
 * Deletes each target (an object with an `id`) at `<collection>/<id>`, `concurrency` at a time; a
 * failure does not stop the others. `matched`, `deleted` (a count), `complete` and `failed` (each
 * target with n8n's message) are the bulk skills' answer; `deletedTargets` lists what went.
 *
 * No delete starts once the call is cancelled or its deadline (`context.deadline`) is closer than
 * twice the slowest delete so far (at least DEADLINE_RESERVE_MS): the ones running finish and the
 * answer is a partial report — `stopped` says why, `notStarted` how many, `left` which ones (all of
 * them when `again` is "ids"; the first LISTED_LEFT when running the same filter again selects
 * them) and `continue` how to go on.
 */
export async function deleteEach(rest, targets, collection, concurrency, context, again) {
  const deadline = typeof context?.deadline === "number" ? context.deadline : Infinity;
  let slowest = 0;
  let stopped;
  const stop = () => {
    if (stopped) return true;
    if (context?.signal?.aborted) stopped = "the call was cancelled";
    else if (deadline - Date.now() < Math.max(DEADLINE_RESERVE_MS, 2 * slowest)) stopped = "the call's deadline was near (AGENT_TOOLS_CALL_TIMEOUT_MS)";
    return stopped !== undefined;
  };
  const deleteOne = async (target) => {
    const started = Date.now();
    try {
      return await rest.request("DELETE", `${collection}/${encodeURIComponent(target.id)}`);
    } finally {
      slowest = Math.max(slowest, Date.now() - started);
    }
  };
  const results = await forEachLimited(targets, concurrency, deleteOne, { stop });
  const deletedTargets = targets.filter((_, i) => results[i]?.ok === true);
  const failed = targets.flatMap((target, i) => (results[i] && !results[i].ok ? [{ ...target, error: results[i].error }] : []));
  const left = targets.filter((_, i) => results[i] === undefined);
  const report = { matched: targets.length, deleted: deletedTargets.length, complete: failed.length === 0 && left.length === 0, failed, deletedTargets };
  if (!left.length) return report;
  const listed = again === "ids" ? left : left.slice(0, LISTED_LEFT);
  return {
    ...report,
    stopped: `${stopped}: ${left.length} of ${targets.length} deletes were not started`,
    notStarted: left.length,
    left: listed,
    continue:
      again === "ids"
        ? "call the skill again with 'ids' set to the ids in 'left' (and the failed ones, if they should still go)"
        : `run the skill again with the same arguments: what was deleted no longer matches${left.length > listed.length ? ` ('left' shows the first ${listed.length})` : ""}`,
  };
}
