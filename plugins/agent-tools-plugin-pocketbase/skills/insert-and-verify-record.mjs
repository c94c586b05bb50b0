/**
 * Create a PocketBase record, read it back by its new id, and compare every field sent with what
 * PocketBase stored. PocketBase casts values to the field's type and ignores fields the
 * collection does not have, so a difference here is real information: it is reported, not
 * smoothed over. A failed read-back is reported with the new id. A failed create is an error.
 */

export const meta = {
  description:
    "Create a record and verify it: read it back by its new id and compare every field sent with what PocketBase stored (it casts types and drops unknown fields). Answers {verified, id, checks, mismatches, record}; a failed read-back or a mismatch gives verified: false with the problem.",
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

function message(error) {
  return error instanceof Error ? error.message : String(error);
}

const WRITE_ONLY_FIELDS = new Set(["password", "passwordConfirm", "oldPassword"]);

export async function run(adapter, { collection, data }) {
  let created;
  try {
    created = await adapter.call("create_record", { collection, data });
  } catch (error) {
    throw Object.assign(new Error(`create_record in '${collection}' failed, so there is nothing to verify: ${message(error)}`), { code: error?.code });
  }
  const id = created?.data?.id;
  if (typeof id !== "string" || id === "") {
    return { verified: false, id: null, problem: "create_record answered without an id; the record cannot be read back", created: created?.data ?? null };
  }

  let stored;
  try {
    stored = (await adapter.call("get_record", { collection, id })).data;
  } catch (error) {
    return { verified: false, id, collection, problem: `record ${id} was created in '${collection}', but reading it back failed: ${message(error)}`, created: created.data };
  }

  // PocketBase never returns an auth record's password fields: they cannot be compared, and their
  // values must not be echoed into the answer.
  const checks = Object.entries(data).filter(([field]) => !WRITE_ONLY_FIELDS.has(field)).map(([field, sent]) => {
    const present = stored !== null && typeof stored === "object" && field in stored;
    const value = present ? stored[field] : undefined;
    return { field, sent, stored: value, present, match: present && JSON.stringify(sent) === JSON.stringify(value) };
  });
  if (stored?.id !== id) checks.unshift({ field: "id", sent: id, stored: stored?.id, present: true, match: false });
  const mismatches = checks.filter((c) => !c.match).map((c) => c.field);
  return {
    verified: mismatches.length === 0,
    id,
    collection,
    ...(mismatches.length
      ? {
          problem: `record ${id} in '${collection}' differs from what was sent: ${checks
            .filter((c) => !c.match)
            .map((c) => (c.present ? `${c.field} (sent ${JSON.stringify(c.sent)}, stored ${JSON.stringify(c.stored)})` : `${c.field} (not stored: the collection has no such field)`))
            .join(", ")}`,
        }
      : {}),
    checks,
    mismatches,
    record: stored,
  };
}
