import { outcomeUnknown, unknownOutcomeError } from "agent-tools-runtime/plugin";
import { SkillArgError, onlyKnown, optionalObject, optionalString, requiredString } from "../lib/args.mjs";
import { restFor, URL_ARG } from "../lib/rest.mjs";

export const meta = {
  description: "Create an n8n credential. With only 'type' it answers that type's schema (GET /credentials/schema/{type}) so you know which 'data' fields to send; with 'name' and 'data' it creates the credential. OAuth2 types still need a person to finish the browser consent in n8n.",
  args: {
    type: "required: the credential type, e.g. slackApi, githubApi, googleSheetsOAuth2Api",
    name: "the credential's name (with data: creates)",
    data: "the credential's fields, as the type's schema lists them (with name: creates)",
    url: URL_ARG,
  },
  modes: { schema: ["type"], create: ["type", "name", "data"] },
};

const isOAuth2 = (type) => /oauth2/i.test(type);
const CONSENT = "this is an OAuth2 credential: after it is created, a person must open it in the n8n editor and click 'Connect' to finish the browser consent; no API call can do that step";

export async function run(adapter, rawArgs, context) {
  const { rest, args } = restFor(adapter, rawArgs, context);
  onlyKnown(args, ["type", "name", "data"], "skill 'create-credential'");
  const type = requiredString(args, "type", "the credential type, e.g. slackApi");
  const name = optionalString(args, "name");
  const data = optionalObject(args, "data");
  if (!name && !data) {
    const schema = await rest.request("GET", `/credentials/schema/${encodeURIComponent(type)}`);
    return { type, schema, next: "call again with 'name' and 'data' holding the schema's required fields", ...(isOAuth2(type) ? { oauth2: CONSENT } : {}) };
  }
  if (!name || !data) throw new SkillArgError(`give both 'name' and 'data' to create (missing '${name ? "data" : "name"}'), or only 'type' to see the schema`);
  let created;
  try {
    created = await rest.request("POST", "/credentials", { body: { name, type, data } });
  } catch (error) {
    // No answer is not a refusal: n8n may have stored it, and creating it again makes a second one.
    if (outcomeUnknown(error)) throw unknownOutcomeError("credential", error, `audit-workflows with mode "credentials" lists every credential: look for the name ${JSON.stringify(name)}`);
    throw error;
  }
  return { created: true, id: created?.id, name: created?.name ?? name, type: created?.type ?? type, ...(isOAuth2(type) ? { oauth2: CONSENT } : {}) };
}
