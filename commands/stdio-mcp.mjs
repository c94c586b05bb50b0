// A local MCP server started over stdio, configured on the host:
//   AGENT_STDIO_MCP_COMMAND (required), AGENT_STDIO_MCP_ARGS (JSON array or words),
//   AGENT_STDIO_MCP_ENV (JSON object; ${VAR} resolved on the host), AGENT_STDIO_MCP_CWD,
//   AGENT_STDIO_MCP_TIMEOUT_MS. The server starts on first use and stops when the session ends.
// Every call needs --confirm.

export const name = "stdio-mcp";
export const description = "A local MCP server over stdio (AGENT_STDIO_MCP_COMMAND): stdio-mcp-search, stdio-mcp-describe, stdio-mcp-call --confirm.";
export const variables = [
  { name: "AGENT_STDIO_MCP_COMMAND", description: "the program that starts the server", required: true },
  { name: "AGENT_STDIO_MCP_ARGS", description: "its arguments: a JSON array or space-separated words" },
  { name: "AGENT_STDIO_MCP_ENV", description: "extra environment for it, a JSON object (values may be ${VAR})", secret: true },
  { name: "AGENT_STDIO_MCP_CWD", description: "its working directory" },
  { name: "AGENT_STDIO_MCP_TIMEOUT_MS", description: "per-request timeout in ms (default 60000)" },
];
export const commands = ["stdio-mcp-search", "stdio-mcp-describe", "stdio-mcp-call"];

export function setup(host) {
  // An in-memory plugin of the session: its commands take the runtime's one call path.
  const plugin = host.plugin({
    prefix: "stdio-mcp",
    name: "the stdio MCP server (AGENT_STDIO_MCP_COMMAND)",
    description: "A local MCP server over stdio",
    client: () => host.lib.stdioMcpClientFromEnv(host.env, { log: host.log, name: "stdio-mcp" }),
  });
  return {
    commands: plugin.commands({ search: "stdio-mcp-search", describe: "stdio-mcp-describe", call: "stdio-mcp-call" }),
    close: () => plugin.close(),
  };
}
