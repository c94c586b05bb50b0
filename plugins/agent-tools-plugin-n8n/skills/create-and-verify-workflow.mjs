import { createAndVerify } from "agent-tools-runtime/plugin";
import { SkillArgError, onlyKnown, optionalObject, optionalString } from "../lib/args.mjs";
import { callTool } from "../lib/mcp.mjs";
import { restFor, URL_ARG } from "../lib/rest.mjs";

export const meta = {
  description: "Create a workflow without publishing it (from n8n workflow SDK code through n8n's MCP, or from workflow JSON over REST), then read it back and check it: inactive, nodes present, every connection between existing nodes, a trigger; SDK code is also checked with validate_workflow.",
  args: {
    code: "n8n workflow SDK code (or use workflow)",
    workflow: "workflow JSON {name, nodes, connections, settings?} (or use code)",
    name: "optional name (with code; with workflow it overrides workflow.name)",
    url: URL_ARG,
  },
  modes: { code: ["code", "name"], workflow: ["workflow", "name"] },
};

function workflowIdOf(answer) {
  if (!answer || typeof answer !== "object") return undefined;
  return answer.workflowId ?? answer.id ?? answer.workflow?.id;
}

export function structuralProblems(workflow) {
  const problems = [];
  const nodes = Array.isArray(workflow?.nodes) ? workflow.nodes : [];
  if (!nodes.length) problems.push("the workflow has no nodes");
  const names = new Set(nodes.map((n) => n.name));
  for (const [from, outputs] of Object.entries(workflow?.connections ?? {})) {
    if (!names.has(from)) problems.push(`connection from '${from}', which is not a node`);
    for (const branches of Object.values(outputs ?? {})) {
      for (const branch of Array.isArray(branches) ? branches : []) {
        for (const link of Array.isArray(branch) ? branch : []) if (link && !names.has(link.node)) problems.push(`connection from '${from}' to '${link.node}', which is not a node`);
      }
    }
  }
  if (nodes.length && !nodes.some((n) => /trigger|\.webhook$|\.start$/i.test(String(n.type ?? "")))) problems.push("no trigger node: the workflow can only run when called");
  return problems;
}

export async function run(adapter, rawArgs) {
  const { rest, args } = restFor(adapter, rawArgs);
  onlyKnown(args, ["code", "workflow", "name"], "skill 'create-and-verify-workflow'");
  const code = optionalString(args, "code");
  const workflow = optionalObject(args, "workflow");
  const name = optionalString(args, "name");
  if (!!code === !!workflow) throw new SkillArgError("give exactly one of 'code' (n8n workflow SDK code) or 'workflow' (workflow JSON)");

  let create;
  let validation;
  if (code) {
    validation = await callTool(adapter, "validate_workflow", { code });
    if (validation && typeof validation === "object" && validation.valid === false) {
      return { created: false, validation, note: "validate_workflow found errors; nothing was created" };
    }
    create = () => callTool(adapter, "create_workflow_from_code", { code, ...(name ? { name } : {}) });
  } else {
    if (!Array.isArray(workflow.nodes)) throw new SkillArgError("'workflow.nodes' must be a list of nodes");
    const body = { name: name ?? workflow.name, nodes: workflow.nodes, connections: workflow.connections ?? {}, settings: workflow.settings ?? {} };
    if (!body.name) throw new SkillArgError("the workflow needs a name: set 'workflow.name' or 'name'");
    create = () => rest.request("POST", "/workflows", { body });
  }
  // Created unpublished, read back, checked: any problem after the create is an error naming the id.
  const done = await createAndVerify({
    what: "workflow",
    create,
    idOf: workflowIdOf,
    read: (id) => rest.request("GET", `/workflows/${encodeURIComponent(id)}`),
    check: (stored) => [...(stored?.active === true ? ["the workflow is active although it was created unpublished"] : []), ...structuralProblems(stored)],
  });
  const stored = done.stored;
  return {
    created: true,
    id: done.id,
    name: stored.name,
    active: stored.active === true,
    nodes: Array.isArray(stored.nodes) ? stored.nodes.length : 0,
    verified: true,
    ...(validation !== undefined ? { validation } : {}),
    next: "publish it with the publish_workflow tool (or activate it in n8n) once it is right",
  };
}
