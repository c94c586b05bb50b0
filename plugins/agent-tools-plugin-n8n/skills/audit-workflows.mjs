import { skillError } from "agent-tools-runtime/plugin";
import { SkillArgError, namePatternMatcher, onlyKnown, optionalId, optionalInt, optionalString, optionalStringList } from "../lib/args.mjs";
import { callTool } from "../lib/mcp.mjs";
import { restFor, URL_ARG } from "../lib/rest.mjs";
import { isTrigger, nodeList } from "../lib/workflow.mjs";

/**
 * Audits in four modes. The mode and every argument are checked against that mode's list: an
 * unknown mode or an argument of another mode (or nested one level too deep) is an error naming
 * the valid ones, never a silent fall-back to the default audit.
 */

const MODES = {
  default: { args: ["namePattern"], what: "risky configuration: webhooks without authentication, active workflows without a trigger, credentials written into node parameters, active workflows with every node disabled" },
  nativeAudit: { args: ["categories", "daysAbandonedWorkflow"], what: "n8n's own security audit (POST /audit)" },
  executions: { args: ["status", "workflowId", "limit"], what: "failed (or other status) executions grouped by workflow" },
  credentials: { args: [], what: "credentials and which workflows use them; unused ones listed" },
};
const AUDIT_CATEGORIES = ["credentials", "database", "nodes", "filesystem", "instance"];
/** The statuses n8n's GET /executions accepts. */
const EXECUTION_STATUSES = ["error", "success", "waiting", "running", "canceled"];

export const meta = {
  description: "Audit the instance's workflows. mode: default (risky configuration), nativeAudit (n8n's POST /audit), executions (failures by workflow), credentials (usage, unused credentials).",
  args: {
    mode: `optional: ${Object.keys(MODES).join(" | ")} (default: default)`,
    namePattern: "mode default: only workflows whose name matches (text or * ? glob)",
    categories: `mode nativeAudit: some of ${AUDIT_CATEGORIES.join(", ")}`,
    daysAbandonedWorkflow: "mode nativeAudit: days without a run after which a workflow counts as abandoned",
    status: `mode executions: ${EXECUTION_STATUSES.join(", ")} (default error)`,
    workflowId: "mode executions: one workflow only",
    limit: "mode executions: most executions read, 1-5000 (default 500)",
    url: URL_ARG,
  },
  modes: Object.fromEntries(Object.entries(MODES).map(([name, m]) => [name, { args: m.args, what: m.what }])),
};

export async function run(adapter, rawArgs, context) {
  const { rest, args } = restFor(adapter, rawArgs, context);
  const mode = args.mode === undefined || args.mode === null ? "default" : args.mode;
  if (typeof mode !== "string" || !(mode in MODES)) {
    throw new SkillArgError(`unknown mode ${JSON.stringify(mode)}; valid modes: ${Object.keys(MODES).join(", ")}`);
  }
  const rest_args = { ...args };
  delete rest_args.mode;
  onlyKnown(rest_args, MODES[mode].args, `audit-workflows mode '${mode}'`);
  if (mode === "nativeAudit") return nativeAudit(rest, rest_args);
  if (mode === "executions") return executionsAudit(rest, rest_args);
  if (mode === "credentials") return credentialsAudit(rest, adapter, context);
  return riskAudit(rest, rest_args);
}

function isWebhook(node) {
  return /\.webhook$/i.test(String(node?.type ?? ""));
}

const SECRET_KEY = /^(authorization|x-api-key|api[-_]?key|password|secret|token|access[-_]?token)$/i;

/** Header or query pairs like `{ name: "Authorization", value: "Bearer abc" }` written in a node. */
function inlineSecrets(node) {
  const found = [];
  const visit = (value, path) => {
    if (Array.isArray(value)) return value.forEach((v, i) => visit(v, `${path}[${i}]`));
    if (!value || typeof value !== "object") return;
    if (typeof value.name === "string" && typeof value.value === "string" && SECRET_KEY.test(value.name) && value.value && !value.value.startsWith("={{")) {
      found.push(`${path}.${value.name}`);
    }
    for (const [key, v] of Object.entries(value)) visit(v, path ? `${path}.${key}` : key);
  };
  visit(node?.parameters, "parameters");
  return found;
}

async function riskAudit(rest, args) {
  const pattern = optionalString(args, "namePattern");
  const matches = namePatternMatcher(pattern);
  const { items } = await rest.listAll("/workflows");
  const workflows = items.filter((w) => matches(w?.name));
  const findings = [];
  for (const w of workflows) {
    const nodes = nodeList(w);
    const where = { workflowId: w.id, workflow: w.name, active: w.active === true };
    for (const node of nodes.filter(isWebhook)) {
      const auth = node.parameters?.authentication;
      if (!auth || auth === "none") {
        findings.push({ ...where, severity: w.active ? "high" : "medium", rule: "webhook-without-authentication", node: node.name, fix: "set the Webhook node's Authentication (header, basic or JWT auth)" });
      }
    }
    if (w.active === true && !nodes.some(isTrigger)) {
      findings.push({ ...where, severity: "medium", rule: "active-without-trigger", fix: "add a trigger node or deactivate the workflow" });
    }
    if (w.active === true && nodes.length > 0 && nodes.every((n) => n.disabled === true)) {
      findings.push({ ...where, severity: "low", rule: "active-with-every-node-disabled", fix: "deactivate the workflow or enable its nodes" });
    }
    for (const node of nodes) {
      for (const field of inlineSecrets(node)) {
        findings.push({ ...where, severity: "high", rule: "credential-in-parameters", node: node.name, field, fix: "move the value into an n8n credential" });
      }
    }
  }
  const bySeverity = { high: 0, medium: 0, low: 0 };
  for (const f of findings) bySeverity[f.severity]++;
  return { mode: "default", workflowsChecked: workflows.length, findings: findings.length, bySeverity, results: findings };
}

async function nativeAudit(rest, args) {
  const categories = optionalStringList(args, "categories");
  const bad = (categories ?? []).filter((c) => !AUDIT_CATEGORIES.includes(c));
  if (bad.length) throw new SkillArgError(`unknown audit categor${bad.length > 1 ? "ies" : "y"} ${bad.map((c) => `'${c}'`).join(", ")}; valid: ${AUDIT_CATEGORIES.join(", ")}`);
  const days = optionalInt(args, "daysAbandonedWorkflow", { min: 1, max: 3650 });
  const additionalOptions = { ...(categories ? { categories } : {}), ...(days ? { daysAbandonedWorkflow: days } : {}) };
  const report = await rest.request("POST", "/audit", { body: Object.keys(additionalOptions).length ? { additionalOptions } : {} });
  const reports = report && typeof report === "object" ? Object.keys(report) : [];
  return { mode: "nativeAudit", reports, report };
}

async function executionsAudit(rest, args) {
  const status = optionalString(args, "status") ?? "error";
  if (!EXECUTION_STATUSES.includes(status)) throw new SkillArgError(`'status' must be one of ${EXECUTION_STATUSES.join(", ")} (got '${status}')`);
  const workflowId = optionalId(args, "workflowId");
  const limit = optionalInt(args, "limit", { min: 1, max: 5000 }) ?? 500;
  const { items, complete } = await rest.listAll("/executions", { status, ...(workflowId ? { workflowId } : {}) }, { max: limit });
  const groups = new Map();
  for (const e of items) {
    const key = String(e.workflowId ?? "unknown");
    const group = groups.get(key) ?? { workflowId: key, count: 0, latest: undefined, executionIds: [] };
    group.count++;
    if (group.executionIds.length < 5) group.executionIds.push(e.id);
    const at = e.stoppedAt ?? e.startedAt;
    if (at && (!group.latest || at > group.latest)) group.latest = at;
    groups.set(key, group);
  }
  const byWorkflow = [...groups.values()].sort((a, b) => b.count - a.count);
  return { mode: "executions", status, executionsRead: items.length, ...(complete ? {} : { limited: `stopped at limit ${limit}` }), workflows: byWorkflow.length, byWorkflow };
}

/**
 * Every credential: GET /credentials where the instance's public API has it; older versions only
 * create and delete credentials over REST (404/405 there), so n8n's MCP list_credentials answers.
 */
async function listCredentials(rest, adapter, context) {
  try {
    return { credentials: (await rest.listAll("/credentials")).items, source: "rest" };
  } catch (error) {
    if (error?.status !== 404 && error?.status !== 405) throw error;
    const answer = await callTool(adapter, "list_credentials", {}, context);
    const list = Array.isArray(answer) ? answer : Array.isArray(answer?.data) ? answer.data : Array.isArray(answer?.credentials) ? answer.credentials : undefined;
    if (!list) throw skillError("UPSTREAM_ERROR", `GET /credentials is not available (HTTP ${error.status}) and list_credentials answered no list`);
    return { credentials: list, source: "mcp" };
  }
}

async function credentialsAudit(rest, adapter, context) {
  const [{ credentials, source }, { items: workflows }] = await Promise.all([listCredentials(rest, adapter, context), rest.listAll("/workflows")]);
  const usage = new Map();
  for (const w of workflows) {
    for (const node of nodeList(w)) {
      for (const ref of Object.values(node.credentials ?? {})) {
        const id = String(ref?.id ?? "");
        if (!id) continue;
        const list = usage.get(id) ?? [];
        if (!list.some((u) => u.workflowId === w.id)) list.push({ workflowId: w.id, workflow: w.name, active: w.active === true });
        usage.set(id, list);
      }
    }
  }
  const rows = credentials.map((c) => ({ id: c.id, name: c.name, type: c.type, usedBy: usage.get(String(c.id)) ?? [] }));
  const unused = rows.filter((r) => r.usedBy.length === 0).map(({ id, name, type }) => ({ id, name, type }));
  return { mode: "credentials", source, credentials: rows.length, unused: unused.length, unusedCredentials: unused, usage: rows.filter((r) => r.usedBy.length) };
}
