import { createAndVerify, skillContext } from "agent-tools-runtime/plugin";

/**
 * Create a task, read it back by its new id, and compare what was sent with what was stored,
 * field by field (the kit's createAndVerify). Success means verified. A failed create is an error
 * with nothing to clean up; any failure after it (no id, a failed read-back, a field that
 * differs) is an error whose details carry the new id, so the task can be found or removed.
 */

export const meta = {
  description:
    "Create a task and verify it: read it back by its new id and compare every field sent with what the API stored. Answers {verified: true, id, checks, task}; a failed read-back or a mismatch is an error naming the new id and what differed.",
  args: {
    type: "object",
    properties: {
      title: { type: "string", minLength: 1, maxLength: 200, description: "What is to be done." },
      description: { type: "string", maxLength: 4000, description: "Details (default empty)." },
      status: { type: "string", enum: ["todo", "doing", "done"], description: "Default todo." },
      due: { type: ["string", "null"], description: "Due date YYYY-MM-DD, or null." },
    },
    required: ["title"],
    additionalProperties: false,
  },
  related: [{ target: "pocketbase:insert-and-verify-record", why: "the same check for a PocketBase record" }],
};

/** What the API stores for a field that was not sent. */
const DEFAULTS = { description: "", status: "todo", due: null };
const FIELDS = ["title", "description", "status", "due"];

/** The API answers `{task}`; an older server answered the bare task. */
const taskOf = (answer) => (answer && typeof answer === "object" && "task" in answer ? answer.task : answer);

export async function run(adapter, args, context) {
  const kit = skillContext(adapter, context);
  const sent = {};
  for (const field of FIELDS) if (args[field] !== undefined) sent[field] = args[field];
  const expect = Object.fromEntries(FIELDS.map((field) => [field, field in sent ? sent[field] : DEFAULTS[field]]));
  const done = await createAndVerify({
    what: "task",
    create: () => kit.call("create_task", sent),
    idOf: (created) => taskOf(created)?.id,
    read: (id) => kit.call("get_task", { id }),
    storedOf: taskOf,
    expect,
    check: (stored, created) => (String(stored?.id) === String(taskOf(created)?.id) ? [] : [`the task read back has id ${stored?.id}`]),
  });
  return { verified: true, id: done.id, checks: done.checks, task: done.stored };
}
