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
export async function deleteById(adapter, rawArgs, skill, collection) {
  const { rest, args } = restFor(adapter, rawArgs);
  onlyKnown(args, ["id"], `skill '${skill}'`);
  const id = requiredId(args, "id");
  const answer = await rest.request("DELETE", `${collection}/${encodeURIComponent(id)}`);
  return { id, answer };
}

/**
 * Deletes each target (an object with an `id`) at `<collection>/<id>`, `concurrency` at a time; a
 * failure does not stop the others. `matched`, `deleted` (a count), `complete` and `failed` (each
 * target with n8n's message) are the bulk skills' answer; `deletedTargets` lists what went.
 */
export async function deleteEach(rest, targets, collection, concurrency) {
  const results = await forEachLimited(targets, concurrency, (target) => rest.request("DELETE", `${collection}/${encodeURIComponent(target.id)}`));
  const deletedTargets = targets.filter((_, i) => results[i].ok);
  const failed = targets.flatMap((target, i) => (results[i].ok ? [] : [{ ...target, error: results[i].error }]));
  return { matched: targets.length, deleted: deletedTargets.length, complete: failed.length === 0, failed, deletedTargets };
}
