// n8n's built-in MCP server (Settings → MCP) as commands, configured on the host:
//   N8N_MCP_URL, or N8N_INSTANCE_URL (then the URL is <instance>/mcp-server/http);
//   N8N_MCP_TOKEN, the MCP access token (bearer). The token stays on the host.
// The server becomes an in-memory plugin ('n8n-mcp') of the session, so its commands take the
// runtime's one call path. The read-only tools are the bundled n8n plugin's list (one list, read
// from plugins/agent-tools-plugin-n8n/plugin.json); they run without --confirm. Any other tool
// (create, update, run, delete…) needs --confirm here, even one the server marks read-only: the
// n8n plugin itself runs writes without confirmation (its manifest says so), but a command line
// in the sandbox can repeat a write in a loop, so this module keeps the gate for writes.

export const name = "n8n-mcp";
export const description = "An n8n instance's MCP server: n8n-search, n8n-auth-status, n8n-describe, n8n-call [--confirm] (read-only tools need no --confirm).";
export const variables = [
  { name: "N8N_MCP_URL", description: "the instance's MCP endpoint, e.g. https://n8n.example.com/mcp-server/http" },
  { name: "N8N_INSTANCE_URL", description: "the instance's base URL, used when N8N_MCP_URL is not set" },
  { name: "N8N_MCP_TOKEN", description: "the MCP access token from n8n's settings (bearer)", secret: true },
];
export const commands = ["n8n-search", "n8n-auth-status", "n8n-describe", "n8n-call"];

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
  const plugin = host.plugin({
    prefix: "n8n-mcp",
    name: "n8n",
    description: "An n8n instance's MCP server",
    client: () => {
      const endpoint = endpointOf(host.env);
      if (!endpoint) {
        const error = new Error("n8n is not configured: set N8N_MCP_URL (or N8N_INSTANCE_URL) and N8N_MCP_TOKEN in the server's environment");
        error.code = "NOT_CONFIGURED";
        throw error;
      }
      // The runtime's generic HTTP client, given n8n's settings under its own variable names.
      const env = { ...host.env, AGENT_MCP_URL: endpoint.url, AGENT_MCP_TOKEN: host.env.N8N_MCP_TOKEN ?? "" };
      // Hints name the variable that gave the URL (N8N_MCP_URL or N8N_INSTANCE_URL), not AGENT_MCP_URL.
      return host.lib.mcpClientFromEnv(env, { log: host.log, name: "n8n-mcp", urlVariable: endpoint.from });
    },
    requireConfirm: true,
    readonlyTools: host.lib.bundledReadonlyTools("n8n"),
    trustReadOnlyHints: false,
  });
  const [search, describe, call] = plugin.commands({ search: "n8n-search", describe: "n8n-describe", call: "n8n-call" });
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
        const { tools } = await plugin.adapter.listTools();
        return host.output.json({ ok: true, ...report, authenticated: true, tools: tools.length });
      } catch (error) {
        const failed = host.output.error("n8n-auth-status", error);
        const payload = JSON.parse(failed.stdout);
        return { ...host.output.json({ ok: false, ...report, authenticated: false, error: payload.error }, failed.exitCode), stderr: failed.stderr };
      }
    },
  };
  return { commands: [search, authStatus, describe, call], close: () => plugin.close() };
}
