import { createAndVerify, skillContext } from "agent-tools-runtime/plugin";

/**
 * Create a PocketBase record, read it back by its new id, and compare every field sent with what
 * PocketBase stored (the kit's createAndVerify). PocketBase casts values to the field's type and
 * ignores fields the collection does not have, so a difference here is real information: it is
 * an error naming the new id and each field, never smoothed over. A failed create is an error
 * with nothing to clean up.
 */

export const meta = {
  description:
    "Create a record and verify it: read it back by its new id and compare every field sent with what PocketBase stored (it casts types and drops unknown fields). Answers {verified: true, id, checks, record}; a failed read-back or a mismatch is an error naming the new id and what differed.",
  args: {
    type: "object",
    properties: {
      collection: { type: "string", minLength: 1, description: "The collection's name or id." },
      data: { type: "object", minProperties: 1, description: "The field values to store.", additionalProperties: true },
    },
    required: ["collection", "data"],
    additionalProperties: false,
  },
  related: [{ target: "tasks:insert-and-verify-task", why: "the same check for the tasks API" }],
};

/** PocketBase never returns an auth record's password fields: they are not compared, nor echoed. */
const WRITE_ONLY_FIELDS = ["password", "passwordConfirm", "oldPassword"];

export async function run(adapter, { collection, data }, context) {
  const kit = skillContext(adapter, context);
  const done = await createAndVerify({
    what: `'${collection}' record`,
    create: () => kit.call("create_record", { collection, data }),
    idOf: (created) => (typeof created?.id === "string" ? created.id : undefined),
    read: (id) => kit.call("get_record", { collection, id }),
    expect: data,
    secret: WRITE_ONLY_FIELDS,
    check: (stored, created) => (stored?.id === created?.id ? [] : [`the record read back has id ${JSON.stringify(stored?.id)}`]),
  });
  return { verified: true, id: done.id, collection, checks: done.checks, record: done.stored };
}
