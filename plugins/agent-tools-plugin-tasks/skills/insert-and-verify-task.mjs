/**
 * Create a task, read it back by its new id, and compare what was sent with what was stored,
 * field by field. The answer is a report: `verified` is true only when the read-back worked and
 * every field matched. A failed read-back or a mismatch is reported (with the new id, so the
 * task can be found or removed), never smoothed over. A failed create is an error: there is no
 * task to verify.
 */

export const meta = {
  description:
    "Create a task and verify it: read it back by its new id and compare every field sent with what the API stored. Answers {verified, id, checks, mismatches, task}; a failed read-back or a mismatch gives verified: false with the problem.",
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

function message(error) {
  return error instanceof Error ? error.message : String(error);
}

export async function run(adapter, args) {
  const sent = {};
  for (const field of FIELDS) if (args[field] !== undefined) sent[field] = args[field];

  let created;
  try {
    created = await adapter.call("create_task", sent);
  } catch (error) {
    throw Object.assign(new Error(`create_task failed, so there is nothing to verify: ${message(error)}`), { code: error?.code });
  }
  const id = created?.data?.id;
  if (id === undefined || id === null) {
    return { verified: false, id: null, problem: "create_task answered without an id; the task cannot be read back", created: created?.data ?? null };
  }

  let stored;
  try {
    stored = (await adapter.call("get_task", { id })).data;
  } catch (error) {
    return {
      verified: false,
      id,
      problem: `task ${id} was created, but reading it back failed: ${message(error)}`,
      created: created.data,
    };
  }

  const checks = FIELDS.map((field) => {
    const expected = field in sent ? sent[field] : DEFAULTS[field];
    const actual = stored?.[field];
    return { field, sent: field in sent ? sent[field] : undefined, expected, stored: actual, match: JSON.stringify(expected) === JSON.stringify(actual ?? null) };
  });
  if (String(stored?.id) !== String(id)) checks.unshift({ field: "id", expected: id, stored: stored?.id, match: false });
  const mismatches = checks.filter((check) => !check.match).map((check) => check.field);
  return {
    verified: mismatches.length === 0,
    id,
    ...(mismatches.length ? { problem: `task ${id} was stored differently from what was sent: ${mismatches.join(", ")}` } : {}),
    checks,
    mismatches,
    task: stored,
  };
}
