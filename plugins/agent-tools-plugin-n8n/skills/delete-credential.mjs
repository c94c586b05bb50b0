import { deleteById } from "../lib/delete.mjs";
import { URL_ARG } from "../lib/rest.mjs";

export const meta = {
  description: "Delete one n8n credential by id (DELETE /credentials/{id}). Runs without confirmation.",
  args: { id: "required: the credential's id", url: URL_ARG },
};

export async function run(adapter, rawArgs, context) {
  const { id, answer } = await deleteById(adapter, rawArgs, context, "delete-credential", "/credentials");
  return { deleted: true, id, name: answer?.name, type: answer?.type };
}
