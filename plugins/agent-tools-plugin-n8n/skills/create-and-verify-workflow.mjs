import { createAndVerify } from "agent-tools-runtime/plugin";
import { SkillArgError, onlyKnown, optionalObject, optionalString } from "../lib/args.mjs";
import { callTool } from "../lib/mcp.mjs";
import { restFor, URL_ARG } from "../lib/rest.mjs";
import { hasTrigger, structuralProblems } from "../lib/workflow.mjs";

export const meta = {
  description:
    "Create a workflow without publishing it (from n8n workflow SDK code through n8n's MCP, or from workflow JSON over REST), then read it back and check it: inactive, nodes present, every connection between existing nodes. Workflow JSON is checked before anything is created; SDK code is checked with validate_workflow. A workflow without a trigger (a sub-workflow) is created and the answer says so.",
  args: {
    code: "n8n workflow SDK code (or use workflow)",
    workflow: "workflow JSON {name, nodes, connections, settings?} (or use code)",
    name: "optional name (with code; with workflow it overrides workflow.name)",
    url: URL_ARG,
  },
  modes: { code: ["code", "name"], workflow: ["workflow", "name"] },
};

const NO_TRIGGER = "the workflow has no trigger node: it runs only when another workflow calls it (a sub-workflow); add a trigger if it should start by itself";

function workflowIdOf(answer) {
  if (!answer || typeof answer !== "object") return undefined;
  return answer.workflowId ?? answer.id ?? answer.workflow?.id;
}

export async function run(adapter, rawArgs, context) {
  const { rest, args } = restFor(adapter, rawArgs, context);
  onlyKnown(args, ["code", "workflow", "name"], "skill 'create-and-verify-workflow'");
  const code = optionalString(args, "code");
  const workflow = optionalObject(args, "workflow");
  const name = optionalString(args, "name");
  if (!!code === !!workflow) throw new SkillArgError("give exactly one of 'code' (n8n workflow SDK code) or 'workflow' (workflow JSON)");
  // The read-back is REST: without the key nothing is created (code mode would create over MCP first).
  rest.requireKey();

  let create;
  let validation;
  let lookFirst = "find-workflows, or the search_workflows tool";
  if (code) {
    validation = await callTool(adapter, "validate_workflow", { code }, context);
    if (validation && typeof validation === "object" && validation.valid === false) {
      return { created: false, validation, note: "validate_workflow found errors; nothing was created" };
    }
    if (name) lookFirst = `find-workflows with namePattern ${JSON.stringify(name)}`;
    create = () => callTool(adapter, "create_workflow_from_code", { code, ...(name ? { name } : {}) }, context);
  } else {
    if (!Array.isArray(workflow.nodes)) throw new SkillArgError("'workflow.nodes' must be a list of nodes");
    const body = { name: name ?? workflow.name, nodes: workflow.nodes, connections: workflow.connections ?? {}, settings: workflow.settings ?? {} };
    if (!body.name) throw new SkillArgError("the workflow needs a name: set 'workflow.name' or 'name'");
    // What can be seen in the JSON is refused before anything exists.
    const problems = structuralProblems(body);
    if (problems.length) throw new SkillArgError(`'workflow' cannot run as sent, so nothing was created: ${problems.join("; ")}; fix 'workflow.nodes' and 'workflow.connections' (connections join node names)`);
    lookFirst = `find-workflows with namePattern ${JSON.stringify(String(body.name))}`;
    create = () => rest.request("POST", "/workflows", { body });
  }
  // Created unpublished, read back, checked: any problem after the create is an error naming the id.
  const done = await createAndVerify({
    what: "workflow",
    create,
    idOf: workflowIdOf,
    read: (id) => rest.request("GET", `/workflows/${encodeURIComponent(id)}`),
    check: (stored) => [...(stored?.active === true ? ["the workflow is active although it was created unpublished"] : []), ...structuralProblems(stored)],
    lookFirst,
  });
  const stored = done.stored;
  const trigger = hasTrigger(stored);
  return {
    created: true,
    id: done.id,
    name: stored.name,
    active: stored.active === true,
    nodes: Array.isArray(stored.nodes) ? stored.nodes.length : 0,
    trigger,
    verified: true,
    ...(trigger ? {} : { note: NO_TRIGGER }),
    ...(validation !== undefined ? { validation } : {}),
    next: "publish it with the publish_workflow tool (or activate it in n8n) once it is right",
  };
}
