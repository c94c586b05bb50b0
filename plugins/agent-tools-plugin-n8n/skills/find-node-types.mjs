import { SkillArgError, onlyKnown, optionalStringList } from "../lib/args.mjs";
import { callTool } from "../lib/mcp.mjs";
import { URL_ARG, withoutUrlArg } from "../lib/rest.mjs";

export const meta = {
  description: "Find n8n node types: 'queries' searches node names and descriptions (search_nodes); 'nodeIds' fetches exact definitions with parameters (get_node_types). Give one, not both.",
  args: {
    queries: 'words to search, e.g. ["slack", "google sheets"] (or use nodeIds)',
    nodeIds: 'exact node type ids, e.g. ["n8n-nodes-base.httpRequest"] (or use queries)',
    url: URL_ARG,
  },
  modes: { queries: ["queries"], nodeIds: ["nodeIds"] },
};

export async function run(adapter, rawArgs, context) {
  // Its calls go to the MCP tools only; `url` is checked as the REST skills check it.
  const args = withoutUrlArg(adapter?.n8nRest?.instance, rawArgs);
  onlyKnown(args, ["queries", "nodeIds"], "skill 'find-node-types'");
  const queries = optionalStringList(args, "queries");
  const nodeIds = optionalStringList(args, "nodeIds");
  if (queries && nodeIds) throw new SkillArgError("give 'queries' (to search) or 'nodeIds' (exact definitions), not both");
  if (!queries && !nodeIds) throw new SkillArgError("give 'queries' (words to search) or 'nodeIds' (exact node type ids)");
  if (queries) return { mode: "queries", queries, results: await callTool(adapter, "search_nodes", { queries }, context) };
  return { mode: "nodeIds", nodeIds, definitions: await callTool(adapter, "get_node_types", { nodeIds }, context) };
}
