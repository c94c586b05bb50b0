/**
 * The n8n plugin against a real n8n instance, when one is configured: set N8N_INSTANCE_URL (or
 * N8N_MCP_URL), N8N_API_KEY and N8N_MCP_TOKEN (e.g. for `npx n8n` on http://localhost:5678, after
 * creating an API key and turning on instance-level MCP in its settings), build (`npm run build`),
 * then `node --import tsx bench/n8n-live.ts`. Read-only checks, then one workflow created
 * unpublished and deleted again (named agent-tools-bench-<time>). Prints one line per check and
 * the time it took; without the variables it says what is missing and exits 0.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { silentLogger } from "../src/log.js";
import { createRuntime } from "../src/runtime/runtime.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const env = process.env;
const missing = [!(env.N8N_INSTANCE_URL || env.N8N_MCP_URL) && "N8N_INSTANCE_URL", !env.N8N_API_KEY && "N8N_API_KEY", !env.N8N_MCP_TOKEN && "N8N_MCP_TOKEN"].filter(Boolean);
if (missing.length) {
  console.log(`n8n live bench skipped: set ${missing.join(", ")} to run it against a real instance`);
  process.exit(0);
}

const runtime = await createRuntime({ pluginDirs: [path.join(ROOT, "plugins", "agent-tools-plugin-n8n")], log: silentLogger, env });
const session = runtime.createSession();
let failures = 0;

async function check(name: string, work: () => Promise<{ isError: boolean; payload: object }>, summary: (p: Record<string, unknown>) => string): Promise<Record<string, unknown> | undefined> {
  const started = performance.now();
  const outcome = await work();
  const isError = outcome.isError;
  const payload = outcome.payload as Record<string, unknown>;
  const ms = Math.round(performance.now() - started);
  if (isError) {
    failures++;
    console.log(`FAIL ${name} (${ms} ms): ${JSON.stringify((payload.error as { message?: string })?.message ?? payload)}`);
    return undefined;
  }
  console.log(`pass ${name} (${ms} ms): ${summary(payload)}`);
  return payload;
}

const skill = (name: string, args: Record<string, unknown> = {}) => () => runtime.runSkill(session, "n8n", { skill: name, arguments: args });
const result = (p: Record<string, unknown>) => (p.result ?? {}) as Record<string, unknown>;

await check("discover", () => runtime.discover(session, "n8n", {}), (p) => `${String((p.totals as { tools: number }).tools)} tools, context ${JSON.stringify(p.context ?? p.contextError)}`);
await check("call search_workflows", () => runtime.call(session, "n8n", { toolName: "search_workflows", arguments: {} }), () => "answered");
await check("find-workflows", skill("find-workflows", { pageSize: 5 }), (p) => `${String(result(p).total)} workflows over ${String(result(p).restPages)} REST pages`);
await check("audit-workflows default", skill("audit-workflows"), (p) => `${String(result(p).findings)} findings in ${String(result(p).workflowsChecked)} workflows`);
await check("audit-workflows nativeAudit", skill("audit-workflows", { mode: "nativeAudit" }), (p) => `reports ${JSON.stringify(result(p).reports)}`);
await check("audit-workflows credentials", skill("audit-workflows", { mode: "credentials" }), (p) => `${String(result(p).credentials)} credentials, ${String(result(p).unused)} unused`);
await check("find-node-types", skill("find-node-types", { queries: ["http request"] }), () => "answered");
await check("create-credential (schema)", skill("create-credential", { type: "httpHeaderAuth" }), () => "schema answered");
const created = await check(
  "create-and-verify-workflow",
  skill("create-and-verify-workflow", {
    workflow: {
      name: `agent-tools-bench-${Date.now()}`,
      nodes: [{ name: "Manual Trigger", type: "n8n-nodes-base.manualTrigger", typeVersion: 1, position: [0, 0], parameters: {} }],
      connections: {},
    },
  }),
  (p) => `id ${String(result(p).id)}, verified ${String(result(p).verified)}`,
);
if (created) await check("delete-workflow", skill("delete-workflow", { id: result(created).id }), (p) => `deleted ${String(result(p).id)}`);

await runtime.close();
console.log(failures ? `${failures} check(s) failed` : "all checks passed");
process.exitCode = failures ? 1 : 0;
