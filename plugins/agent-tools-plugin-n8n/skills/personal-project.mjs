import { skillError } from "agent-tools-runtime/plugin";
import { onlyKnown } from "../lib/args.mjs";
import { callTool } from "../lib/mcp.mjs";
import { URL_ARG, withoutUrlArg } from "../lib/rest.mjs";

/**
 * The caller's personal project; the manifest's discoverContext runs this on the first discover.
 * GET /projects first; when REST cannot answer (no N8N_API_KEY, or an edition whose public API
 * has no /projects) n8n's MCP search_projects is asked instead, so MCP-only setups get it too.
 */
export const meta = {
  description: "The personal project of the caller (id and name), so calls that need a projectId need not guess it. Discover answers already carry it as `context`.",
  args: { url: URL_ARG },
};

function personalOf(list) {
  const found = (Array.isArray(list) ? list : []).find((p) => p?.type === "personal");
  return found ? { id: found.id, name: found.name } : undefined;
}

export async function run(adapter, rawArgs, context) {
  // Without a known instance (N8N_MCP_URL alone, no /mcp-server/ path) only the MCP tool is asked.
  const rest = adapter?.n8nRest;
  const args = withoutUrlArg(rest?.instance, rawArgs);
  onlyKnown(args, [], "skill 'personal-project'");
  let restError;
  if (rest?.instance) {
    try {
      const { items } = await rest.listAll("/projects", {}, { signal: context?.signal });
      const personal = personalOf(items);
      if (personal) return { personalProject: personal, source: "rest" };
    } catch (error) {
      restError = error;
    }
  }
  let answer;
  try {
    answer = await callTool(adapter, "search_projects", {}, context);
  } catch (mcpError) {
    const why = [restError && `GET /projects: ${restError.message}`, `search_projects: ${mcpError.message}`].filter(Boolean).join("; ");
    throw skillError("UPSTREAM_ERROR", `the personal project could not be found (${why})`);
  }
  const personal = personalOf(answer?.data ?? answer?.projects ?? answer);
  if (personal) return { personalProject: personal, source: "mcp" };
  return { personalProject: null, note: "no personal project is visible to these credentials; pass projectId explicitly" };
}
