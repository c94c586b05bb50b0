/**
 * Where the n8n instance is, from the host's N8N_* variables only (never from tool arguments):
 * the MCP endpoint is N8N_MCP_URL, else N8N_INSTANCE_URL + /mcp-server/http; the instance (for
 * the REST API at <instance>/api/v1) is N8N_INSTANCE_URL, else N8N_MCP_URL without its
 * /mcp-server/... path.
 */

export const MCP_PATH = "/mcp-server/http";
/**
 * Under $XDG_CONFIG_HOME like the runtime's user config file, else ~/.config; written as a
 * template that the MCP adapter's token store resolves (`${VAR:-default}`, then `~`), the same way
 * as an N8N_MCP_TOKEN_STORE value.
 */
export const DEFAULT_TOKEN_STORE = "${XDG_CONFIG_HOME:-~/.config}/agent-tools/n8n/tokens.json";

function trimSlash(url) {
  return url.replace(/\/+$/, "");
}

export function instanceUrl(env) {
  if (env.N8N_INSTANCE_URL) return trimSlash(env.N8N_INSTANCE_URL);
  if (!env.N8N_MCP_URL) return undefined;
  const mcp = trimSlash(env.N8N_MCP_URL);
  const at = mcp.indexOf("/mcp-server/");
  if (at !== -1) return mcp.slice(0, at);
  try {
    return new URL(mcp).origin;
  } catch {
    return mcp;
  }
}

export function mcpUrl(env) {
  if (env.N8N_MCP_URL) return env.N8N_MCP_URL;
  if (env.N8N_INSTANCE_URL) return `${trimSlash(env.N8N_INSTANCE_URL)}${MCP_PATH}`;
  return undefined;
}

export function positiveNumber(value) {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}
