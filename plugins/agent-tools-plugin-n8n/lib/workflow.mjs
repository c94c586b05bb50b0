/**
 * What the skills read in a workflow's JSON (`{ nodes, connections }`): its nodes, whether a node
 * is a trigger, and connections that lead to no node. One reading, so the audit and the create
 * check agree on what a trigger is.
 */

export function nodeList(workflow) {
  return Array.isArray(workflow?.nodes) ? workflow.nodes : [];
}

/** A node that starts the workflow by itself: a *Trigger type, a webhook, a schedule (cron, interval), the manual start. */
export function isTrigger(node) {
  const type = String(node?.type ?? "");
  return /trigger/i.test(type) || /\.(webhook|cron|interval|start)$/i.test(type);
}

/** Whether any node of the workflow is a trigger (without one it runs only when another workflow calls it). */
export function hasTrigger(workflow) {
  return nodeList(workflow).some(isTrigger);
}

/** What makes the workflow unable to run as sent: no nodes, a connection from or to a node that does not exist. Each one a sentence. */
export function structuralProblems(workflow) {
  const problems = [];
  const nodes = nodeList(workflow);
  if (!nodes.length) problems.push("the workflow has no nodes");
  const names = new Set(nodes.map((n) => n?.name));
  const connections = workflow?.connections && typeof workflow.connections === "object" ? workflow.connections : {};
  for (const [from, outputs] of Object.entries(connections)) {
    if (!names.has(from)) problems.push(`connection from '${from}', which is not a node`);
    for (const branches of Object.values(outputs ?? {})) {
      for (const branch of Array.isArray(branches) ? branches : []) {
        for (const link of Array.isArray(branch) ? branch : []) if (link && !names.has(link.node)) problems.push(`connection from '${from}' to '${link.node}', which is not a node`);
      }
    }
  }
  return problems;
}
