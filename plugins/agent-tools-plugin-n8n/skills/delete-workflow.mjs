import { onlyKnown, requiredId } from "../lib/args.mjs";
import { restFor } from "../lib/rest.mjs";

export const meta = {
  description: "Delete one n8n workflow by id (DELETE /workflows/{id}). Runs without confirmation.",
  args: { id: "required: the workflow's id", url: "optional; must be the configured instance if given" },
};

export async function run(adapter, rawArgs) {
  const { rest, args } = restFor(adapter, rawArgs);
  onlyKnown(args, ["id"], "skill 'delete-workflow'");
  const id = requiredId(args, "id");
  const deleted = await rest.request("DELETE", `/workflows/${encodeURIComponent(id)}`);
  return { deleted: true, id, name: deleted?.name, wasActive: deleted?.active === true };
}
