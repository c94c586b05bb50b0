// Any MCP server over HTTP as three commands, configured on the host:
//   AGENT_MCP_URL (required), AGENT_MCP_TOKEN (bearer, optional), AGENT_MCP_TIMEOUT_MS.
// The token is read here, on the host, and sent by the runtime's MCP client; the sandbox
// never sees it. The server becomes an in-memory plugin ('generic-mcp') of the session, so its
// commands take the runtime's one call path. Every call needs --confirm: a generic server's own
// read-only hints are not trusted to decide what may change data.

export const name = "generic-mcp";
export const description = "Any MCP server over HTTP (AGENT_MCP_URL): mcp-search, mcp-describe, mcp-call --confirm.";
export const variables = [
  { name: "AGENT_MCP_URL", description: "the MCP server's Streamable HTTP (or SSE) URL", required: true },
  { name: "AGENT_MCP_TOKEN", description: "bearer token sent to that server", secret: true },
  { name: "AGENT_MCP_TIMEOUT_MS", description: "per-request timeout in ms (default 60000)" },
];
export const commands = ["mcp-search", "mcp-describe", "mcp-call"];

export function setup(host) {
  const plugin = host.plugin({
    prefix: "generic-mcp",
    name: "the MCP server at AGENT_MCP_URL",
    description: "Any MCP server over HTTP",
    client: () => host.lib.mcpClientFromEnv(host.env, { log: host.log, name: "generic-mcp" }),
  });
  return {
    commands: plugin.commands({ search: "mcp-search", describe: "mcp-describe", call: "mcp-call" }),
    close: () => plugin.close(),
  };
}
