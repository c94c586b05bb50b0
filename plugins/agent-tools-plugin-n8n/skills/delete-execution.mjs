import { onlyKnown, requiredId } from "../lib/args.mjs";
import { restFor } from "../lib/rest.mjs";

export const meta = {
  description: "Delete one n8n execution by id (DELETE /executions/{id}). Runs without confirmation.",
  args: { id: "required: the execution's id", url: "optional; must be the configured instance if given" },
};

export async function run(adapter, rawArgs) {
  const { rest, args } = restFor(adapter, rawArgs);
  onlyKnown(args, ["id"], "skill 'delete-execution'");
  const id = requiredId(args, "id");
  const deleted = await rest.request("DELETE", `/executions/${encodeURIComponent(id)}`);
  return { deleted: true, id, workflowId: deleted?.workflowId, status: deleted?.status };
}
