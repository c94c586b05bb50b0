import { deleteById } from "../lib/delete.mjs";
import { URL_ARG } from "../lib/rest.mjs";

export const meta = {
  description: "Delete one n8n execution by id (DELETE /executions/{id}). Runs without confirmation.",
  args: { id: "required: the execution's id", url: URL_ARG },
};

export async function run(adapter, rawArgs, context) {
  const { id, answer } = await deleteById(adapter, rawArgs, context, "delete-execution", "/executions");
  return { deleted: true, id, workflowId: answer?.workflowId, status: answer?.status };
}
