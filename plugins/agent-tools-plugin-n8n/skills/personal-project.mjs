import { onlyKnown } from "../lib/args.mjs";
import { restFor } from "../lib/rest.mjs";

/** The caller's personal project; the manifest's discoverContext runs this on the first discover. */
export const meta = {
  description: "The personal project of the API key's owner (id and name), so calls that need a projectId need not guess it. Discover answers already carry it as `context`.",
  args: { url: "optional; must be the configured instance if given" },
};

export async function run(adapter, rawArgs) {
  const { rest, args } = restFor(adapter, rawArgs);
  onlyKnown(args, [], "skill 'personal-project'");
  const { items } = await rest.listAll("/projects");
  const personal = items.find((p) => p?.type === "personal");
  if (!personal) return { personalProject: null, note: `no personal project among the ${items.length} projects the API key can see` };
  return { personalProject: { id: personal.id, name: personal.name }, instance: rest.instance };
}
