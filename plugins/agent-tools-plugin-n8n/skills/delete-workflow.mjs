import { deleteById } from "../lib/delete.mjs";
import { URL_ARG } from "../lib/rest.mjs";

export const meta = {
  description: "Delete one n8n workflow by id (DELETE /workflows/{id}). Runs without confirmation.",
  args: { id: "required: the workflow's id", url: URL_ARG },
};

export async function run(adapter, rawArgs, context) {
  const { id, answer } = await deleteById(adapter, rawArgs, context, "delete-workflow", "/workflows");
  return { deleted: true, id, name: answer?.name, wasActive: answer?.active === true };
}
