// n8n's built-in MCP server (Settings → MCP) as commands, configured on the host:
//   N8N_MCP_URL, or N8N_INSTANCE_URL (then the URL is <instance>/mcp-server/http);
//   N8N_MCP_TOKEN, the MCP access token (bearer). The token stays on the host.
// Tools on the read-only list run without --confirm; any other tool (create, update, run,
// delete…) needs --confirm.

export const name = "n8n-mcp";
export const description = "An n8n instance's MCP server: n8n-search, n8n-auth-status, n8n-describe, n8n-call [--confirm] (read-only tools need no --confirm).";
export const variables = [
  { name: "N8N_MCP_URL", description: "the instance's MCP endpoint, e.g. https://n8n.example.com/mcp-server/http" },
  { name: "N8N_INSTANCE_URL", description: "the instance's base URL, used when N8N_MCP_URL is not set" },
  { name: "N8N_MCP_TOKEN", description: "the MCP access token from n8n's settings (bearer)", secret: true },
];
export const commands = ["n8n-search", "n8n-auth-status", "n8n-describe", "n8n-call"];

/** Tools that only read: no --confirm needed. Everything else changes something. */
export const READ_ONLY_TOOLS = Object.freeze([
  "search_workflows",
  "get_workflow_details",
  "get_workflow_history",
  "get_workflow_version",
  "search_executions",
  "get_execution",
  "search_nodes",
  "get_node_types",
  "get_workflow_best_practices",
  "explore_node_resources",
  "validate_workflow",
  "validate_node_config",
  "get_sdk_reference",
  "list_credentials",
  "list_tags",
  "search_projects",
  "search_folders",
  "search_data_tables",
]);

/** Where the MCP endpoint is, and which variable said so; undefined when neither is set. */
export function endpointOf(env) {
  if (env.N8N_MCP_URL) return { url: env.N8N_MCP_URL, from: "N8N_MCP_URL" };
  if (env.N8N_INSTANCE_URL) return { url: `${env.N8N_INSTANCE_URL.replace(/\/+$/, "")}/mcp-server/http`, from: "N8N_INSTANCE_URL" };
  return undefined;
}

/** For status: what is not set (n8n's MCP server always wants its token). */
export function missing(env) {
  return [...(endpointOf(env) ? [] : ["N8N_MCP_URL or N8N_INSTANCE_URL"]), ...(env.N8N_MCP_TOKEN ? [] : ["N8N_MCP_TOKEN"])];
}

export function setup(host) {
  let made;
  const client = () => {
    if (made) return made;
    const endpoint = endpointOf(host.env);
    if (!endpoint) {
      const error = new Error("n8n is not configured: set N8N_MCP_URL (or N8N_INSTANCE_URL) and N8N_MCP_TOKEN in the server's environment");
      error.code = "NOT_CONFIGURED";
      throw error;
    }
    // The runtime's generic HTTP client, given n8n's settings under its own variable names.
    const env = { ...host.env, AGENT_MCP_URL: endpoint.url, AGENT_MCP_TOKEN: host.env.N8N_MCP_TOKEN ?? "" };
    made = host.lib.mcpClientFromEnv(env, { log: host.log, name: "n8n" });
    return made;
  };
  const readOnly = new Set(READ_ONLY_TOOLS);
  const trio = host.lib.mcpToolCommands({
    prefix: "n8n",
    label: "n8n",
    client,
    needsConfirm: (tool) => !readOnly.has(tool.name),
    confirmRule: "read-only tools (search_*, get_*, list_*, validate_*, …) run as they are; any other tool needs --confirm",
  });
  const authStatus = {
    name: "n8n-auth-status",
    summary: "whether n8n is configured and accepts the token (never shows the token)",
    usage: "n8n-auth-status",
    async run() {
      const endpoint = endpointOf(host.env);
      const report = { url: endpoint?.url ?? null, urlFrom: endpoint?.from ?? null, token: host.env.N8N_MCP_TOKEN ? "set (N8N_MCP_TOKEN)" : "not set" };
      if (!endpoint) {
        return host.output.json({ ok: false, ...report, error: { code: "NOT_CONFIGURED", message: "set N8N_MCP_URL or N8N_INSTANCE_URL (and N8N_MCP_TOKEN) in the server's environment" } }, host.exit.NOT_CONFIGURED);
      }
      try {
        const { tools } = await client().listTools();
        return host.output.json({ ok: true, ...report, authenticated: true, tools: tools.length });
      } catch (error) {
        const failed = host.output.error("n8n-auth-status", error);
        const payload = JSON.parse(failed.stdout);
        return { ...host.output.json({ ok: false, ...report, authenticated: false, error: payload.error }, failed.exitCode), stderr: failed.stderr };
      }
    },
  };
  const [search, describe, call] = trio;
  return { commands: [search, authStatus, describe, call], close: () => made?.close() };
}
